import Foundation
import GatewayLocalConverters
import GatewayProcess
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Debian's Chromium, headless, driven over the DevTools protocol (the same pipe the URL
/// converter uses): what the web page's tests and benchmarks click through. One page, one
/// caller at a time; every wait is bounded. It loads only what the tests point it at (loopback),
/// with Chromium's own background traffic switched off.
///
/// Each browser is a browser context of its own (its own cookies and storage, as a new profile
/// has) in one Chromium that the test process starts once: a start costs about a CPU-second,
/// and the web page's tests open eight browsers one after another. One opened while another is
/// still open gets a Chromium of its own.
public final class HeadlessBrowser: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    private let chromium: Chromium
    private let pipe: DevToolsPipe
    private let context: String
    private let session: String
    private let stopped = Mutex(false)
    /// Console errors and CSP reports the page produced, oldest first.
    public private(set) var problems: [String] = []

    public init(width: Int = 1280, height: Int = 900, timeout: Duration = .seconds(30)) async throws {
        chromium = try Chromium.lend(timeout: timeout)
        pipe = chromium.pipe
        pipe.deadline = .now + timeout
        do {
            let context = try await pipe.call("Target.createBrowserContext")["browserContextId"] as? String
            guard let context else { throw Failure(description: "Chromium made no browser context") }
            self.context = context
            let target = try await pipe.call(
                "Target.createTarget",
                ["url": "about:blank", "browserContextId": context, "width": width, "height": height]
            )
            guard let targetID = target["targetId"] as? String,
                let session = try await pipe.call("Target.attachToTarget", ["targetId": targetID, "flatten": true])["sessionId"] as? String
            else { throw Failure(description: "Chromium gave no page to drive") }
            self.session = session
        } catch {
            chromium.giveBack()
            if let failure = error as? DevToolsPipe.Failure { throw Failure(description: failure.description) }
            throw error
        }
        for domain in ["Page", "Runtime", "Log"] { try await call("\(domain).enable") }
        try await call("Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 700])
    }

    deinit { stop() }

    /// Closes the page and its context; the shared Chromium stays for the next browser.
    public func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        // Its answer is dropped when it comes: nothing waits for a context to go.
        _ = try? pipe.send("Target.disposeBrowserContext", ["browserContextId": context])
        chromium.giveBack()
    }

    /// One DevTools command on the page; its result.
    @discardableResult
    public func call(_ method: String, _ params: [String: Any] = [:], timeout: Duration = .seconds(30)) async throws -> [String: Any] {
        pipe.deadline = .now + timeout
        do {
            let result = try await pipe.call(method, params, session: session)
            await collectProblems()
            return result
        } catch let failure as DevToolsPipe.Failure {
            throw Failure(description: failure.description)
        }
    }

    /// Loads `url` and waits for its load event.
    public func open(_ url: String, timeout: Duration = .seconds(30)) async throws {
        await collectProblems()  // and with them any load event of an earlier page
        pipe.deadline = .now + timeout
        do {
            try await pipe.call("Page.navigate", ["url": url], session: session)
        } catch let failure as DevToolsPipe.Failure {
            throw Failure(description: failure.description)
        }
        guard try await pipe.event(until: .now + timeout, where: { ours($0) && $0["method"] as? String == "Page.loadEventFired" }) != nil else {
            throw Failure(description: "\(url) did not finish loading within \(timeout)")
        }
    }

    /// The value of a JavaScript expression (promises awaited), as JSON gives it back.
    @discardableResult
    public func evaluate(_ expression: String, timeout: Duration = .seconds(30)) async throws -> Any? {
        let answer = try await call("Runtime.evaluate", ["expression": expression, "awaitPromise": true, "returnByValue": true], timeout: timeout)
        if let exception = answer["exceptionDetails"] as? [String: Any] {
            let detail = (exception["exception"] as? [String: Any])?["description"] as? String ?? exception["text"] as? String ?? "\(exception)"
            throw Failure(description: "the page threw on `\(expression.prefix(120))`: \(detail)")
        }
        return (answer["result"] as? [String: Any])?["value"]
    }

    /// Waits until `condition` (a JavaScript expression) is truthy; throws with `what` when it
    /// is not within `timeout`.
    public func waitUntil(_ condition: String, _ what: String, timeout: Duration = .seconds(30)) async throws {
        do {
            try await eventually(what, within: timeout, poll: .milliseconds(50)) {
                try await evaluate("Boolean(\(condition))") as? Bool == true
            }
        } catch is WaitFailure {
            throw Failure(description: "waited \(timeout) for \(what) (`\(condition)`)")
        }
    }

    /// Drags files from outside the page and drops them on the middle of the element that
    /// `selector` matches, the way a user drops files from their file manager.
    public func dropFiles(on selector: String, _ paths: [String]) async throws {
        let box = try await evaluate(
            "(() => { const r = document.querySelector(\(Self.quoted(selector))).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        guard let point = box as? [Double], point.count == 2 else { throw Failure(description: "no element matches \(selector)") }
        let data: [String: Any] = ["items": [[String: Any]](), "files": paths, "dragOperationsMask": 1]
        for type in ["dragEnter", "dragOver", "drop"] {
            try await call("Input.dispatchDragEvent", ["type": type, "x": point[0], "y": point[1], "data": data])
        }
    }

    /// `text` as a JavaScript string literal.
    public static func quoted(_ text: String) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: [text])) ?? Data("[\"\"]".utf8), as: UTF8.self).dropFirst().dropLast()
            .description
    }

    /// Writes a PNG of the viewport to `path`.
    public func screenshot(to path: String) async throws {
        let shot = try await call("Page.captureScreenshot", ["format": "png"])
        guard let base64 = shot["data"] as? String, let data = Data(base64Encoded: base64) else {
            throw Failure(description: "Chromium returned no screenshot")
        }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Whether `event` is this page's (not a closed one's in the same Chromium).
    private func ours(_ event: [String: Any]) -> Bool {
        event["sessionId"] as? String == session
    }

    /// Keeps console errors, uncaught exceptions and CSP violations; drops other events.
    private func collectProblems() async {
        while let event = try? await pipe.event(until: .now, where: ours) {
            let params = event["params"] as? [String: Any] ?? [:]
            switch event["method"] as? String {
            case "Log.entryAdded":
                let entry = params["entry"] as? [String: Any] ?? [:]
                if entry["level"] as? String == "error" { problems.append(entry["text"] as? String ?? "\(entry)") }
            case "Runtime.exceptionThrown":
                let details = params["exceptionDetails"] as? [String: Any] ?? [:]
                problems.append((details["exception"] as? [String: Any])?["description"] as? String ?? "\(details)")
            case "Runtime.consoleAPICalled" where params["type"] as? String == "error":
                let args = params["args"] as? [[String: Any]] ?? []
                problems.append(args.map { "\($0["value"] ?? $0["description"] ?? "")" }.joined(separator: " "))
            default:
                break
            }
        }
    }
}

/// A headless Chromium and its DevTools pipe, lent to one `HeadlessBrowser` at a time.
private final class Chromium: @unchecked Sendable {
    let pipe: DevToolsPipe
    private let process: Child
    private let profile: String
    private let lent = Mutex(true)
    /// Kept for the next browser when given back, unless it is a second one.
    private let shared: Bool

    /// The process's one Chromium, started on first use (again if it died).
    private static let current = Mutex<Chromium?>(nil)

    /// The shared Chromium if no browser has it, else a new one of the caller's own.
    static func lend(timeout: Duration) throws -> Chromium {
        try current.withLock { current throws -> Chromium in
            if let chromium = current, chromium.process.isRunning {
                let taken = chromium.lent.withLock { lent in
                    defer { lent = true }
                    return !lent
                }
                guard taken else { return try Chromium(timeout: timeout, shared: false) }
                chromium.pipe.discardEvents()  // closed pages' stragglers
                return chromium
            }
            if current == nil {
                atexit { Chromium.current.withLock { $0?.stop() } }
            }
            current?.stop()
            let chromium = try Chromium(timeout: timeout, shared: true)
            current = chromium
            return chromium
        }
    }

    private init(timeout: Duration, shared: Bool) throws {
        guard let (ours, theirs) = socketPair() else { throw HeadlessBrowser.Failure(description: "no socket pair for the DevTools pipe") }
        profile = FileManager.default.temporaryDirectory.path + "/pdfgate-browser-\(UUID().uuidString.prefix(8))"
        // Chromium reads the pipe on fd 3 and writes on fd 4.
        let process: Child
        do {
            process = try Child(
                "/usr/bin/chromium",
                [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
                    "--disable-extensions", "--disable-domain-reliability", "--metrics-recording-only", "--hide-scrollbars",
                    "--user-data-dir=\(profile)", "--remote-debugging-pipe", "about:blank",
                ],
                inherited: [3: theirs, 4: theirs]
            )
            close(theirs)
        } catch {
            close(ours)
            close(theirs)
            throw HeadlessBrowser.Failure(description: "Chromium could not be started (install Debian's chromium): \(error)")
        }
        self.process = process
        self.shared = shared
        pipe = DevToolsPipe(socket: ours, deadline: .now + timeout) { [process] in process.isRunning }
    }

    /// Back for the next browser; a browser's own Chromium ends here.
    func giveBack() {
        lent.withLock { $0 = false }
        if !shared { stop() }
    }

    /// Kills Chromium and removes its profile.
    func stop() {
        process.killNow()
        try? FileManager.default.removeItem(atPath: profile)
    }
}
