import Foundation
import GatewayAssembly
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing
import ZIPFoundation

@testable import GatewayGotenbergAPI
@testable import GatewayServer

/// Gotenberg's PDF engines: outlines of a merge, metadata written and read, bookmarks.
extension GotenbergPDFEnginesTests {
    @Test("merge builds the outline Gotenberg does: each file's own (autoIndexBookmarks), titled per file (titleBookmarks), or lists by file name")
    func mergedOutlines() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run(converting: true) { client in
            // Inputs named for their order: one with an outline of its own (made by the route
            // that writes them), one titled, one with neither.
            let written = try await Self.post(
                client,
                "/forms/pdfengines/bookmarks/write",
                [
                    .file("files", path: Fixtures.pdf("many-pages.pdf")),
                    .text("bookmarks", #"[{"title":"Intro","page":1,"children":[{"title":"Part","page":3}]}]"#),
                ]
            )
            #expect(written.status == .ok)
            let first = scratch.file("a-outlined.pdf")
            try Data(written.body.readableBytesView).write(to: URL(fileURLWithPath: first))
            let second = scratch.file("b-one.pdf")
            try FileManager.default.copyItem(atPath: Fixtures.pdf("one-page.pdf"), toPath: second)
            let third = scratch.file("c-plain.pdf")
            try FileManager.default.copyItem(atPath: Fixtures.pdf("no-metadata.pdf"), toPath: third)
            let inputs: [FormPart] = [.file("files", path: third), .file("files", path: first), .file("files", path: second)]

            func outline(_ extra: [FormPart], _ files: [FormPart] = inputs) async throws -> String {
                let merged = try await Self.post(client, "/forms/pdfengines/merge", files + extra)
                #expect(merged.status == .ok, "\(String(buffer: merged.body))")
                let path = scratch.file("merged.pdf")
                try Data(merged.body.readableBytesView).write(to: URL(fileURLWithPath: path))
                let read = try await Self.post(client, "/forms/pdfengines/bookmarks/read", [.file("files", path: path)])
                return String(buffer: read.body)
            }
            let titled = try await outline([.text("titleBookmarks", "true")])
            let own = #"{"children":[{"page":3,"title":"Part"}],"page":1,"title":"Intro"}"#
            #expect(
                titled
                    == #"{"merged.pdf":[{"children":["# + own + #"],"page":1,"title":"Twelve Pages"},"#
                    + #"{"page":13,"title":"One Page Fixture"},{"page":14,"title":"c-plain"}]}"#,
                "\(titled)"
            )
            // Files go in natural order of their names, whatever the form's order.
            let indexed = try await outline([.text("autoIndexBookmarks", "true")], [.file("files", path: second), .file("files", path: first)])
            #expect(indexed == #"{"merged.pdf":["# + own + "]}", "\(indexed)")
            let mapped = try await outline(
                [.text("autoIndexBookmarks", "true"), .text("bookmarks", #"{"b-one.pdf":[{"title":"Single","page":1}]}"#)],
                [.file("files", path: second), .file("files", path: first)]
            )
            #expect(mapped == #"{"merged.pdf":["# + own + #",{"page":13,"title":"Single"}]}"#, "\(mapped)")
            // Without the fields, the leading file's outline stays (the merge keeps the first
            // input's document-level parts); the others' are not carried.
            let plain = try await outline([], [.file("files", path: second), .file("files", path: first)])
            #expect(plain == #"{"merged.pdf":["# + own + "]}", "\(plain)")
            let bad = try await Self.post(client, "/forms/pdfengines/merge", inputs + [.text("autoIndexBookmarks", "foo")])
            #expect(
                String(buffer: bad.body)
                    == #"Invalid form data: form field 'autoIndexBookmarks' is invalid (got 'foo', resulting to strconv.ParseBool: parsing "foo": invalid syntax)"#
            )
        }
    }

    /// Gotenberg's own acceptance scenario for metadata: every key written (ExifTool, dates
    /// with their offsets), then read back by metadata/read as Gotenberg answers it.
    @Test("metadata/write writes every key as Gotenberg does, and metadata/read reads them back")
    func metadataRoundTrip() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run(converting: true) { client in
            let metadata =
                #"{"Author":"Julien Neuhart","Copyright":"Julien Neuhart","CreateDate":"2006-09-18T16:27:50-04:00","Creator":"Gotenberg","Keywords":["first","second"],"Marked":true,"ModDate":"2006-09-18T16:27:50-04:00","PDFVersion":1.7,"Producer":"Gotenberg","Subject":"Sample","Title":"Sample","Trapped":"Unknown"}"#
            let written = try await GotenbergAPITests.post(
                client,
                "/forms/pdfengines/metadata/write",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("metadata", metadata)],
                headers: [.gotenbergOutputFilename: "foo"]
            )
            #expect(written.status == .ok, "\(String(buffer: written.body))")
            let path = scratch.file("foo.pdf")
            try Data(written.body.readableBytesView).write(to: URL(fileURLWithPath: path))
            let read = try await Self.post(client, "/forms/pdfengines/metadata/read", [.file("files", path: path)])
            let tags = Self.json(read)["foo.pdf"] as? [String: Any] ?? [:]
            #expect(tags["Author"] as? String == "Julien Neuhart" && tags["Copyright"] as? String == "Julien Neuhart", "\(tags)")
            #expect(tags["CreateDate"] as? String == "2006:09:18 16:27:50-04:00", "\(tags)")
            #expect(tags["ModDate"] as? String == "2006:09:18 16:27:50-04:00", "\(tags)")
            #expect(tags["Keywords"] as? [String] == ["first", "second"], "\(tags)")
            #expect(tags["Marked"] as? Bool == true && tags["Trapped"] as? String == "Unknown", "\(tags)")
            #expect(tags["Producer"] as? String == "Gotenberg" && tags["Title"] as? String == "Sample", "\(tags)")
            // Poppler reads the same document information.
            let info = try await run("/usr/bin/pdfinfo", [path]).stdout
            #expect(info.contains("Title:           Sample") && info.contains("Producer:        Gotenberg"), "\(info)")
        }
    }

    /// The JSON object of a read route's answer.
    static func json(_ response: TestResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView)) as? [String: Any]) ?? [:]
    }

    @Test("bookmarks are written (one list, or one per file by name) and read back; metadata/read is ExifTool's, as Gotenberg's is")
    func bookmarksAndMetadataRead() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run(converting: true) { client in
            let none = try await Self.post(client, "/forms/pdfengines/bookmarks/read", [.file("files", path: Fixtures.pdf("one-page.pdf"))])
            #expect(none.status == .ok && none.headers[.contentType] == "application/json", "\(String(buffer: none.body))")
            #expect(String(buffer: none.body) == #"{"one-page.pdf":[]}"#)

            let outline = #"[{"title":"Index","page":1,"children":[{"title":"Sub-index","page":3},{"title":"Ünïcode – “quoted”","page":2}]}]"#
            let written = try await Self.post(
                client,
                "/forms/pdfengines/bookmarks/write",
                [.file("files", path: Fixtures.pdf("many-pages.pdf")), .text("bookmarks", outline)]
            )
            #expect(written.status == .ok && Self.filename(written) == "many-pages.pdf", "\(String(buffer: written.body))")
            let path = try saved(Data(written.body.readableBytesView))
            let read = try await Self.post(client, "/forms/pdfengines/bookmarks/read", [.named("files", path: path, filename: "book.pdf")])
            let expected = try JSONSerialization.jsonObject(with: Data(outline.utf8)) as? [[String: Any]]
            let got = Self.json(read)["book.pdf"] as? [[String: Any]]
            #expect(got.map { NSArray(array: $0) } == expected.map { NSArray(array: $0) }, "\(String(buffer: read.body))")
            // Poppler reads the same outline.
            let xml = try await run("/usr/bin/pdftohtml", ["-xml", "-i", "-q", "-stdout", path]).stdout
            #expect(xml.contains("<outline>") && xml.contains("Sub-index") && xml.contains("Ünïcode – “quoted”"), "\(xml.prefix(2000))")

            // One list per file, by name, in a zip.
            let both = try await Self.post(
                client,
                "/forms/pdfengines/bookmarks/write",
                [
                    .file("files", path: Fixtures.pdf("one-page.pdf")), .file("files", path: Fixtures.pdf("no-metadata.pdf")),
                    .text("bookmarks", #"{"one-page.pdf":[{"title":"One","page":1}],"no-metadata.pdf":[{"title":"Two","page":1}]}"#),
                ]
            )
            let entries = try Self.entries(both)
            #expect(entries.map(\.name) == ["no-metadata.pdf", "one-page.pdf"], "\(String(buffer: both.body))")
            var titles: [String: String] = [:]
            for entry in entries {
                let answer = try await Self.post(
                    client,
                    "/forms/pdfengines/bookmarks/read",
                    [.named("files", path: try saved(entry.data), filename: entry.name)]
                )
                titles[entry.name] = ((Self.json(answer)[entry.name] as? [[String: Any]])?.first?["title"] as? String)
            }
            #expect(titles == ["one-page.pdf": "One", "no-metadata.pdf": "Two"])

            // Any route takes one list, applied to what it made: a merge of 3 + 1 pages.
            let merged = try await Self.post(
                client,
                "/forms/pdfengines/merge",
                [
                    .file("files", path: Fixtures.pdf("no-metadata.pdf")), .file("files", path: Fixtures.pdf("one-page.pdf")),
                    .text("bookmarks", #"[{"title":"Second part","page":4}]"#),
                ]
            )
            let mergedPath = try saved(Data(merged.body.readableBytesView))
            let mergedRead = try await Self.post(client, "/forms/pdfengines/bookmarks/read", [.named("files", path: mergedPath, filename: "m.pdf")])
            let mergedOutline = Self.json(mergedRead)["m.pdf"] as? [[String: Any]]
            #expect(
                mergedOutline?.first?["title"] as? String == "Second part" && mergedOutline?.first?["page"] as? Int == 4,
                "\(String(buffer: mergedRead.body))"
            )
            // Lists by file name belong to bookmarks/write and merge.
            let byName = try await Self.post(
                client,
                "/forms/pdfengines/flatten",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("bookmarks", #"{"one-page.pdf":[{"title":"A","page":1}]}"#)]
            )
            #expect(
                byName.status == .badRequest && String(buffer: byName.body).contains("bookmarks/write and merge"),
                "\(String(buffer: byName.body))"
            )

            // A page the document does not have, and no bookmarks at all.
            let past = try await Self.post(
                client,
                "/forms/pdfengines/bookmarks/write",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("bookmarks", #"[{"title":"Far","page":9}]"#)]
            )
            #expect(past.status == .badRequest && String(buffer: past.body).contains("page 9"), "\(String(buffer: past.body))")
            let missing = try await Self.post(client, "/forms/pdfengines/bookmarks/write", [])
            #expect(
                String(buffer: missing.body) == "Invalid form data: form field 'bookmarks' is required\nno form file found for extensions: [.pdf]"
            )

            // metadata/write, then metadata/read: ExifTool's names and date format.
            let described = try await Self.post(
                client,
                "/forms/pdfengines/metadata/write",
                [
                    .file("files", path: Fixtures.pdf("no-metadata.pdf")),
                    .text("metadata", #"{"Title":"Sample","Author":"Julien Neuhart","CreateDate":"2006-09-18T16:27:50-04:00"}"#),
                ]
            )
            let describedPath = try saved(Data(described.body.readableBytesView))
            let metadata = try await Self.post(
                client,
                "/forms/pdfengines/metadata/read",
                [.named("files", path: describedPath, filename: "foo.pdf"), .file("files", path: Fixtures.pdf("one-page.pdf"))]
            )
            #expect(metadata.status == .ok && metadata.headers[.contentType] == "application/json", "\(String(buffer: metadata.body))")
            let foo = Self.json(metadata)["foo.pdf"] as? [String: Any] ?? [:]
            #expect(foo["Title"] as? String == "Sample" && foo["Author"] as? String == "Julien Neuhart", "\(foo)")
            // Written by ExifTool, as Gotenberg's: the offset is kept.
            #expect(foo["CreateDate"] as? String == "2006:09:18 16:27:50-04:00", "\(foo)")
            // FileName is the name posted (as Gotenberg before 8.30 answered one); no path leaks.
            #expect(foo["PageCount"] as? Int == 3 && foo["FileName"] as? String == "foo.pdf" && foo["Directory"] == nil, "\(foo)")
            #expect(Self.json(metadata)["one-page.pdf"] is [String: Any])
        }
    }
}
