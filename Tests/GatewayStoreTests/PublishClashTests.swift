import Foundation
import GatewayLibraryModel
import GatewayTestSupport
import Testing

@testable import GatewayLibrary
@testable import GatewayStore

/// A file can appear at a document's name between the free-name check and the rename that
/// publishes it (someone drops it in by hand). These set up that instant: a `filing` row, its
/// bytes staged, a stranger's file at the target. Nothing may be overwritten, and a user's own
/// file, taken in by `add --move`, may never be deleted.
@Suite("Name clashes while publishing")
struct PublishClashTests {
    /// A move of `incoming.pdf` caught right before publishing: the source already renamed into
    /// staging, a stranger's file at `alice/Clash.pdf`.
    func moveCaughtByAClash(_ fixture: LibraryFixture) throws -> (row: DocumentRecord, source: String) {
        let source = fixture.directory.file("incoming.pdf")
        try FileManager.default.copyItem(atPath: Fixtures.pdf("one-page.pdf"), toPath: source)
        let row = try fixture.plantFiling(name: "Clash", recording: source, staged: nil)
        try FileManager.default.moveItem(atPath: source, toPath: row.stagedPath!)
        try fixture.drop("many-pages.pdf", at: "alice/Clash.pdf")
        return (row, source)
    }

    func expectStrangerUntouched(_ fixture: LibraryFixture) throws {
        #expect(try fixture.bytes("alice/Clash.pdf") == (try fixtureBytes("many-pages.pdf")))
    }

    @Test func aMovedSourceGoesBackWhenTheClashFails() async throws {
        let fixture = try await LibraryFixture()
        let (row, source) = try moveCaughtByAClash(fixture)
        do {
            _ = try await fixture.library.publish(row, folderPath: "", staged: .moved(from: source), conflict: .fail)
            Issue.record("a clash with conflict .fail must throw")
        } catch let error as LibraryError {
            #expect(error.kind == .nameConflict)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: source)) == (try fixtureBytes("one-page.pdf")), "the user's file is back")
        await #expect(try fixture.library.embeddedDatabase().pool.read { db in try DocumentRecord.fetchCount(db) } == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.library.paths.filing).isEmpty)
        try expectStrangerUntouched(fixture)
    }

    @Test func aMovedSourceIsFiledUnderTheNextNameWhenRenamingIsAllowed() async throws {
        let fixture = try await LibraryFixture()
        let (row, source) = try moveCaughtByAClash(fixture)
        let filed = try await fixture.library.publish(row, folderPath: "", staged: .moved(from: source), conflict: .rename)
        #expect(filed.record.name == "Clash 01" && filed.record.state == .ready)
        #expect(try fixture.bytes("alice/Clash 01.pdf") == (try fixtureBytes("one-page.pdf")))
        #expect(!FileManager.default.fileExists(atPath: source))
        try expectStrangerUntouched(fixture)
    }

    /// Giving the file back is impossible when its old place has been taken too: it is filed
    /// under a free name instead, never deleted.
    @Test func aMovedSourceWithNowhereToGoBackIsKept() async throws {
        let fixture = try await LibraryFixture()
        let (row, source) = try moveCaughtByAClash(fixture)
        #expect(FileManager.default.createFile(atPath: source, contents: Data("someone else's".utf8)))
        let filed = try await fixture.library.publish(row, folderPath: "", staged: .moved(from: source), conflict: .fail)
        #expect(filed.record.name == "Clash 01")
        #expect(try fixture.bytes("alice/Clash 01.pdf") == (try fixtureBytes("one-page.pdf")))
        try expectStrangerUntouched(fixture)
    }

    /// The library's own copy is simply dropped: the user still has the source.
    @Test func aCopyIsDroppedWhenTheClashFails() async throws {
        let fixture = try await LibraryFixture()
        let row = try fixture.plantFiling(name: "Clash", recording: Fixtures.pdf("one-page.pdf"), staged: try fixtureBytes("one-page.pdf"))
        try fixture.drop("many-pages.pdf", at: "alice/Clash.pdf")
        await #expect(throws: LibraryError.self) { try await fixture.library.publish(row, folderPath: "", staged: .copy, conflict: .fail) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.library.paths.filing).isEmpty)
        await #expect(try fixture.library.embeddedDatabase().pool.read { db in try DocumentRecord.fetchCount(db) } == 0)
        try expectStrangerUntouched(fixture)
    }

    /// `add --move` from another file system: copied under a temporary name, renamed in, and
    /// the source removed only once filed.
    @Test(.enabled(if: FileManager.default.isWritableFile(atPath: "/dev/shm")))
    func aMoveAcrossFileSystemsCopiesThenRemovesTheSource() async throws {
        let fixture = try await LibraryFixture()
        let source = "/dev/shm/pdfgate-move-\(UUID().uuidString).pdf"
        try FileManager.default.copyItem(atPath: Fixtures.pdf("one-page.pdf"), toPath: source)
        defer { try? FileManager.default.removeItem(atPath: source) }
        let info = try await fixture.inspector.inspect(path: source)
        let document = try await fixture.library.file(source, mode: .move, owner: "alice", name: "Across", info: info)
        #expect(try fixture.bytes(document.relativePath) == (try fixtureBytes("one-page.pdf")))
        #expect(!FileManager.default.fileExists(atPath: source))
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.library.paths.filing).isEmpty)
    }
}
