import Foundation
import GatewayHTTPServing
import GatewayJobModel
import GatewayLibraryModel

/// The outline Gotenberg's merge writes when it is told to build one from the inputs: the
/// `bookmarks` field by file name (each list moved to the pages where its file lands),
/// `autoIndexBookmarks` (each file's own outline, moved likewise) and `titleBookmarks` (an
/// entry per file, titled by its Title or else its name, over its own outline). One list for
/// the whole document needs none of this; it is the post-processing's `bookmarks`.
struct GotenbergMergeOutline {
    var byFile: [String: [PDFBookmark]]
    var autoIndex: Bool
    var titles: Bool

    /// Whether the inputs must be read before the merge: otherwise the outline is as given.
    var isNeeded: Bool { !byFile.isEmpty || autoIndex || titles }

    /// The merged document's outline. Page counts and titles come from Poppler (the sandboxed
    /// inspector), each file's own outline from qpdf, all before the job runs; a file that
    /// cannot be read is the route's refusal, as in Gotenberg.
    func outline(
        of files: [MultipartForm.File],
        inspector: any PDFInspector,
        tools: (any PDFOperator)?,
        work: String,
        deadline: ContinuousClock.Instant
    ) async throws -> [PDFBookmark] {
        var outline: [PDFBookmark] = []
        var offset = 0
        for file in files {
            let name = file.filename ?? "document.pdf"
            let info = try await inspector.inspect(path: file.path)
            var own = byFile[name] ?? []
            if own.isEmpty, autoIndex || titles {
                guard let tools else {
                    throw GotenbergError(.serviceUnavailable, "this node has no PDF tools (qpdf) to read the inputs' outlines with")
                }
                own = try await tools.bookmarks(of: file.path, work: work, deadline: deadline)
            }
            let moved = Self.shifted(own, by: offset)
            if titles {
                let title = info.title.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
                outline.append(PDFBookmark(title: title ?? (name as NSString).deletingPathExtension, page: offset + 1, children: moved))
            } else {
                outline += moved
            }
            offset += info.pageCount
        }
        return outline
    }

    static func shifted(_ bookmarks: [PDFBookmark], by offset: Int) -> [PDFBookmark] {
        bookmarks.map { PDFBookmark(title: $0.title, page: $0.page + offset, children: shifted($0.children, by: offset)) }
    }
}
