import Foundation
import GatewayCore
import Testing

/// The gateway's threads of its own carry their names from their first instruction, every time:
/// each of 256 threads started at once reads its own `comm` from inside its body. (Named the way
/// they were before, with Foundation's `Thread.name` from inside, some of the 256 ran under a
/// pool thread's name in every one of 10 runs.)
@Suite("Named threads")
struct NamedThreadTests {
    @Test func everyThreadHasItsNameBeforeItsBodyRuns() async {
        let names = (0..<256).map { "pdfgate-test-\($0 % 10)" }
        let seen = await withTaskGroup(of: (String, String).self) { group in
            for name in names {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        startThread(named: name) { continuation.resume(returning: (name, ownName())) }
                    }
                }
            }
            return await group.reduce(into: [(String, String)]()) { $0.append($1) }
        }
        #expect(seen.count == names.count)
        let wrong = seen.filter { $0.0 != $0.1 }
        #expect(wrong.isEmpty, "\(wrong.count) of \(seen.count) threads ran under another name: \(wrong.prefix(3))")
    }
}

/// The calling thread's name as the kernel has it.
private func ownName() -> String {
    ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .newlines)
}
