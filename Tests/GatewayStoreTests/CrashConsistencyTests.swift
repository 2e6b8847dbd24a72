import Foundation
import GatewayLibrary
import GatewayStore
import GatewayTestSupport
import Glibc
import Testing

#if canImport(Glibc)
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
            let process = Process()
            process.executableURL = URL(fileURLWithPath: churn)
            process.arguments = [store, String(UInt64.random(in: 1...UInt64.max, using: &generator)), Fixtures.pdf("one-page.pdf")]
            // Swift's crash handler would attach to a churn that died of an error and keep it
            // from being reaped: such a death must show up as a failure here, not a hang.
            process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            // Wait until it has opened the library, then kill it somewhere in the next 0–150 ms.
            // (Blocking reads and waits go to a thread: tests share a cooperative pool of 2.)
            let reader = output.fileHandleForReading
            _ = try await onThread { reader.availableData }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...150_000, using: &generator)))
            kill(process.processIdentifier, SIGKILL)
            try await onThread { process.waitUntilExit() }
            #expect(process.terminationReason == .uncaughtSignal, "round \(round): churn exited by itself: \(process.terminationStatus)")

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
