import Foundation
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayServer

/// The phone app's backup protocol through the router, played as the app would: back up on one
/// device, rename on the web page, delete on a second device, restore on a third, and a write
/// from a device that has not caught up.
@Suite("The backup protocol through the router")
struct BackupProtocolTests {
    @Test func backUpRenameDeleteRestoreAndAStaleDevice() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            let onePage = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
            let manyPages = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("many-pages.pdf"))))
            let (folderID, receiptID, noteID) = (UUID().lowercased, UUID().lowercased, UUID().lowercased)

            // Device A backs up a folder and two documents under its own ids, create-only.
            let folder = try await client.execute(
                uri: "/v1/folders/\(folderID)",
                method: .put,
                headers: [.contentType: "application/json", .ifNoneMatch: "*"],
                body: ByteBuffer(string: #"{"name": "Receipts", "parent_id": null}"#)
            )
            #expect(folder.status == .created, "\(folder.status) \(folder.json)")
            #expect(folder.json["id"] as? String == folderID)
            let receipt = try await client.execute(
                uri: "/v1/documents/\(receiptID)?name=Receipt&folder_id=\(folderID)",
                method: .put,
                headers: [.contentType: "application/pdf", .ifNoneMatch: "*"],
                body: ByteBuffer(bytes: manyPages)
            )
            #expect(receipt.status == .created && receipt.json["id"] as? String == receiptID, "\(receipt.json)")
            let receiptETag = try #require(receipt.headers[.eTag])
            #expect(receiptETag == "\"\(receipt.json["version"] as? String ?? "")\"")
            let note = try await client.execute(
                uri: "/v1/documents/\(noteID)?name=Note",
                method: .put,
                headers: [.contentType: "application/pdf"],
                body: ByteBuffer(bytes: onePage)
            )
            #expect(note.status == .created)
            let retried = try await client.execute(
                uri: "/v1/documents/\(noteID)?name=Note",
                method: .put,
                headers: [.contentType: "application/pdf"],
                body: ByteBuffer(bytes: onePage)
            )
            #expect(retried.status == .ok && retried.headers[.eTag] == note.headers[.eTag], "a retried backup changes nothing")
            let deviceAToken = try #require(try await client.send(.get, "/v1/changes").json["token"] as? String)

            // Someone renames the receipt on the web page; device B deletes the note.
            let renamed = try await client.send(.patch, "/v1/documents/\(receiptID)", json: ["name": "Receipt March"])
            #expect(renamed.status == .ok)
            #expect(try await client.send(.delete, "/v1/documents/\(noteID)").status == .noContent)

            // Device C restores everything from nothing.
            let restore = try await client.send(.get, "/v1/changes")
            let entries = try #require(restore.json["changes"] as? [[String: Any]])
            #expect(Set(entries.compactMap { $0["id"] as? String }) == [folderID, receiptID])
            let restoredReceipt = try #require(entries.first { $0["id"] as? String == receiptID }?["document"] as? [String: Any])
            #expect(restoredReceipt["name"] as? String == "Receipt March" && restoredReceipt["folder_id"] as? String == folderID)
            let content = try await client.execute(uri: "/v1/documents/\(receiptID)/content", method: .get)
            #expect(Array(content.body.readableBytesView) == manyPages, "the backup comes back byte for byte")

            // Device A, still holding the receipt's first version, tries to write over it.
            let stale = try await client.execute(
                uri: "/v1/documents/\(receiptID)?name=Receipt",
                method: .put,
                headers: [.contentType: "application/pdf", .ifMatch: receiptETag],
                body: ByteBuffer(bytes: onePage)
            )
            #expect(stale.status == .preconditionFailed && stale.error.code == "precondition_failed", "\(stale.json)")
            let current = try #require(stale.json["current"] as? [String: Any])
            #expect(current["name"] as? String == "Receipt March")
            let now = try await client.send(.get, "/v1/documents/\(receiptID)")
            #expect(now.json["name"] as? String == "Receipt March" && now.json["page_count"] as? Int == restoredReceipt["page_count"] as? Int)
            #expect(now.headers[.eTag] == stale.headers[.eTag] && now.headers[.eTag] != receiptETag, "nothing was written")

            // It catches up, then writes over the version it now holds.
            let caughtUp = try await client.send(.get, "/v1/changes?since=\(deviceAToken)")
            let seen = try #require(caughtUp.json["changes"] as? [[String: Any]])
            #expect(seen.contains { $0["id"] as? String == noteID && $0["deleted"] as? Bool == true })
            let fresh = try #require(seen.first { $0["id"] as? String == receiptID }?["document"] as? [String: Any])
            let version = try #require(fresh["version"] as? String)
            let merged = try await client.execute(
                uri: "/v1/documents/\(receiptID)",
                method: .put,
                headers: [.contentType: "application/pdf", .ifMatch: "\"\(version)\""],
                body: ByteBuffer(bytes: onePage)
            )
            #expect(merged.status == .ok && merged.json["name"] as? String == "Receipt March" && merged.json["page_count"] as? Int == 1)

            // Refusals say what is wrong.
            let notUUID = try await client.send(.put, "/v1/folders/not-a-uuid", json: ["name": "X"])
            #expect(notUUID.status == .badRequest && notUUID.error.code == "invalid_argument")
            let namelessID = UUID().lowercased
            let nameless = try await client.execute(
                uri: "/v1/documents/\(namelessID)",
                method: .put,
                headers: [.contentType: "application/pdf"],
                body: ByteBuffer(bytes: onePage)
            )
            #expect(nameless.status == .created && nameless.json["name"] as? String == namelessID, "named by its id: \(nameless.json)")
            let both = try await client.execute(
                uri: "/v1/documents/\(namelessID)",
                method: .put,
                headers: [.contentType: "application/pdf", .ifMatch: try #require(nameless.headers[.eTag]), .ifNoneMatch: "*"],
                body: ByteBuffer(bytes: onePage)
            )
            #expect(both.status == .preconditionFailed, "an item that must exist and must not cannot be written")
            let missing = try await client.execute(
                uri: "/v1/folders/\(UUID().lowercased)",
                method: .put,
                headers: [.contentType: "application/json", .ifMatch: "\"1\""],
                body: ByteBuffer(string: #"{"name": "Ghost"}"#)
            )
            #expect(missing.status == .preconditionFailed && missing.json["current"] is NSNull)
        }
    }
}
