import Foundation
import Testing

@testable import GatewaySandbox

@Suite("Sandbox watchdog: reading /proc")
struct SandboxWatchdogTests {
    /// A command name may hold spaces and parentheses; the fields after it are read as numbers.
    @Test func aStatLineIsReadAfterItsCommandName() {
        let line = Array("4242 (a (b) c) S 1 4240 4240 0 -1 4194560 10 0 0 0 250 50 7 3 20 0 1 0\n".utf8)
        let close = line.lastIndex(of: UInt8(ascii: ")"))!
        let fields = SandboxWatchdog.numbers(line[(close + 1)...], count: 15)
        #expect(fields.count == 15)
        #expect(fields[0] == nil)  // the state, S
        #expect(fields[2] == 4240)  // the process group
        #expect(fields[5] == nil)  // tpgid -1: never a count
        #expect(Array(fields[11...]) == [250, 50, 7, 3])
        #expect(SandboxWatchdog.numbers(Array("12 3\n".utf8)[...], count: 3) == [12, 3, nil])
    }

    /// This test process's own group: the scan finds it, with CPU time and private memory.
    @Test func aScanMeasuresAGroup() {
        let group = getpgrp()
        let usage = SandboxWatchdog.usage(of: [group])[group]
        #expect((usage?.processes ?? 0) >= 1)
        #expect((usage?.cpuSeconds ?? 0) > 0)
        #expect((usage?.memoryBytes ?? 0) > 1 << 20)
        #expect(SandboxWatchdog.usage(of: [-7]).isEmpty)
    }
}
