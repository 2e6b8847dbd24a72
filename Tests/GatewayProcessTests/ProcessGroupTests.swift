import Foundation
import GatewayProcess
import GatewayTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Process groups with real processes: the whole group dies, deadlines and cancellation kill it,
/// and waiting for exits holds no thread per child.
@Suite(.timeLimit(.minutes(1))) struct ProcessGroupTests {
    @Test func killingTheGroupReachesGrandchildren() async throws {
        let directory = try scratchDirectory()
        let pidFile = directory + "/grandchild.pid"
        // The shell starts a grandchild and waits for it; only the group kill can end both.
        let group = try ProcessGroup.start(shell("sleep 60 & echo $! > \(pidFile); wait"))
        let grandchild = try await waitForPID(in: pidFile)
        #expect(kill(grandchild, 0) == 0, "the grandchild runs")
        #expect(group.isRunning)

        group.stop(.shutdown)
        let status = await group.killAndReap()
        #expect(ChildTermination(waitStatus: status) == .signaled(SIGKILL))
        #expect(group.stopReason == .shutdown)
        #expect(!group.isRunning)
        // Reparented and reaped by init once dead: the pid then names no process.
        try await eventually("the grandchild goes with its group", within: .seconds(2)) { kill(grandchild, 0) == -1 }
    }

    @Test func theDeadlineKillsTheGroup() async throws {
        let group = try ProcessGroup.start(shell("sleep 60"))
        let start = ContinuousClock.now
        let status = await group.finish(by: .now + .milliseconds(300))
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(group.stopReason == .deadline)
        #expect(ChildTermination(waitStatus: status) == .signaled(SIGKILL))
    }

    @Test func cancellationKillsTheGroup() async throws {
        let group = try ProcessGroup.start(shell("sleep 60"))
        let finishing = Task { await group.finish(by: .now + .seconds(60)) }
        // Nothing marks `finish` as waiting; given a moment to get there, the group must run on.
        try await keepsHolding("the group runs while finish waits", for: .milliseconds(200)) { group.isRunning }
        let start = ContinuousClock.now
        finishing.cancel()
        let status = await finishing.value
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(group.stopReason == .cancellation)
        #expect(ChildTermination(waitStatus: status) == .signaled(SIGKILL))
    }

    @Test func aChildThatEndsOnItsOwnReportsItsStatus() async throws {
        let group = try ProcessGroup.start(shell("exit 7"))
        let status = await group.finish(by: .now + .seconds(30))
        #expect(group.stopReason == nil)
        #expect(ChildTermination(waitStatus: status) == .exited(7))
    }

    /// A hundred children waited for at once: one monitor thread between them, and each wait
    /// ends when its own child does.
    @Test func manyChildrenAreWaitedForTogether() async throws {
        let groups = try (0..<100).map { index in try ProcessGroup.start(shell("sleep 0.\(index % 5 + 1); exit \(index % 7)")) }
        let start = ContinuousClock.now
        let statuses = await withTaskGroup(of: (Int, Int32).self) { waits in
            for (index, group) in groups.enumerated() {
                waits.addTask { (index, await group.finish(by: .now + .seconds(30))) }
            }
            return await waits.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(ContinuousClock.now - start < .seconds(10))
        for index in 0..<100 {
            #expect(statuses[index].map(ChildTermination.init(waitStatus:)) == .exited(Int32(index % 7)))
        }
    }

    @Test func aMissingExecutableIsASpawnFailure() {
        #expect(throws: SpawnFailure.self) {
            try ProcessGroup.start(ChildSpec(executable: "/nonexistent/tool", arguments: [], environment: [:]))
        }
    }
}

func shell(_ script: String) -> ChildSpec {
    ChildSpec(executable: "/bin/sh", arguments: ["-c", script], environment: ["PATH": "/usr/bin:/bin"])
}

func scratchDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.path + "/pdfgate-process-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func waitForPID(in file: String) async throws -> pid_t {
    try await until("a pid in \(file)", within: .seconds(2)) {
        (try? String(contentsOfFile: file, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}
