import Foundation
import GatewayCore
import GatewayProcess
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Measures the processes of each running conversion and stops one that goes past its
/// `ResourceLimits` with the limit as the group's stop reason, so the job fails with
/// `resource_limit` naming it.
///
/// It reads /proc: every process of a converter stays in the process group we started it in
/// (nothing in the sandbox calls `setsid`), so one scan every `interval` serves every sandbox.
/// Memory is private resident memory (what a document makes a tool allocate, not the shared
/// libraries every Chromium process maps); CPU time includes reaped children's (`cutime`), so
/// short-lived helpers are counted too. rlimits inside the sandbox are the backstop for what
/// grows faster than one interval.
package final class SandboxWatchdog: Sendable {
    package static let shared = SandboxWatchdog()
    static let interval: Duration = .milliseconds(200)

    /// One conversion being watched.
    package final class Watch: Sendable {
        let group: ProcessGroup
        let limits: ResourceLimits
        /// CPU time the group had used before this conversion (a warm tool's earlier ones).
        let cpuBaseline: Double

        fileprivate init(group: ProcessGroup, limits: ResourceLimits, cpuBaseline: Double) {
            self.group = group
            self.limits = limits
            self.cpuBaseline = cpuBaseline
        }

        /// Stops the group at the first limit passed; the group's stop reason then names it
        /// (a later call changes nothing: the first reason recorded wins).
        fileprivate func check(_ usage: Usage) {
            if usage.memoryBytes > limits.memoryBytes {
                group.stop(.limit(.memory))
            } else if usage.cpuSeconds - cpuBaseline > Double(limits.cpuSeconds) {
                group.stop(.limit(.cpu))
            } else if usage.processes > limits.processes {
                group.stop(.limit(.processes))
            }
        }
    }

    /// What one process group uses right now.
    struct Usage: Sendable {
        var memoryBytes = 0
        var cpuSeconds = 0.0
        var processes = 0
    }

    private struct State {
        var watches: [ObjectIdentifier: Watch] = [:]
        var scanning = false
    }

    private let state = Mutex(State())

    /// Starts watching `group` for one conversion; CPU time already spent (a warm tool's earlier
    /// conversions) does not count. Past a limit, the group is stopped with `.limit(kind)`.
    package func watch(_ group: ProcessGroup, limits: ResourceLimits) -> Watch {
        let baseline = Self.usage(of: [group.id])[group.id]?.cpuSeconds ?? 0
        let watch = Watch(group: group, limits: limits, cpuBaseline: baseline)
        let startsThread = state.withLock { state in
            state.watches[ObjectIdentifier(watch)] = watch
            defer { state.scanning = true }
            return !state.scanning
        }
        if startsThread {
            startThread(named: "pdfgate-limits") { [self] in scanLoop() }
        }
        return watch
    }

    /// Stops watching; call when the conversion has ended.
    package func end(_ watch: Watch) {
        state.withLock { _ = $0.watches.removeValue(forKey: ObjectIdentifier(watch)) }
    }

    private func scanLoop() {
        while true {
            let watches = state.withLock { state -> [Watch] in
                if state.watches.isEmpty { state.scanning = false }
                return Array(state.watches.values)
            }
            if watches.isEmpty { return }
            let usage = Self.usage(of: Set(watches.map(\.group.id)))
            for watch in watches { watch.check(usage[watch.group.id] ?? Usage()) }
            let (seconds, attoseconds) = Self.interval.components
            usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        }
    }

    private static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
    private static let pageSize = sysconf(Int32(_SC_PAGESIZE))

    /// One pass over /proc for the given process groups.
    static func usage(of groups: Set<pid_t>) -> [pid_t: Usage] {
        var result: [pid_t: Usage] = [:]
        guard let directory = opendir("/proc") else { return result }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = Int32(name), let stat = read("/proc/\(pid)/stat") else { continue }
            // The command name may hold spaces and parentheses: fields start after the last ')'.
            guard let close = stat.lastIndex(of: UInt8(ascii: ")")) else { continue }
            // Field N of stat(5) is number N - 3 here: pgrp (5) is 2; utime, stime, cutime and
            // cstime (14–17) are 11–14.
            let fields = numbers(stat[(close + 1)...], count: 15)
            guard let group = fields[2].map(pid_t.init), groups.contains(group) else { continue }
            var usage = result[group] ?? Usage()
            usage.processes += 1
            let ticks = fields[11...].compactMap { $0 }.reduce(0, +)
            usage.cpuSeconds += Double(ticks) / ticksPerSecond
            if let statm = read("/proc/\(pid)/statm") {
                let pages = numbers(statm[...], count: 3).compactMap { $0 }
                if pages.count == 3 { usage.memoryBytes += max(0, pages[1] - pages[2]) * pageSize }
            }
            result[group] = usage
        }
        return result
    }

    /// The first `count` space-separated fields of `bytes` as numbers (nil for one that is not,
    /// or is missing), read in place: a scan reads every process's stat.
    static func numbers(_ bytes: ArraySlice<UInt8>, count: Int) -> [Int?] {
        var result: [Int?] = []
        result.reserveCapacity(count)
        var value: Int? = 0  // the field being read; nil once a byte of it is not a digit
        var inField = false
        for byte in bytes {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") {
                if inField {
                    result.append(value)
                    if result.count == count { return result }
                }
                inField = false
            } else {
                if !inField { (value, inField) = (0, true) }
                let digit = Int(byte) - Int(UInt8(ascii: "0"))
                value = (0...9).contains(digit) ? value.map { $0 * 10 + digit } : nil
            }
        }
        if inField { result.append(value) }
        return result + Array(repeating: nil, count: max(0, count - result.count))
    }

    private static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        return count > 0 ? Array(buffer[..<count]) : nil
    }
}
