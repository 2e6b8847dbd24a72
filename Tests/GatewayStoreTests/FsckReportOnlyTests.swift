import Foundation
import GatewayLibraryModel
import GatewayTestSupport
import Synchronization
import Testing

@testable import GatewayLibrary
@testable import GatewayStore

/// `fsck` without repair only looks: it reports what a crash left instead of fixing it behind
/// the user's back, and it never mistakes another process's mutation in flight for damage.
@Suite("fsck reports before it repairs")
struct FsckReportOnlyTests {
    @Test func anUnfinishedFilingIsReportedThenRepaired() async throws {
        let fixture = try await LibraryFixture()
        let row = try fixture.plantFiling(name: "Pending", recording: Fixtures.pdf("one-page.pdf"), staged: try fixtureBytes("one-page.pdf"))
        let debris = fixture.library.paths.filing + "/debris.pdf.partial"
        #expect(FileManager.default.createFile(atPath: debris, contents: Data("half".utf8)))
        let id = try #require(UUID(uuidString: row.id))

        let library = try await Library.open(root: fixture.root, reconciling: false)
        let found = try await library.fsck(repair: false, inspector: fixture.inspector)
        #expect(found.issues.map(\.kind) == [.unfinishedOperation, .leftover], "\(found.issues)")
        #expect(found.issues.allSatisfy { !$0.repaired })
        #expect(FileManager.default.fileExists(atPath: row.stagedPath!), "nothing was repaired")
        #expect(FileManager.default.fileExists(atPath: debris))
        await #expect(throws: LibraryError.self) { try await library.document(id: id, owner: "alice") }

        let repaired = try await library.fsck(repair: true, inspector: fixture.inspector)
        #expect(repaired.issues.map(\.kind) == [.unfinishedOperation, .leftover])
        #expect(repaired.issues.allSatisfy { $0.repaired })
        await #expect(try library.document(id: id, owner: "alice").relativePath == "alice/Pending.pdf")
        #expect(!FileManager.default.fileExists(atPath: debris))
        #expect(try await library.fsck(repair: false, inspector: fixture.inspector).issues.isEmpty)
    }

    /// Same size, different bytes: only the hash can tell, so `--quick` cannot.
    @Test func hashDriftAtUnchangedSizeIsReported() async throws {
        let fixture = try await LibraryFixture()
        let document = try await fixture.file(name: "Edited")
        let edited = try fixture.bytes(document.relativePath)
        let title = try #require(edited.firstRange(of: Data("One Page Fixture".utf8)))
        var changed = edited
        changed.replaceSubrange(title, with: Data("One Page Edited!".utf8))
        try changed.write(to: URL(fileURLWithPath: fixture.root + "/" + document.relativePath))

        let found = try await fixture.library.fsck(repair: false, inspector: fixture.inspector)
        #expect(found.issues.map(\.kind) == [.contentDrift], "\(found.issues)")
        #expect(found.issues.first?.detail.contains("\(edited.count) bytes") == true)
        #expect(try await fixture.library.fsck(repair: false, verifyHashes: false, inspector: fixture.inspector).issues.isEmpty)

        let repaired = try await fixture.library.fsck(repair: true, inspector: fixture.inspector)
        #expect(repaired.issues.map(\.repaired) == [true])
        await #expect(try fixture.library.document(id: document.id, owner: "alice").info.title == "One Page Edited!")
    }

    /// A report walks without the mutation lock first, so a mutation (a running server's) goes
    /// ahead during the walk instead of waiting for it; since that walk found something, fsck
    /// looks again holding the lock, and reports only the real finding, not the mutation.
    @Test(.timeLimit(.minutes(1)))
    func aWalkNeitherHoldsUpMutationsNorReportsThem() async throws {
        let fixture = try await LibraryFixture()
        try fixture.drop("one-page.pdf", at: "alice/Dropped.pdf")
        let inspector = GatedInspector()
        let walk = Task { try await fixture.library.fsck(repair: false, inspector: inspector) }
        await inspector.entered.wait()

        _ = try await fixture.library.createFolder(path: "During", owner: "alice")
        #expect(fixture.exists("alice/During"), "the mutation went ahead during the walk")
        inspector.released.open()
        let report = try await walk.value
        #expect(report.issues.map(\.path) == ["alice/Dropped.pdf"], "fsck reported none of the mutation")
        #expect(inspector.calls == 2, "the walk that found something was done again, under the lock")
    }
}

/// Holds an inspection (and so fsck, mid-walk) until released.
final class GatedInspector: PDFInspector {
    private let callCount = Mutex(0)
    /// Opened by the first inspection to start.
    let entered = Gate()
    /// Opened by the test to let inspections finish.
    let released = Gate()

    var calls: Int { callCount.withLock { $0 } }

    func inspect(path: String, thumbnail: ThumbnailRequest?) async throws -> PDFInfo {
        callCount.withLock { $0 += 1 }
        entered.open()
        await released.wait()
        return try await PdfinfoInspector().inspect(path: path)
    }
}
