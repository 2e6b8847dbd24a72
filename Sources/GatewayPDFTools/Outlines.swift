import Foundation
import GatewayJobModel

/// A PDF's outline (bookmarks) read and written through qpdf's JSON: qpdf resolves each
/// entry's destination to a page (`outlines` section) and writes the new entries as objects
/// (`--update-from-json`), so no PDF syntax is ours.
struct Outlines {
    let step: Step

    private var pdf: QPDFJSON { QPDFJSON(step: step, file: step.inputName) }

    /// The outline as qpdf reads it: titles and the pages they open (0 for an entry whose
    /// target is no page of the document, such as a link to another file).
    func read(what: String) async throws -> [PDFBookmark] {
        let entries = try await pdf.section("outlines", what: what) as? [[String: Any]] ?? []
        return entries.map(Self.bookmark)
    }

    private static func bookmark(_ entry: [String: Any]) -> PDFBookmark {
        let title = entry["title"] as? String ?? ""
        let page = entry["destpageposfrom1"] as? Int ?? 0
        let kids = entry["kids"] as? [[String: Any]] ?? []
        return PDFBookmark(title: title, page: page, children: kids.map(bookmark))
    }

    /// Writes `items` as the whole outline (none removes it) into the step's output.
    func write(_ items: [PDFBookmark], what: String) async throws {
        let pages = (try await pdf.section("pages", what: what) as? [[String: Any]] ?? []).compactMap { $0["object"] as? String }
        let trailer = try await pdf.object("trailer", what: what)
        guard let root = trailer.value["/Root"] as? String else {
            throw JobFailure(.rejected, code: "operation_failed", "\(what) has no document catalog; qpdf cannot add bookmarks to it")
        }
        // A converted document's page count is only known now.
        do {
            try PDFBookmark.checkPages(items, pageCount: pages.count, field: "bookmarks")
        } catch {
            throw JobFailure(.rejected, code: error.code, error.message)
        }
        var catalog = try await pdf.object(root, what: what).value
        var next = trailer.header["maxobjectid"] as? Int ?? 0
        var changes: [String: Any] = [:]
        if items.isEmpty {
            catalog["/Outlines"] = nil
        } else {
            next += 1
            let top = "\(next) 0 R"
            var allocator = Allocator(next: next)
            let (first, lastEntry, count) = allocator.write(items, parent: top, pages: pages, into: &changes)
            next = allocator.next
            changes["obj:" + top] = ["value": ["/Type": "/Outlines", "/First": first, "/Last": lastEntry, "/Count": count]]
            catalog["/Outlines"] = top
        }
        changes["obj:" + root] = ["value": catalog]
        try await pdf.update(changes, maxObject: next, into: step.outputName, what: what)
    }

    /// Numbers the new entries' objects and links them: parent, siblings, first and last child.
    private struct Allocator {
        var next: Int

        /// Writes `items` under `parent`; answers the first and last entries' references and
        /// how many entries are open beneath (all of them: every entry starts unfolded).
        mutating func write(
            _ items: [PDFBookmark],
            parent: String,
            pages: [String],
            into changes: inout [String: Any]
        ) -> (first: String, last: String, count: Int) {
            let references = items.map { _ in
                next += 1
                return "\(next) 0 R"
            }
            var total = items.count
            for (index, item) in items.enumerated() {
                var entry: [String: Any] = [
                    "/Title": "u:" + item.title,
                    "/Parent": parent,
                    "/Dest": [pages[item.page - 1], "/Fit"],
                ]
                if index > 0 { entry["/Prev"] = references[index - 1] }
                if index < items.count - 1 { entry["/Next"] = references[index + 1] }
                if !item.children.isEmpty {
                    let (first, last, count) = write(item.children, parent: references[index], pages: pages, into: &changes)
                    entry["/First"] = first
                    entry["/Last"] = last
                    entry["/Count"] = count
                    total += count
                }
                changes["obj:" + references[index]] = ["value": entry]
            }
            return (references[0], references[references.count - 1], total)
        }
    }
}
