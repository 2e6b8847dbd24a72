import Foundation
import GatewayLibraryModel

/// The body of `pdfgate inspect-worker` (hidden; the pool starts it): caps its own memory, then answers one
/// request line at a time on stdin/stdout until stdin closes. Single-threaded on purpose: Poppler
/// documents must not be shared across threads, and the parent serialises requests anyway.
package enum InspectWorkerMain {
    /// Applied when neither `--memory-limit-bytes` nor `PDFGATE_INSPECT_MEMORY_LIMIT` says otherwise.
    package static let defaultMemoryLimitBytes = 1 << 30

    package static func run(arguments: [String], environment: [String: String]) -> Never {
        // The parent owns our lifetime: die with it rather than finish a hostile render alone.
        // (Not PR_SET_PDEATHSIG: it fires when the *thread* that spawned us exits.)
        if let parent = argument("--parent-pid", in: arguments).flatMap(Int32.init) {
            watchParent(parent)
        }

        let limit =
            argument("--memory-limit-bytes", in: arguments).flatMap(Int.init)
            ?? environment["PDFGATE_INSPECT_MEMORY_LIMIT"].flatMap(Int.init)
            ?? defaultMemoryLimitBytes
        applyLimits(memoryBytes: limit)
        // Linux's niceness is per thread: this one reads the requests and runs Poppler.
        if let niceness = argument("--nice", in: arguments).flatMap(Int32.init), niceness > 0 {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        }

        let reader = PopplerReader()
        while let line = readLine(strippingNewline: true) {
            if line.isEmpty { continue }
            let response = answer(line, reader: reader)
            guard writeAll(WorkerProtocol.encodeResponseLine(response)) else { exit(1) }
        }
        exit(0)
    }

    static func answer(_ line: String, reader: PopplerReader) -> WorkerProtocol.Response {
        let request: WorkerProtocol.Request
        do {
            request = try WorkerProtocol.decodeLine(WorkerProtocol.Request.self, from: Array(line.utf8))
        } catch {
            return .init(.failure(InspectionError(.inspectorUnavailable, "the inspect worker got a malformed request: \(error)")))
        }
        do throws(InspectionError) {
            let (info, text) = try reader.inspect(path: request.path, thumbnail: request.thumbnailRequest, textOutputPath: request.textOutputPath)
            return .init(.success(info), text: text)
        } catch {
            return .init(.failure(error))
        }
    }

    /// RLIMIT_AS turns a runaway allocation into a failed malloc (Poppler then aborts) instead of
    /// the kernel's OOM killer picking a victim, which could be the gateway. No core files: a
    /// crash here is an expected outcome of a hostile PDF, not a bug to debug.
    static func applyLimits(memoryBytes: Int) {
        var core = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &core)
        guard memoryBytes > 0 else { return }
        var memory = rlimit(rlim_cur: rlim_t(memoryBytes), rlim_max: rlim_t(memoryBytes))
        _ = setrlimit(Int32(RLIMIT_AS.rawValue), &memory)
    }

    /// A watchdog thread: Poppler cannot be interrupted, so the main thread may be busy for
    /// minutes on a hostile file when the gateway goes away.
    static func watchParent(_ parent: pid_t) {
        guard getppid() == parent else { exit(0) }
        Thread.detachNewThread {
            while true {
                sleep(1)
                if getppid() != parent { _exit(0) }
            }
        }
    }

    static func argument(_ name: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    static func writeAll(_ bytes: [UInt8]) -> Bool {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            written += n
        }
        return true
    }
}
