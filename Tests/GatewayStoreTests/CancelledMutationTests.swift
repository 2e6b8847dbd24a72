import Foundation
import GatewayStore
import GatewayTestSupport
import Testing

/// A library mutation, once asked, runs to its end even when the asking task is cancelled (a
/// client that hangs up mid-request): both stores stop a cancelled task's statements, and a
/// rename stopped between its row and its file would be left for recovery.
@Suite("Library mutations asked by a cancelled task")
struct CancelledMutationTests {
    @Test(arguments: StoreBackend.allCases)
    func aMoveAskedByACancelledTaskRunsToItsEnd(_ backend: StoreBackend) async throws {
        let fixture = try await LibraryFixture(backend)
        let document = try await fixture.file(name: "Report")
        let library = fixture.library
        try await library.createFolder(path: "Moved", owner: "alice")
        let asked = Task {
            withUnsafeCurrentTask { $0?.cancel() }  // cancelled before it asks
            return try await library.updateDocument(id: document.id, owner: "alice", name: "Renamed", folder: .path("Moved"))
        }
        let moved = try await asked.value
        #expect(moved.name == "Renamed" && moved.folderPath == "Moved")
        #expect(fixture.exists("alice/Moved/Renamed.pdf") && !fixture.exists("alice/Report.pdf"))
        let report = try await library.fsck(repair: false, inspector: fixture.inspector)
        #expect(report.issues.isEmpty, "nothing left half done: \(report.issues)")
    }
}
