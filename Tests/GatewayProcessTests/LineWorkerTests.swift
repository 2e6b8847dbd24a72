import Foundation
import GatewayProcess
import GatewayTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Line workers with real processes: a shell that answers each line, one that never answers,
/// one that dies.
@Suite(.timeLimit(.minutes(1))) struct LineWorkerTests {
    /// Answers "ok <line>" to each line; "die" makes it exit 3 without answering.
    static let echo = #"while read -r line; do [ "$line" = die ] && exit 3; echo "ok $line"; done"#

    static func start(_ script: String = echo) async throws -> LineWorker {
        try await LineWorker.start { socket in
            ChildSpec(
                executable: "/bin/sh",
                arguments: ["-c", script],
                environment: ["PATH": "/usr/bin:/bin"],
                stdin: .descriptor(socket),
                stdout: .descriptor(socket)
            )
        }
    }

    @Test func eachLineGetsItsAnswer() async throws {
        let worker = try await Self.start()
        for index in 0..<20 {
            let reply = await worker.exchange(Array("request \(index)\n".utf8), until: .now + .seconds(10))
            #expect(reply == .line(Array("ok request \(index)".utf8)))
        }
        #expect(worker.isIdleHealthy)
        let status = await worker.end(saying: nil, grace: .seconds(5))
        #expect(ChildTermination(waitStatus: status) == .exited(0), "closing its input ends the worker on its own")
    }

    @Test func theDeadlinePassesWithoutAnAnswer() async throws {
        let worker = try await Self.start("sleep 60")
        let start = ContinuousClock.now
        let reply = await worker.exchange(Array("anything\n".utf8), until: .now + .milliseconds(300))
        #expect(reply == .timedOut)
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(ChildTermination(waitStatus: await worker.terminate()) == .signaled(SIGKILL))
    }

    @Test func aWorkerThatDiesMidRequestIsSeenToDie() async throws {
        let worker = try await Self.start()
        let reply = await worker.exchange(Array("die\n".utf8), until: .now + .seconds(10))
        #expect(reply == .closed)
        #expect(!worker.isIdleHealthy)
        #expect(ChildTermination(waitStatus: await worker.terminate()) == .exited(3))
    }

    /// A helper the worker left behind holds the socket open: its leader's exit ends the wait.
    @Test func theLeadersExitEndsTheWaitWhenAHelperHoldsTheSocket() async throws {
        let worker = try await Self.start("sleep 60 & exit 5")
        let start = ContinuousClock.now
        let reply = await worker.readLine(until: .now + .seconds(20))
        #expect(reply == .closed)
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(ChildTermination(waitStatus: await worker.terminate()) == .exited(5))
    }

    /// A line the worker writes before anyone asks (a "ready" line) waits for the reader.
    @Test func aLineSentUnaskedIsReadLater() async throws {
        let written = try scratchDirectory() + "/written"
        let worker = try await Self.start("echo ready; touch \(written); " + Self.echo)
        try await eventually("the worker wrote its line unasked") { FileManager.default.fileExists(atPath: written) }
        #expect(await worker.readLine(until: .now + .seconds(10)) == .line(Array("ready".utf8)))
        #expect(await worker.exchange(Array("next\n".utf8), until: .now + .seconds(10)) == .line(Array("ok next".utf8)))
        await worker.terminate()
    }

    /// A worker killed while idle is noticed before the next request, and a fresh one serves it.
    @Test func aCrashedWorkerIsReplaced() async throws {
        let slot = EchoSlot()
        #expect(await slot.ask("one") == "ok one")
        let first = try #require(slot.pid)
        kill(first, SIGKILL)
        try await eventually("the slot notices its worker died", within: .seconds(2)) { !slot.isHealthy }
        #expect(await slot.ask("two") == "ok two")
        #expect(slot.pid != first)
        #expect(slot.starts == 2)
        await slot.end()
    }
}

/// A slot as the converters' and the inspector's are, boiled down: one worker, replaced when it
/// is found dead.
final class EchoSlot: Sendable {
    private let state = Mutex<(worker: LineWorker?, starts: Int)>((nil, 0))

    var pid: pid_t? { state.withLock { $0.worker?.group.id } }
    var starts: Int { state.withLock { $0.starts } }
    var isHealthy: Bool { state.withLock { $0.worker?.isIdleHealthy ?? false } }

    func ask(_ text: String) async -> String? {
        var worker = state.withLock { $0.worker }
        if let current = worker, !current.isIdleHealthy {
            await current.terminate()
            worker = nil
        }
        if worker == nil {
            worker = try? await LineWorkerTests.start()
            state.withLock {
                $0.worker = worker
                $0.starts += 1
            }
        }
        guard case .line(let line) = await worker?.exchange(Array("\(text)\n".utf8), until: .now + .seconds(10)) else { return nil }
        return String(decoding: line, as: UTF8.self)
    }

    func end() async {
        await state.withLock { $0.worker }?.terminate()
    }
}
