import Foundation
import GatewayLibraryModel
import GatewayTestSupport
import Testing

@testable import GatewayLibrary
@testable import GatewayStore

/// What the reconciler decides for a filing a crash interrupted, set up row by row the way a
/// kill at the worst instant leaves it.
@Suite("Recovering interrupted filings")
struct FilingRecoveryTests {
    /// A kill in the middle of a cross-file-system copy by a build that copied in place: the
    /// staged file holds half the source. It must not be published as a ready document.
    @Test func aHalfCopiedStagedFileIsDroppedNotPublished() async throws {
        let fixture = try await LibraryFixture()
        let whole = try fixtureBytes("many-pages.pdf")
        let row = try fixture.plantFiling(name: "Half", recording: Fixtures.pdf("many-pages.pdf"), staged: whole.prefix(whole.count / 2))

        let reopened = try await Library.open(root: fixture.root)
        await #expect(throws: LibraryError.self) { try await reopened.document(id: UUID(uuidString: row.id)!, owner: "alice") }
        #expect(!fixture.exists("alice/Half.pdf"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: reopened.paths.filing).isEmpty)
        let report = try await reopened.fsck(repair: false, inspector: fixture.inspector)
        #expect(report.issues.isEmpty, "\(report.issues)")
    }

    /// What a kill mid-copy leaves now: the copy still under its temporary name. The row goes,
    /// the debris is swept, and the source was never touched.
    @Test func aCopyKilledUnderItsTemporaryNameIsSwept() async throws {
        let fixture = try await LibraryFixture()
        let whole = try fixtureBytes("many-pages.pdf")
        let row = try fixture.plantFiling(name: "Partial", recording: Fixtures.pdf("many-pages.pdf"), staged: nil)
        #expect(FileManager.default.createFile(atPath: row.stagedPath! + ".partial", contents: whole.prefix(1000)))

        let reopened = try await Library.open(root: fixture.root)
        await #expect(throws: LibraryError.self) { try await reopened.document(id: UUID(uuidString: row.id)!, owner: "alice") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: reopened.paths.filing).isEmpty)
    }

    /// The staged bytes may be a user's own file (a move renames it in): when a stranger's file
    /// has taken the name, recovery files it under the next free name rather than deleting it.
    @Test func aStagedFileThatClashesIsFiledUnderTheNextFreeName() async throws {
        let fixture = try await LibraryFixture()
        let row = try fixture.plantFiling(name: "Clash", recording: Fixtures.pdf("one-page.pdf"), staged: try fixtureBytes("one-page.pdf"))
        try fixture.drop("many-pages.pdf", at: "alice/Clash.pdf")

        let reopened = try await Library.open(root: fixture.root)
        let document = try await reopened.document(id: UUID(uuidString: row.id)!, owner: "alice")
        #expect(document.name == "Clash 01")
        #expect(try fixture.bytes(document.relativePath) == (try fixtureBytes("one-page.pdf")))
        #expect(try fixture.bytes("alice/Clash.pdf") == (try fixtureBytes("many-pages.pdf")), "the stranger's file is untouched")
    }

    /// Staged file gone and a file at the target: only ours if its bytes are the ones recorded.
    /// A stranger's file there (a move that gave its source back when it found the name taken,
    /// then died) must not become this document.
    @Test func aStrangersFileAtTheTargetIsNotClaimed() async throws {
        let fixture = try await LibraryFixture()
        let row = try fixture.plantFiling(name: "Taken", recording: Fixtures.pdf("one-page.pdf"), staged: nil)
        try fixture.drop("many-pages.pdf", at: "alice/Taken.pdf")

        let reopened = try await Library.open(root: fixture.root)
        await #expect(throws: LibraryError.self) { try await reopened.document(id: UUID(uuidString: row.id)!, owner: "alice") }
        #expect(try fixture.bytes("alice/Taken.pdf") == (try fixtureBytes("many-pages.pdf")))
        let report = try await reopened.fsck(repair: false, inspector: fixture.inspector)
        #expect(report.issues.map(\.kind) == [.untrackedFile], "\(report.issues)")
    }

    /// The usual case of the same shape: the rename into the tree happened, the ready mark did not.
    @Test func ourOwnFileAtTheTargetIsClaimed() async throws {
        let fixture = try await LibraryFixture()
        let row = try fixture.plantFiling(name: "Ours", recording: Fixtures.pdf("one-page.pdf"), staged: nil)
        try fixture.drop("one-page.pdf", at: "alice/Ours.pdf")

        let reopened = try await Library.open(root: fixture.root)
        await #expect(try reopened.document(id: UUID(uuidString: row.id)!, owner: "alice").relativePath == "alice/Ours.pdf")
        let report = try await reopened.fsck(repair: false, inspector: fixture.inspector)
        #expect(report.issues.isEmpty, "\(report.issues)")
    }
}
