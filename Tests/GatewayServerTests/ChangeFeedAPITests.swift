import Foundation
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayServer

/// `GET /v1/changes` through the router: the journal as a syncing client reads it.
@Suite("The change feed through the router")
struct ChangeFeedAPITests {
    @Test func aClientReadsTheLibraryThenWhatChangedThenPagesAndExpiry() async throws {
        let gateway = try await InProcessGateway()
        let library = gateway.server.assembly.library
        try await gateway.run { client in
            let pdf = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
            let kept = try await client.send(.post, "/v1/documents?name=Kept", bytes: pdf, contentType: "application/pdf")
            let doomed = try await client.send(.post, "/v1/documents?name=Doomed", bytes: pdf, contentType: "application/pdf")
            let folder = try await client.post("/v1/folders", json: ["path": "Box"])
            #expect(kept.status == .created && doomed.status == .created && folder.status == .created)
            let keptID = try #require(kept.json["id"] as? String)
            let doomedID = try #require(doomed.json["id"] as? String)
            let folderID = try #require(folder.json["id"] as? String)

            let all = try await client.send(.get, "/v1/changes")
            #expect(all.status == .ok, "\(all.json)")
            let entries = try #require(all.json["changes"] as? [[String: Any]])
            #expect(Set(entries.compactMap { $0["id"] as? String }) == [keptID, doomedID, folderID])
            #expect(entries.allSatisfy { $0["deleted"] as? Bool == false })
            let keptEntry = try #require(entries.first { $0["id"] as? String == keptID })
            let keptDocument = try #require(keptEntry["document"] as? [String: Any])
            #expect(keptEntry["kind"] as? String == "document" && keptDocument["name"] as? String == "Kept")
            #expect(keptDocument["download_url"] == nil, "a document entry is as a listing shows it: no signed link")
            #expect(keptDocument["version"] as? String != nil, "but with the version a backup's If-Match names")
            #expect(all.json["more"] as? Bool == false && all.json["next"] is NSNull)
            let token = try #require(all.json["token"] as? String)

            let renamed = try await client.send(.patch, "/v1/documents/\(keptID)", json: ["name": "Renamed", "folder_id": folderID])
            #expect(renamed.status == .ok, "\(renamed.json)")
            #expect(try await client.send(.delete, "/v1/documents/\(doomedID)").status == .noContent)

            let since = try await client.send(.get, "/v1/changes?since=\(token)")
            let changes = try #require(since.json["changes"] as? [[String: Any]])
            #expect(changes.count == 2, "\(changes)")
            let moved = try #require(changes.first { $0["id"] as? String == keptID }?["document"] as? [String: Any])
            #expect(moved["name"] as? String == "Renamed" && moved["folder_id"] as? String == folderID)
            let deletion = try #require(changes.first { $0["id"] as? String == doomedID })
            #expect(deletion["deleted"] as? Bool == true && deletion["kind"] as? String == "document" && deletion["document"] == nil)
            #expect(changes.first?["id"] as? String == keptID, "oldest change first")

            let first = try await client.send(.get, "/v1/changes?limit=1")
            #expect(first.json["more"] as? Bool == true)
            let next = try #require(first.json["next"] as? String)
            #expect(next.contains("/v1/changes?since=") && next.contains("limit=1"))

            #expect(try await client.send(.get, "/v1/changes?limit=0").error.code == "invalid_argument")
            let garbage = try await client.send(.get, "/v1/changes?since=garbage")
            #expect(garbage.status == .unprocessableContent && garbage.error.code == "invalid_sync_token", "\(garbage.json)")

            try await library.forgetChanges(olderThan: .zero)
            let expired = try await client.send(.get, "/v1/changes?since=\(token)")
            #expect(expired.status == .gone && expired.error.code == "sync_token_expired", "\(expired.json)")
            #expect(expired.error.message?.contains("without `since`") == true, "it says how to start over")
        }
    }
}
