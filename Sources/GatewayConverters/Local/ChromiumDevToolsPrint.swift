import Foundation
import GatewayCore

#if canImport(Glibc)
import Glibc
#endif

/// Prints a web page through Chromium's DevTools protocol (`Page.printToPDF`) instead of the
/// `--print-to-pdf` switch: the switch has no paper size, orientation, margins or backgrounds,
/// and CSS cannot be added to someone else's page, so URL jobs could not honour the job's
/// options. Navigation also reports its own network error here instead of a log line.
enum ChromiumDevToolsPrint {
    enum Outcome: Sendable, Equatable {
        case printed
        /// The page did not load: Chromium's `net::ERR_…` text.
        case pageFailed(String)
        /// Chromium misbehaved (crashed, broke the protocol): what happened.
        case broken(String)
        case timedOut
        case cancelled
        case limitExceeded(ResourceLimits.Kind)
    }

    /// Starts Chromium with `flags` (profile, proxy, sandbox…), loads `url`, lets it settle for
    /// up to `settle` after its load event, and writes the PDF to `output`.
    static func print(
        url: String,
        options: ConversionOptions,
        executable: String,
        flags: [String],
        environment: [String: String],
        seal: (ChildSpec) -> ChildSpec,
        limits: ResourceLimits,
        workDirectory: String,
        log: String,
        output: String,
        settle: Duration,
        deadline: ContinuousClock.Instant
    ) async throws(SpawnFailure) -> Outcome {
        if Task.isCancelled { return .cancelled }
        guard let (ours, theirs) = socketPair() else {
            throw SpawnFailure(message: "a socket for Chromium's DevTools pipe could not be created")
        }
        defer { close(ours) }
        // Chromium reads the pipe on fd 3 and writes on fd 4: a shell puts our socket there.
        // (`--no-pdf-header-footer` must not be among the flags: in this mode it makes Chromium
        // kill the page's renderer; `displayHeaderFooter: false` does its job here.)
        let spec = seal(
            ChildSpec(
                executable: "/bin/sh",
                arguments: ["-c", #"exec "$0" "$@" 3<&0 4>&1 </dev/null >/dev/null"#, executable] + flags + [
                    "--remote-debugging-pipe", "about:blank",
                ],
                environment: environment,
                workingDirectory: workDirectory,
                stdin: .descriptor(theirs),
                stdout: .descriptor(theirs),
                stderr: .file(log)
            )
        )
        let group: ProcessGroup
        do throws(SpawnFailure) {
            group = try ProcessGroup.start(spec)
        } catch {
            close(theirs)
            throw error
        }
        close(theirs)
        let (outcome, stop) = await group.supervise(until: deadline, limits: limits) {
            let pipe = DevToolsPipe(socket: ours, deadline: deadline)
            let outcome: Outcome
            do {
                outcome = try printPage(url: url, options: options, pipe: pipe, output: output, settle: settle)
                _ = try? pipe.call("Browser.close")
            } catch {
                outcome = .broken("\(error)")
            }
            group.stop(.shutdown)
            _ = group.killAndReap()
            return outcome
        }
        switch stop {
        case .deadline: return .timedOut
        case .cancellation: return .cancelled
        case .limit(let kind): return .limitExceeded(kind)
        default:
            // The pipe's own deadline can beat the timer by a hair: still a timeout.
            if outcome != .printed && ContinuousClock.now >= deadline { return .timedOut }
            return outcome
        }
    }

    /// The protocol conversation: a tab, the page, its settling, the print, the stream.
    private static func printPage(url: String, options: ConversionOptions, pipe: DevToolsPipe, output: String, settle: Duration) throws -> Outcome {
        let target = try pipe.call("Target.createTarget", ["url": "about:blank"])
        guard let targetID = target["targetId"] as? String else { throw DevToolsPipe.Failure(description: "no target id") }
        let attached = try pipe.call("Target.attachToTarget", ["targetId": targetID, "flatten": true])
        guard let session = attached["sessionId"] as? String else { throw DevToolsPipe.Failure(description: "no session id") }
        try pipe.call("Page.enable", session: session)
        try pipe.call("Page.setLifecycleEventsEnabled", ["enabled": true], session: session)

        let navigation = try pipe.call("Page.navigate", ["url": url], session: session)
        if let error = navigation["errorText"] as? String, !error.isEmpty { return .pageFailed(error) }
        let loader = navigation["loaderId"] as? String
        func lifecycle(_ name: String) -> ([String: Any]) -> Bool {
            { message in
                guard message["method"] as? String == "Page.lifecycleEvent", message["sessionId"] as? String == session,
                    let params = message["params"] as? [String: Any], params["name"] as? String == name
                else { return false }
                return loader == nil || params["loaderId"] as? String == loader
            }
        }
        // The load event, then up to `settle` for the network to go quiet (scripts, fonts). A
        // page whose load never comes (an ad server that hangs) is printed as it stands once
        // its document is parsed, shortly before the deadline, rather than lost.
        let printBy = pipe.deadline - min(.seconds(5), ContinuousClock.now.duration(to: pipe.deadline) / 4)
        if try pipe.event(until: printBy, where: lifecycle("load")) != nil {
            _ = try pipe.event(until: min(ContinuousClock.now + settle, printBy), where: lifecycle("networkIdle"))
        } else if try pipe.event(until: ContinuousClock.now, where: lifecycle("DOMContentLoaded")) != nil {
            try pipe.call("Page.stopLoading", session: session)  // printing would wait for the stragglers
        } else {
            throw DevToolsPipe.Failure(description: "the page never loaded")
        }

        let printed = try pipe.call("Page.printToPDF", parameters(for: options), session: session)
        guard let stream = printed["stream"] as? String else { throw DevToolsPipe.Failure(description: "printToPDF returned no stream") }
        guard FileManager.default.createFile(atPath: output, contents: nil), let file = FileHandle(forWritingAtPath: output) else {
            throw DevToolsPipe.Failure(description: "cannot write \(output)")
        }
        defer { try? file.close() }
        while true {
            let chunk = try pipe.call("IO.read", ["handle": stream, "size": 1 << 20], session: session)
            if let text = chunk["data"] as? String, !text.isEmpty {
                let bytes = chunk["base64Encoded"] as? Bool == true ? Data(base64Encoded: text) : Data(text.utf8)
                guard let bytes else { throw DevToolsPipe.Failure(description: "IO.read returned bad base64") }
                try file.write(contentsOf: bytes)
            }
            if chunk["eof"] as? Bool == true { break }
        }
        _ = try? pipe.call("IO.close", ["handle": stream], session: session)
        return .printed
    }

    /// `Page.printToPDF` parameters for the job's options; unset ones keep Chromium's defaults
    /// (Letter, portrait, 0.4 in margins, no backgrounds), as `--print-to-pdf` had them.
    static func parameters(for options: ConversionOptions) -> [String: Any] {
        var parameters: [String: Any] = ["transferMode": "ReturnAsStream", "displayHeaderFooter": false]
        if let width = options.paperWidth, let height = options.paperHeight, width > 0, height > 0 {
            parameters["paperWidth"] = width
            parameters["paperHeight"] = height
        }
        if let landscape = options.landscape { parameters["landscape"] = landscape }
        if let margin = options.margin, margin >= 0 {
            for side in ["marginTop", "marginBottom", "marginLeft", "marginRight"] { parameters[side] = margin }
        }
        if let background = options.printBackground { parameters["printBackground"] = background }
        return parameters
    }
}
