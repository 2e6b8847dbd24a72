import Foundation
import GatewayLibrary
import GatewayProcess
import GatewayStore
import GatewayTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Crash consistency")
struct CrashConsistencyTests {
    /// Starts `library-churn`, lets it mutate for a random while, SIGKILLs it, then reopens the
    /// library, reconciles and requires fsck to find nothing, many times over. A kill between
    /// two mutations would prove nothing, so the test also requires that some kills landed
    /// inside one: reconciling found something to finish or undo.
    @Test(.timeLimit(.minutes(5)))
    func killNineAtRandomInstantsLeavesNothingToRepair() async throws {
        let directory = TemporaryDirectory("crash")
        let store = directory.path + "/store"
        let churn = builtProduct("library-churn")
        #expect(FileManager.default.isExecutableFile(atPath: churn), "build the package first: \(churn)")
        var generator = SystemRandomNumberGenerator()
        var interruptedRounds = 0
        var documentsSeen = 0

        for round in 0..<40 {
            // Swift's crash handler would attach to a churn that died of an error and keep it
            // from being reaped: such a death must show up as a failure here, not a hang.
            guard let (reading, writing) = socketPair() else { throw ChildFailure(description: "no pipe for the churn's output") }
            let process = try Child(
                churn,
                [store, String(UInt64.random(in: 1...UInt64.max, using: &generator)), Fixtures.pdf("one-page.pdf")],
                environment: ["SWIFT_BACKTRACE": "enable=no"],
                stdout: .descriptor(writing)
            )
            close(writing)
            // Wait until it has opened the library, then kill it somewhere in the next 0–150 ms.
            // (The blocking read goes to a thread: tests share a cooperative pool of 2.)
            let reader = FileHandle(fileDescriptor: reading, closeOnDealloc: true)
            _ = try await onThread { reader.availableData }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...150_000, using: &generator)))
            let ending = await process.kill()
            #expect(ending == .signaled(SIGKILL), "round \(round): churn ended by itself: \(ending.description)")

            let library = try await Library.open(root: store, reconciling: false)
            let actions = try await library.reconcile()
            if !actions.isEmpty { interruptedRounds += 1 }
            await #expect(try library.reconcile().isEmpty, "round \(round): one pass finishes everything")
            let report = try await library.fsck(repair: false, inspector: PdfinfoInspector())
            #expect(report.issues.isEmpty, "round \(round) after \(actions): \(report.issues)")
            documentsSeen = max(documentsSeen, report.documentsChecked)
            #expect(try FileManager.default.contentsOfDirectory(atPath: library.paths.filing).isEmpty, "no leftovers survive")
        }
        #expect(documentsSeen > 0, "the churn really filed documents")
        #expect(interruptedRounds > 0, "no kill landed inside a mutation; the run proved nothing")
    }
}
