import Foundation
import GatewayTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayServer

/// WebDAV's `sync-collection` REPORT (RFC 6578) through the router: a first sync lists the folder,
/// a later one reports what arrived or changed and a 404 for each href left, and tokens it
/// cannot serve are RFC 6578's `valid-sync-token` failure.
@Suite("WebDAV sync-collection")
struct WebDAVSyncCollectionTests {

    static func body(token: String?, level: String = "1", limit: Int? = nil) -> ByteBuffer {
        let token = token.map { "<D:sync-token>\($0)</D:sync-token>" } ?? "<D:sync-token/>"
        let limit = limit.map { "<D:limit><D:nresults>\($0)</D:nresults></D:limit>" } ?? ""
        return ByteBuffer(
            string: #"<?xml version="1.0" encoding="utf-8"?><D:sync-collection xmlns:D="DAV:" xmlns:P="https://pdfgate.dev/ns/dav">"#
                + "\(token)<D:sync-level>\(level)</D:sync-level>\(limit)<D:prop><D:getetag/><P:id/></D:prop></D:sync-collection>"
        )
    }

    /// Each response's href and status (its own, or its first propstat's), and the report's token.
    static func read(_ buffer: ByteBuffer) -> (responses: [String: String], token: String?) {
        let xml = String(buffer: buffer)
        var responses: [String: String] = [:]
        for match in xml.matches(of: /<D:response><D:href>([^<]*)<\/D:href>(.*?)<\/D:response>/) {
            let status = match.2.firstMatch(of: /<D:status>HTTP\/1\.1 (\d+)/).map { String($0.1) } ?? "?"
            responses[String(match.1)] = status
        }
        return (responses, xml.firstMatch(of: /<D:sync-token>([^<]*)<\/D:sync-token><\/D:multistatus>/).map { String($0.1) })
    }

    static func move(_ client: any TestClientProtocol, _ path: String, to destination: String) async throws {
        let moved = try await client.execute(
            uri: path,
            method: .move,
            headers: [HTTPField.Name("Destination")!: "http://localhost" + destination]
        )
        #expect(moved.status == .created || moved.status == .noContent, "\(path) → \(destination): \(moved.status)")
    }

    @Test func aSecondSyncReportsArrivalsChangesAndTheHrefsLeft() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            let pdf = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
            #expect(try await client.execute(uri: "/dav/Box", method: .mkcol).status == .created)
            #expect(try await client.execute(uri: "/dav/Box/Sub", method: .mkcol).status == .created)
            for name in ["Moved", "Deleted", "Kept"] {
                #expect(try await client.execute(uri: "/dav/Box/\(name).pdf", method: .put, body: ByteBuffer(bytes: pdf)).status == .created)
            }
            #expect(try await client.execute(uri: "/dav/Other.pdf", method: .put, body: ByteBuffer(bytes: pdf)).status == .created)

            let first = try await client.execute(uri: "/dav/Box/", method: .report, body: Self.body(token: nil))
            #expect(first.status.code == 207)
            let initial = Self.read(first.body)
            #expect(
                initial.responses == ["/dav/Box/Sub/": "200", "/dav/Box/Moved.pdf": "200", "/dav/Box/Deleted.pdf": "200", "/dav/Box/Kept.pdf": "200"]
            )
            let token = try #require(initial.token)
            #expect(token.hasPrefix("https://pdfgate.dev/ns/sync/"), "a sync token is a URI")
            #expect(String(buffer: first.body).contains("<P:id>"), "the properties asked for come with each member")

            let propfind = try await client.execute(
                uri: "/dav/Box/",
                method: .propfind,
                headers: [HTTPField.Name("Depth")!: "0"],
                body: ByteBuffer(string: #"<D:propfind xmlns:D="DAV:"><D:prop><D:sync-token/><D:supported-report-set/></D:prop></D:propfind>"#)
            )
            let listed = String(buffer: propfind.body)
            #expect(listed.contains("<D:sync-token>\(token)</D:sync-token>"), "PROPFIND gives the same token while nothing changed: \(listed)")
            #expect(listed.contains("<D:sync-collection/>"))

            try await Self.move(client, "/dav/Box/Moved.pdf", to: "/dav/Box/Renamed.pdf")
            #expect(try await client.execute(uri: "/dav/Box/Deleted.pdf", method: .delete).status == .noContent)
            #expect(try await client.execute(uri: "/dav/Box/New.pdf", method: .put, body: ByteBuffer(bytes: pdf)).status == .created)
            try await Self.move(client, "/dav/Box/Sub/", to: "/dav/Box/Sub2/")
            #expect(try await client.execute(uri: "/dav/Other.pdf", method: .delete).status == .noContent)

            let second = try await client.execute(uri: "/dav/Box/", method: .report, body: Self.body(token: token))
            let since = Self.read(second.body)
            #expect(
                since.responses == [
                    "/dav/Box/Renamed.pdf": "200", "/dav/Box/New.pdf": "200", "/dav/Box/Sub2/": "200",
                    "/dav/Box/Moved.pdf": "404", "/dav/Box/Deleted.pdf": "404", "/dav/Box/Sub/": "404",
                ],
                "Kept.pdf did not change; Other.pdf is not in this folder"
            )
            let next = try #require(since.token)
            #expect(next != token)
            let quiet = Self.read(try await client.execute(uri: "/dav/Box/", method: .report, body: Self.body(token: next)).body)
            #expect(quiet.responses.isEmpty && quiet.token == next)

            // A limit cuts the report, says so with a 507 for the folder, and the rest follows.
            let limited = Self.read(try await client.execute(uri: "/dav/Box/", method: .report, body: Self.body(token: token, limit: 2)).body)
            #expect(limited.responses["/dav/Box/"] == "507" && limited.responses.count <= 3, "\(limited.responses)")
            var gathered = limited.responses.filter { $0.key != "/dav/Box/" }
            var position = try #require(limited.token)
            for _ in 0..<10 {
                let page = Self.read(try await client.execute(uri: "/dav/Box/", method: .report, body: Self.body(token: position, limit: 2)).body)
                gathered.merge(page.responses.filter { $0.key != "/dav/Box/" }) { _, new in new }
                position = try #require(page.token)
                if page.responses["/dav/Box/"] == nil { break }
            }
            #expect(gathered == since.responses)
        }
    }

    @Test func tokensAndLevelsItCannotServeAreRefusedAsRFC6578Says() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            for token in ["https://pdfgate.dev/ns/sync/bm90LWEtdG9rZW4", "urn:other:token", "https://pdfgate.dev/ns/sync/!!"] {
                let refused = try await client.execute(uri: "/dav/", method: .report, body: Self.body(token: token))
                let xml = String(buffer: refused.body)
                #expect(
                    refused.status == .forbidden && xml.contains("<D:valid-sync-token/>") && xml.contains("invalid_sync_token"),
                    "\(token): \(xml)"
                )
            }
            let infinite = try await client.execute(uri: "/dav/", method: .report, body: Self.body(token: nil, level: "infinite"))
            #expect(infinite.status == .forbidden && String(buffer: infinite.body).contains("<D:sync-traversal-supported/>"))
            let other = try await client.execute(
                uri: "/dav/",
                method: .report,
                body: ByteBuffer(string: #"<D:expand-property xmlns:D="DAV:"/>"#)
            )
            #expect(other.status == .forbidden && other.error.code == "dav_report_unsupported")
            let pdf = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
            #expect(try await client.execute(uri: "/dav/One.pdf", method: .put, body: ByteBuffer(bytes: pdf)).status == .created)
            let onDocument = try await client.execute(uri: "/dav/One.pdf", method: .report, body: Self.body(token: nil))
            #expect(onDocument.status == .forbidden && onDocument.error.code == "dav_report_not_collection")
            let missing = try await client.execute(uri: "/dav/Nowhere/", method: .report, body: Self.body(token: nil))
            #expect(missing.status == .notFound)
        }
    }

    @Test func aTokenOlderThanTheHistoryKeptIsRefusedAsExpired() async throws {
        let gateway = try await InProcessGateway()
        let library = gateway.server.assembly.library
        try await gateway.run { client in
            let pdf = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
            #expect(try await client.execute(uri: "/dav/Gone.pdf", method: .put, body: ByteBuffer(bytes: pdf)).status == .created)
            let token = try #require(Self.read(try await client.execute(uri: "/dav/", method: .report, body: Self.body(token: nil)).body).token)
            #expect(try await client.execute(uri: "/dav/Gone.pdf", method: .delete).status == .noContent)
            // The pruner forgets the deletion, and with it the history the token needs.
            #expect(try await library.forgetChanges(olderThan: .zero) >= 1)
            let refused = try await client.execute(uri: "/dav/", method: .report, body: Self.body(token: token))
            let xml = String(buffer: refused.body)
            #expect(refused.status == .forbidden && xml.contains("<D:valid-sync-token/>") && xml.contains("sync_token_expired"), "\(xml)")
            // Starting over works.
            let again = try await client.execute(uri: "/dav/", method: .report, body: Self.body(token: nil))
            #expect(again.status.code == 207 && Self.read(again.body).token != nil)
        }
    }
}
