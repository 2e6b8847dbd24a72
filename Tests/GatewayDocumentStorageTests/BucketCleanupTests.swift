import Foundation
import GatewayDocumentStorage
import GatewayLibrary
import GatewayLibraryModel
import GatewayTestSupport
import Testing

/// What leaves the bucket and when: the janitor after the grace period, fsck's view of the
/// bucket against the rows. The bucket is read and changed behind the library's back with boto3.
@Suite struct BucketCleanupTests {
    func keys(_ fixture: LibraryFixture) throws -> Set<String> {
        let objects = try #require(fixture.objects)
        let text = try TestS3.shared().peek(["list", objects.client.location.bucket, objects.client.location.prefix])
        return Set(
            text.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["key"] as? String
            }
        )
    }

    @Test func theJanitorRemovesADeletedDocumentsObjectOnlyAfterAWholeGracePeriod() async throws {
        let fixture = try await LibraryFixture(.sqlite, bucket: true, grace: .seconds(60))
        let objects = try #require(fixture.objects)
        let kept = try await fixture.file("one-page.pdf", name: "Kept")
        let doomed = try await fixture.file("many-pages.pdf", name: "Doomed")
        let janitor = ObjectJanitor(library: fixture.library)
        try await fixture.library.deleteDocument(id: doomed.id, owner: "alice")

        // The object's own age is not enough: the janitor counts from when it first saw it unnamed.
        let start = Date().addingTimeInterval(120)
        #expect(try await janitor.sweep(now: start).isEmpty)
        #expect(try await janitor.sweep(now: start.addingTimeInterval(30)).isEmpty)
        #expect(try keys(fixture).contains(objects.key(id: doomed.id, sha256: doomed.sha256)))
        let removed = try await janitor.sweep(now: start.addingTimeInterval(61))
        #expect(removed.map(\.key) == [objects.key(id: doomed.id, sha256: doomed.sha256)])
        #expect(try keys(fixture) == [objects.key(id: kept.id, sha256: kept.sha256)])
    }

    @Test func fsckComparesTheRowsWithTheBucketAndRepairsWhatItCan() async throws {
        let fixture = try await LibraryFixture(.postgres, bucket: true, grace: .zero)
        let objects = try #require(fixture.objects)
        let bucket = objects.client.location.bucket
        let server = try TestS3.shared()
        let kept = try await fixture.file("one-page.pdf", folder: .path("Bank"), name: "Kept")
        let lost = try await fixture.file("many-pages.pdf", name: "Lost")
        try await fixture.library.updateDocument(id: kept.id, owner: "alice", name: "Kept renamed")
        var report = try await fixture.library.fsck(repair: false, inspector: fixture.inspector)
        #expect(report.issues.isEmpty, "\(report.issues)")
        #expect(report.documentsChecked == 2)

        // Damage done with another client: an object gone, one no row names, one of another layout.
        _ = try server.peek(["delete", bucket, objects.key(id: lost.id, sha256: lost.sha256)])
        let orphan = objects.key(id: UUID(), sha256: String(repeating: "0", count: 64))
        _ = try server.peek(["put", bucket, orphan, Fixtures.pdf("one-page.pdf")])
        let foreign = objects.client.location.key("documents/notes.txt")
        _ = try server.peek(["put", bucket, foreign, Fixtures.pdf("one-page.pdf")])

        report = try await fixture.library.fsck(repair: false, inspector: fixture.inspector)
        #expect(Set(report.issues.map(\.kind)) == [.missingFile, .orphanObject, .foreignFile], "\(report.issues)")
        #expect(report.issues.first { $0.kind == .orphanObject }?.path == orphan)
        report = try await fixture.library.fsck(repair: true, inspector: fixture.inspector)
        #expect(report.issues.filter { $0.kind != .foreignFile }.allSatisfy { $0.repaired })
        #expect(try keys(fixture) == [objects.key(id: kept.id, sha256: kept.sha256), foreign])
        await #expect(throws: LibraryError.self) { try await fixture.library.document(id: lost.id, owner: "alice") }
        _ = try server.peek(["delete", bucket, foreign])
        report = try await fixture.library.fsck(repair: false, inspector: fixture.inspector)
        #expect(report.issues.isEmpty, "\(report.issues)")
        #expect(report.documentsChecked == 1)
    }
}
