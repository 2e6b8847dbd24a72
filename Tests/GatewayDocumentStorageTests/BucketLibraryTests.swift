import Foundation
import GatewayDocumentStorage
import GatewayLibrary
import GatewayLibraryModel
import GatewayTestSupport
import Testing

/// The library with its documents in a Ceph bucket: objects keyed by document and content,
/// renames and moves that touch only rows, reads through the cache, a second node with no
/// shared folder. What lands in the bucket is read back with boto3.
@Suite struct BucketLibraryTests {
    struct Listed: Decodable {
        var key: String
        var size: Int64
        var content_type: String?
        var metadata: [String: String]?
    }

    func listing(_ fixture: LibraryFixture) throws -> [Listed] {
        let objects = try #require(fixture.objects)
        let text = try TestS3.shared().peek(["list", objects.client.location.bucket, objects.client.location.prefix])
        return try text.split(separator: "\n").map { try JSONDecoder().decode(Listed.self, from: Data($0.utf8)) }
    }

    @Test(arguments: StoreBackend.allCases) func aFiledDocumentIsOneObjectThatRenamesAndMovesLeaveAlone(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend, bucket: true)
        let document = try await fixture.file("one-page.pdf", folder: .path("Bank"), name: "Statement")
        let objects = try #require(fixture.objects)

        var listed = try listing(fixture)
        #expect(listed.map(\.key) == [objects.key(id: document.id, sha256: document.sha256)])
        #expect(listed.first?.size == document.size)
        #expect(listed.first?.content_type == "application/pdf")
        #expect(listed.first?.metadata?["sha256"] == document.sha256)
        // Nothing of the owner's tree on the node's disk: the folder is a row.
        #expect(!fixture.exists("alice"))

        try await fixture.library.createFolder(path: "Archive/2026", owner: "alice")
        let moved = try await fixture.library.updateDocument(id: document.id, owner: "alice", name: "Renamed", folder: .path("Archive/2026"))
        #expect(moved.name == "Renamed")
        try await fixture.library.updateFolder(.path("Archive"), owner: "alice", name: "Old", parent: nil)
        listed = try listing(fixture)
        #expect(listed.map(\.key) == [objects.key(id: document.id, sha256: document.sha256)])
        #expect(!fixture.exists("alice"))

        // Read through the cache: the bytes boto3 reads from the bucket.
        let local = try await fixture.library.readableFile(of: moved)
        let fromBucket = fixture.directory.path + "/boto3.pdf"
        _ = try TestS3.shared().peek(["get", objects.client.location.bucket, listed[0].key, fromBucket])
        #expect(FileManager.default.contents(atPath: local) == FileManager.default.contents(atPath: fromBucket))
        #expect(FileManager.default.contents(atPath: local) == FileManager.default.contents(atPath: Fixtures.pdf("one-page.pdf")))
    }

    @Test func newContentIsANewObjectAndTheOldOneWaitsForTheJanitor() async throws {
        let fixture = try await LibraryFixture(.sqlite, bucket: true)
        let document = try await fixture.file("one-page.pdf")
        let replacement = fixture.directory.path + "/replacement.pdf"
        try FileManager.default.copyItem(atPath: Fixtures.pdf("many-pages.pdf"), toPath: replacement)
        let info = try await fixture.inspector.inspect(path: replacement)
        let replaced = try await fixture.library.replaceDocumentContent(id: document.id, owner: "alice", with: replacement, info: info)
        #expect(replaced.sha256 != document.sha256)
        #expect(!FileManager.default.fileExists(atPath: replacement))
        let objects = try #require(fixture.objects)
        #expect(
            Set(try listing(fixture).map(\.key)) == [
                objects.key(id: document.id, sha256: document.sha256), objects.key(id: document.id, sha256: replaced.sha256),
            ]
        )
        let local = try await fixture.library.readableFile(of: replaced)
        #expect(FileManager.default.contents(atPath: local) == FileManager.default.contents(atPath: Fixtures.pdf("many-pages.pdf")))

        // Deleting takes the row; the object outlives it for a download in flight.
        try await fixture.library.deleteDocument(id: document.id, owner: "alice")
        await #expect(throws: LibraryError.self) { try await fixture.library.document(id: document.id, owner: "alice") }
        // A folder tree is rows only: created, then deleted with what is in it.
        let inFolder = try await fixture.file("one-page.pdf", folder: .path("Tax/2025"))
        try await fixture.library.deleteFolder(.path("Tax"), owner: "alice", recursive: true)
        await #expect(throws: LibraryError.self) { try await fixture.library.document(id: inFolder.id, owner: "alice") }
        #expect(!fixture.exists("alice"))
    }

    @Test func aSecondNodeWithItsOwnFolderReadsWhatTheFirstFiled() async throws {
        let fixture = try await LibraryFixture(.postgres, bucket: true)
        let document = try await fixture.file("many-pages.pdf", folder: .path("Shared"))
        let otherRoot = fixture.directory.path + "/node-b"
        let nodeB = try await fixture.reopen(root: otherRoot)
        let seen = try await nodeB.document(id: document.id, owner: "alice")
        let local = try await nodeB.readableFile(of: seen)
        #expect(local.hasPrefix(otherRoot))
        #expect(FileManager.default.contents(atPath: local) == FileManager.default.contents(atPath: Fixtures.pdf("many-pages.pdf")))
        // Node B renames; node A sees the new name and reads the same object.
        try await nodeB.updateDocument(id: document.id, owner: "alice", name: "From B")
        let renamed = try await fixture.library.document(id: document.id, owner: "alice")
        #expect(renamed.name == "From B")
        #expect(try listing(fixture).count == 1)
    }
}
