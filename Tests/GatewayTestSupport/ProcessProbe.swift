import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What `/proc` says about a process: whether it still lives and how much work it has done. A
/// test that must catch a tool mid-work waits for the tool to have used some CPU, not for a
/// guess at how long it takes to get going.
public enum ProcessProbe {
    /// Whether `pid` names a process that is neither a zombie nor gone. A killed process's main
    /// thread turns zombie before its other threads have ended, and only when the last has do its
    /// descriptors close and `waitid` report it: so every thread is asked, not the leader alone.
    public static func isLive(_ pid: pid_t) -> Bool {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return threads.contains { thread in
            guard let state = fields(ofStat: "/proc/\(pid)/task/\(thread)/stat")?.first else { return false }
            return state != "Z" && state != "X"
        }
    }

    /// CPU time (user and system) `pid` has used so far; nil once it is gone.
    public static func cpuTime(of pid: pid_t) -> Duration? {
        // After the command's closing parenthesis: state is field 3, utime 14 and stime 15.
        guard let fields = fields(of: pid), fields.count > 12, let user = Int64(fields[11]), let system = Int64(fields[12]) else {
            return nil
        }
        let ticksPerSecond = Int64(sysconf(Int32(_SC_CLK_TCK)))
        return .milliseconds((user + system) * 1000 / max(ticksPerSecond, 1))
    }

    /// CPU time used so far by the live members of process group `group`, together.
    public static func cpuTime(ofGroup group: pid_t) -> Duration {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { getpgid($0) == group }.compactMap { cpuTime(of: $0) }.reduce(.zero, +)
    }

    /// The fields of `/proc/<pid>/stat` after the command name, from the state on.
    private static func fields(of pid: pid_t) -> [Substring]? {
        fields(ofStat: "/proc/\(pid)/stat")
    }

    private static func fields(ofStat path: String) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return nil
        }
        return stat[stat.index(after: close)...].split(separator: " ")
    }
}
