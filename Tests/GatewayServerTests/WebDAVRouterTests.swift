import Foundation
import GatewayTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayServer

/// `/dav/` through the router: what each bad request is answered, that it writes nothing, and
/// how overwriting, moving and locks go through the library.
@Suite("WebDAV through the router")
struct WebDAVRouterTests {

    @Test func badPathsAndBodiesAreRefusedWithTheirCodes() async throws {
        let gateway = try await InProcessGateway { $0.maxUploadBytes = 64 * 1024 }
        try await gateway.run { client in
            for (path, code) in [
                ("/dav/a/../b", "invalid_dav_path"), ("/dav/a%2Fb.pdf", "invalid_dav_path"), ("/dav/bell%07.pdf", "invalid_dav_path"),
                ("/dav/" + String(repeating: "x/", count: 70), "invalid_dav_path"),
            ] {
                let answer = try await client.execute(uri: path, method: .get)
                #expect(answer.status == .badRequest && answer.error.code == code, "\(path): \(answer.status) \(answer.json)")
            }
            let infinite = try await client.execute(uri: "/dav/", method: .propfind, headers: [HTTPField.Name("Depth")!: "infinity"])
            #expect(infinite.status == .forbidden && infinite.error.code == "propfind_finite_depth")

            let xxe =
                #"<?xml version="1.0"?><!DOCTYPE p [<!ENTITY e SYSTEM "file:///etc/passwd">]><D:propfind xmlns:D="DAV:"><D:prop>&e;</D:prop></D:propfind>"#
            let refused = try await client.execute(
                uri: "/dav/",
                method: .propfind,
                headers: [HTTPField.Name("Depth")!: "0"],
                body: ByteBuffer(string: xxe)
            )
            #expect(refused.status == .badRequest && refused.error.code == "xml_dtd_refused")
            let deep = #"<D:propfind xmlns:D="DAV:">"# + String(repeating: "<x>", count: 40) + String(repeating: "</x>", count: 40) + "</D:propfind>"
            let tooDeep = try await client.execute(
                uri: "/dav/",
                method: .propfind,
                headers: [HTTPField.Name("Depth")!: "0"],
                body: ByteBuffer(string: deep)
            )
            #expect(tooDeep.status == .badRequest && tooDeep.error.code == "xml_too_deep")
            let huge = try await client.execute(
                uri: "/dav/",
                method: .propfind,
                headers: [HTTPField.Name("Depth")!: "0"],
                body: ByteBuffer(string: "<D:propfind xmlns:D=\"DAV:\"><!--" + String(repeating: "x", count: 1 << 20) + "--></D:propfind>")
            )
            #expect(huge.status == .contentTooLarge && huge.error.code == "xml_too_large")

            let notPDF = try await client.execute(uri: "/dav/fake.pdf", method: .put, body: ByteBuffer(string: "plain text, not a PDF"))
            #expect(notPDF.status == .unprocessableContent && notPDF.error.code == "not_a_pdf", "\(notPDF.status) \(notPDF.json)")
            let big = try await client.execute(uri: "/dav/big.bin", method: .put, body: ByteBuffer(bytes: [UInt8](repeating: 7, count: 100_000)))
            #expect(big.status == .contentTooLarge, "\(big.status) \(big.json)")
            let listing = try await client.execute(uri: "/dav/", method: .propfind, headers: [HTTPField.Name("Depth")!: "1"])
            let hrefs = String(buffer: listing.body).matches(of: /<D:href>([^<]*)<\/D:href>/).map { String($0.1) }
            #expect(hrefs == ["/dav/"], "nothing refused was kept: \(hrefs)")
        }
    }

    /// The listing's hand-written escaping and percent-encoding (their slow paths, where a name
    /// has something to escape): the href encodes the segment, the display name escapes markup.
    @Test func namesWithMarkupAndAccentsAreEncodedInHrefsAndEscapedInXML() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            let pdf = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
            let encoded = "Q&A%20%3Cdraft%3E%20%221%22%20caf%C3%A9%20100%25.pdf"
            #expect(try await client.execute(uri: "/dav/" + encoded, method: .put, body: ByteBuffer(bytes: pdf)).status == .created)
            let listing = String(buffer: try await client.execute(uri: "/dav/", method: .propfind, headers: [HTTPField.Name("Depth")!: "1"]).body)
            #expect(listing.contains("<D:href>/dav/Q&amp;A%20%3Cdraft%3E%20%221%22%20caf%C3%A9%20100%25.pdf</D:href>"), "\(listing)")
            #expect(listing.contains("<D:displayname>Q&amp;A &lt;draft&gt; &quot;1&quot; café 100%.pdf</D:displayname>"), "\(listing)")
            let back = try await client.execute(uri: "/dav/" + encoded, method: .get)
            #expect(back.status == .ok && [UInt8](buffer: back.body) == pdf, "the href listed is the one that reads it back")
        }
    }

    @Test func overwritingMovesAndFoldersGoThroughTheLibrary() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            let pdf = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
            #expect(try await client.execute(uri: "/dav/A", method: .mkcol).status == .created)
            #expect(try await client.execute(uri: "/dav/A/B", method: .mkcol).status == .created)
            #expect(try await client.execute(uri: "/dav/A/One.pdf", method: .put, body: ByteBuffer(bytes: pdf)).status == .created)
            #expect(try await client.execute(uri: "/dav/A/Two.pdf", method: .put, body: ByteBuffer(bytes: pdf)).status == .created)
            let documents = try #require(try await client.send(.get, "/v1/documents?folder=A").json["documents"] as? [[String: Any]])
            let one = try #require(documents.first { $0["name"] as? String == "One" }?["id"] as? String)
            let two = try #require(documents.first { $0["name"] as? String == "Two" }?["id"] as? String)

            let kept = try await client.execute(
                uri: "/dav/A/One.pdf",
                method: .move,
                headers: [HTTPField.Name("Destination")!: "http://localhost/dav/A/Two.pdf", HTTPField.Name("Overwrite")!: "F"]
            )
            #expect(kept.status == .preconditionFailed && kept.error.code == "dav_destination_exists")
            let replaced = try await client.execute(
                uri: "/dav/A/One.pdf",
                method: .move,
                headers: [HTTPField.Name("Destination")!: "http://localhost/dav/A/Two.pdf"]
            )
            #expect(replaced.status == .noContent)
            #expect(try await client.send(.get, "/v1/documents/\(one)").json["name"] as? String == "Two", "the moved document keeps its id")
            #expect(try await client.send(.get, "/v1/documents/\(two)").status == .notFound, "the one it replaced is deleted")

            let intoItself = try await client.execute(
                uri: "/dav/A",
                method: .move,
                headers: [HTTPField.Name("Destination")!: "http://localhost/dav/A/B/A"]
            )
            #expect(intoItself.status == .forbidden && intoItself.error.code == "dav_into_itself")
            let noParent = try await client.execute(uri: "/dav/Nowhere/x.pdf", method: .put, body: ByteBuffer(bytes: pdf))
            #expect(noParent.status == .conflict && noParent.error.code == "dav_no_parent")
        }
    }

    @Test func aLockKeepsOthersOutUntilItsTokenIsSent() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            let pdf = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
            let info =
                #"<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>phone</D:owner></D:lockinfo>"#
            let locked = try await client.execute(uri: "/dav/Report.pdf", method: .lock, body: ByteBuffer(string: info))
            #expect(locked.status == .created, "a lock on a name not yet written: \(locked.status)")
            let token = try #require(locked.headers[HTTPField.Name("Lock-Token")!])

            let other = try await client.execute(uri: "/dav/Report.pdf", method: .put, body: ByteBuffer(bytes: pdf))
            #expect(other.status.code == 423 && other.error.code == "dav_locked")
            let again = try await client.execute(uri: "/dav/Report.pdf", method: .lock, body: ByteBuffer(string: info))
            #expect(again.status.code == 423)
            let holder = try await client.execute(
                uri: "/dav/Report.pdf",
                method: .put,
                headers: [HTTPField.Name("If")!: "(\(token))"],
                body: ByteBuffer(bytes: pdf)
            )
            #expect(holder.status == .created)
            let unlocked = try await client.execute(
                uri: "/dav/Report.pdf",
                method: .unlock,
                headers: [HTTPField.Name("Lock-Token")!: token]
            )
            #expect(unlocked.status == .noContent)
            #expect(try await client.execute(uri: "/dav/Report.pdf", method: .delete).status == .noContent)
        }
    }

    @Test func eachOwnerSeesOnlyTheirLibraryAndFileManagersAreAskedForBasic() async throws {
        let gateway = try await InProcessGateway { $0.auth = .tokens }
        let alice = try await gateway.server.tokens.create(owner: "alice").secret
        let bob = try await gateway.server.tokens.create(owner: "bob").secret
        @Sendable func basic(_ token: String) -> HTTPFields {
            [.authorization: "Basic " + Data("any-name:\(token)".utf8).base64EncodedString(), HTTPField.Name("Depth")!: "1"]
        }
        try await gateway.run { client in
            let anonymous = try await client.execute(uri: "/dav/", method: .propfind)
            #expect(anonymous.status == .unauthorized && anonymous.headers[.wwwAuthenticate]?.hasPrefix("Basic realm=") == true)
            let api = try await client.execute(uri: "/v1/documents", method: .get)
            #expect(api.headers[.wwwAuthenticate] == "Bearer", "the API does not make a browser prompt for a password")

            #expect(try await client.execute(uri: "/dav/Private", method: .mkcol, headers: basic(alice)).status == .created)
            let hers = try await client.execute(uri: "/dav/", method: .propfind, headers: basic(alice))
            #expect(String(buffer: hers.body).contains("<D:href>/dav/Private/</D:href>"))
            let his = try await client.execute(uri: "/dav/", method: .propfind, headers: basic(bob))
            #expect(his.status.code == 207 && !String(buffer: his.body).contains("Private"), "bob sees an empty library")
            #expect(try await client.execute(uri: "/dav/Private", method: .propfind, headers: basic(bob)).status == .notFound)
        }
    }

    @Test func aDroppedImageBecomesItsPDFAndABrokenOneLeavesANote() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run(converting: true) { client in
            let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.root + "/web-set/ferry-chart.png")))
            #expect(try await client.execute(uri: "/dav/ferry.png", method: .put, body: ByteBuffer(bytes: png)).status == .created)
            #expect(try await client.execute(uri: "/dav/broken.png", method: .put, body: ByteBuffer(string: "not an image")).status == .created)
            // While the jobs run the file manager still finds what it wrote.
            let hrefs = { () async throws -> [String] in
                let listing = try await client.execute(uri: "/dav/", method: .propfind, headers: [HTTPField.Name("Depth")!: "1"])
                return String(buffer: listing.body).matches(of: /<D:href>\/dav\/([^<]+)<\/D:href>/).map { String($0.1) }
            }
            #expect(try await hrefs().contains("broken.png"))
            try await eventually("the image's PDF took its place, the broken one has its note") {
                Set(try await hrefs()) == ["ferry.pdf", "broken.png", "broken.png.failed.txt"]
            }
            let note = String(buffer: try await client.execute(uri: "/dav/broken.png.failed.txt", method: .get).body)
            #expect(note.contains("not_an_image") && note.contains("The original is kept"), "\(note)")
            let documents = try await client.send(.get, "/v1/documents").json["documents"] as? [[String: Any]]
            #expect(documents?.compactMap { $0["name"] as? String } == ["ferry"])
        }
    }
}
