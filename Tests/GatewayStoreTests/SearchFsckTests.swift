import Foundation
import GatewayStore
import GatewayTestSupport
import Testing

/// `fsck` reports and repairs the search index beside the tree: an entry missing, stale or
/// orphaned, as a change the catalog missed would leave it.
@Suite("fsck and the search index")
struct SearchFsckTests {
    @Test(arguments: SearchIndexBackend.allCases)
    func reportsAndRepairsMissingStaleAndOrphanEntries(_ backend: SearchIndexBackend) async throws {
        let search = try await backend.make()
        let fixture = search.library
        let kept = try await search.file("Kept", pages: ["the annual budget"])
        let lost = try await search.file("Lost", pages: ["minutes of the meeting"])
        let renamed = try await search.file("Renamed", pages: ["travel expenses"])
        #expect(try await fixture.library.fsck(repair: false, inspector: fixture.inspector).issues.isEmpty, "a fresh index is clean")

        try await search.index.delete(documentIDs: [lost.id.lowercased])
        try await search.index.rename(documentID: renamed.id.lowercased, name: "Old name", title: nil)
        let ghost = UUID().uuidString.lowercased()
        var orphan = search.entry(for: kept, content: .pending)
        orphan.documentID = ghost
        try await search.index.write(orphan)

        let report = try await fixture.library.fsck(repair: false, inspector: fixture.inspector)
        let kinds = Dictionary(report.issues.map { ($0.path, $0.kind) }, uniquingKeysWith: { first, _ in first })
        #expect(kinds["alice/Lost.pdf"] == .indexMissing, "\(report.issues)")
        #expect(kinds["alice/Renamed.pdf"] == .indexStale, "\(report.issues)")
        #expect(kinds["(document \(ghost))"] == .indexOrphan, "\(report.issues)")
        #expect(report.issues.count == 3 && report.issues.allSatisfy { !$0.repaired && !$0.detail.isEmpty })
        #expect(try await search.names("annual") == ["Kept"], "a report changes nothing")

        let repaired = try await fixture.library.fsck(repair: true, inspector: fixture.inspector)
        #expect(repaired.issues.count == 3 && repaired.issues.allSatisfy(\.repaired))
        #expect(try await fixture.library.fsck(repair: false, inspector: fixture.inspector).issues.isEmpty)
        #expect(try await search.names("Renamed") == ["Renamed"], "the stale entry follows the row again")
        #expect(try await search.index.status(owner: nil).pending == 1, "the missing entry waits for its text")
    }
}
