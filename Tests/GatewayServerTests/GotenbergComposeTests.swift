import Foundation
import GatewayTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayServer
@testable import GatewaySettings

/// Compose files written for Gotenberg, only their image changed, start pdfgate with the same
/// command and environment and serve as they say: Gotenberg's own example
/// (deploy/gotenberg-compose.yml) and one with auth, a root path and lists
/// (deploy/gotenberg-compose-paperless.yml).
@Suite("A Gotenberg compose file")
struct GotenbergComposeTests {
    /// The gotenberg service's command (after `gotenberg`) and environment, read from the file
    /// (plain YAML: one `- "…"` or `KEY: "…"` a line), `${VAR:-default}` taken at its default.
    static func service(_ file: String = "deploy/gotenberg-compose-paperless.yml") throws -> (arguments: [String], environment: [String: String]) {
        let text = try String(contentsOfFile: repository + "/" + file, encoding: .utf8)
        var section = ""
        var arguments: [String] = []
        var environment: [String: String] = [:]
        func unquoted(_ value: Substring) -> String {
            var text = value.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 {
                text = String(text.dropFirst().dropLast()).replacingOccurrences(of: "\\\\", with: "\\")
            }
            return text.replacing(/\$\{[A-Z_]+:-([^}]*)\}/) { String($0.1) }
        }
        for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("#") {
            if let key = line.wholeMatch(of: /\ {4}([a-z_]+):\s*/)?.1 {
                section = String(key)
            } else if section == "command", let item = line.wholeMatch(of: /\ {6}- (.+)/)?.1 {
                arguments.append(unquoted(item))
            } else if section == "environment", let pair = line.wholeMatch(of: /\ {6}([A-Z_]+): (.+)/) {
                environment[String(pair.1)] = unquoted(pair.2)
            }
        }
        #expect(arguments.first == "gotenberg", "the service runs Gotenberg's command: \(arguments)")
        return (Array(arguments.dropFirst()), environment)
    }

    static var repository: String { (Fixtures.root as NSString).deletingLastPathComponent }

    @Test("its command and environment load, listen as Gotenberg does, and serve behind its Basic auth and root path")
    func startsAndServes() async throws {
        let (arguments, environment) = try Self.service()
        #expect(environment["API_ENABLE_BASIC_AUTH"] == "true" && arguments.contains { $0.hasPrefix("--chromium-deny-list=") })
        let loaded = try ServerConfiguration.load(environment: environment, arguments: arguments, defaults: .gotenbergDefaults)
        try loaded.validate()
        #expect(loaded.host == "0.0.0.0" && loaded.port == 3000, "Gotenberg's defaults")
        #expect(loaded.gotenbergTimeout == .seconds(90) && loaded.maxUploadBytes == 50_000_000)
        #expect(loaded.urlPatterns.deny(for: .page).count == 2 && loaded.urlPatterns.only(for: .page) == ["^https://"])
        #expect(loaded.notices.contains { $0.hasPrefix("LIBREOFFICE_RESTART_AFTER=10") }, "\(loaded.notices)")
        let gateway = try await InProcessGateway {
            let store = $0.store
            $0 = loaded
            $0.store = store
        }
        try await gateway.run(converting: true) { client in
            let credentials: HTTPFields = [.authorization: "Basic " + Data("paperless:change-me".utf8).base64EncodedString()]
            let form = [FormPart.file("files", path: Fixtures.pdf("one-page.pdf")), .file("files", path: Fixtures.pdf("many-pages.pdf"))]
            let anonymous = try await GotenbergAPITests.post(client, "/gotenberg/forms/pdfengines/merge", form)
            #expect(anonymous.status == .unauthorized)
            let merged = try await GotenbergAPITests.post(client, "/gotenberg/forms/pdfengines/merge", form, headers: credentials)
            #expect(merged.status == .ok, "\(String(buffer: merged.body))")
            #expect(try await GotenbergAPITests.pages(merged, in: TemporaryDirectory("compose")) == 13)
            // Gotenberg's Basic auth guards its root, icon and version too; never its health check.
            for path in ["/gotenberg/", "/gotenberg/favicon.ico", "/gotenberg/version"] {
                #expect(try await client.execute(uri: path, method: .get).status == .unauthorized, "\(path)")
                #expect(try await client.execute(uri: path, method: .get, headers: credentials).status.code < 300, "\(path)")
            }
            #expect(try await client.execute(uri: "/gotenberg/health", method: .get).status == .ok)
            let metrics = try await client.execute(uri: "/gotenberg/prometheus/metrics", method: .get, headers: credentials)
            #expect(String(buffer: metrics.body).contains("paperless_gotenberg_libreoffice_requests_queue_size"))
        }
    }

    /// The command the Dockerfile's `stage` runs: its ENTRYPOINT (inherited) and CMD, JSON form.
    static func imageCommand(stage: String) throws -> [String] {
        let lines = try String(contentsOfFile: repository + "/Dockerfile", encoding: .utf8).split(separator: "\n")
        var entrypoint: [String] = []
        var current = ""
        for line in lines {
            if let name = line.wholeMatch(of: /FROM \S+ AS (\S+)/)?.1 { current = String(name) }
            func array(_ prefix: String) throws -> [String]? {
                guard line.hasPrefix(prefix + " ") else { return nil }
                return try JSONDecoder().decode([String].self, from: Data(line.dropFirst(prefix.count + 1).utf8))
            }
            if let value = try array("ENTRYPOINT") { entrypoint = value }
            if current == stage, let command = try array("CMD") { return entrypoint + command }
        }
        throw ChildFailure(description: "the Dockerfile has no CMD in a stage named \(stage)")
    }

    @Test("Gotenberg's own example, only its image changed, starts as written: open on port 3000, converting pages of the services beside it")
    func gotenbergsOwnExampleRunsAsWritten() async throws {
        let text = try String(contentsOfFile: Self.repository + "/deploy/gotenberg-compose.yml", encoding: .utf8)
        let image = try #require(text.firstMatch(of: /\n    image: (\S+)/)?.1)
        #expect(!text.contains("command:") && !text.contains("environment:"), "Gotenberg's example has neither")
        #expect(image == "pdfgate:gotenberg")
        // What the image runs: tini, then `pdfgate gotenberg`, nothing else.
        let command = try Self.imageCommand(stage: "gotenberg")
        let pdfgate = try #require(command.firstIndex(of: "pdfgate"), "\(command)")
        let arguments = Array(command[(pdfgate + 1)...])
        #expect(arguments == ["gotenberg"])

        // A network namespace of its own stands in for the compose network: it listens on
        // 0.0.0.0:3000 as written, and a service beside it (a static server) is on 127.0.0.1.
        let work = TemporaryDirectory("pdfgate-compose")
        try FileManager.default.createDirectory(atPath: work.file("site"), withIntermediateDirectories: true)
        try "<html><body><h1>Invoice 42</h1><p>from the app beside Gotenberg</p></body></html>"
            .write(toFile: work.file("site/invoice.html"), atomically: true, encoding: .utf8)
        try "<html><body><p>Hello from an uploaded page</p></body></html>".write(toFile: work.file("index.html"), atomically: true, encoding: .utf8)
        let root = getuid() == 0
        try? FileManager.default.removeItem(atPath: work.file("server.log"))
        let server = try Child(
            "/usr/bin/unshare",
            (root ? ["--net"] : ["--net", "--map-root-user"])
                + ["--", "/bin/sh", "-c", #"ip link set lo up && exec "$0" "$@""#, builtProduct("pdfgate")] + arguments,
            // The image's own ENV: its store.
            environment: ["PDFGATE_STORE": work.file("data"), "SWIFT_BACKTRACE": "enable=no"],
            stdout: .null,
            stderr: .file(work.file("server.log"))
        )
        defer { _ = server.killNow() }
        /// Runs `tool` inside the server's network namespace.
        func inside(_ tool: [String]) -> [String] {
            ["--target", "\(server.pid)", "--net"] + (root ? [] : ["--user", "--preserve-credentials"]) + ["--"] + tool
        }
        func curl(_ arguments: [String]) async throws -> (status: Int, body: String, file: String) {
            let out = work.file("answer-\(UUID().uuidString.prefix(6))")
            let result = try await run("/usr/bin/nsenter", inside(["curl", "-s", "-m", "60", "-o", out, "-w", "%{http_code}"] + arguments))
            return (Int(result.stdout) ?? 0, (try? String(contentsOfFile: out, encoding: .isoLatin1)) ?? "", out)
        }
        try await eventually("pdfgate gotenberg answers on 0.0.0.0:3000", within: .seconds(30)) {
            (try? await curl(["http://127.0.0.1:3000/health"]))?.status == 200
        }
        let site = try Child(
            "/usr/bin/nsenter",
            inside(["python3", "-m", "http.server", "8000", "--bind", "127.0.0.1", "--directory", work.file("site")]),
            stdout: .null,
            stderr: .null
        )
        defer { _ = site.killNow() }
        try await eventually("the service beside it answers", within: .seconds(10)) {
            (try? await curl(["http://127.0.0.1:8000/invoice.html"]))?.status == 200
        }

        // No credentials asked, as Gotenberg.
        let html = try await curl([
            "-F", "files=@\(work.file("index.html"));filename=index.html", "http://127.0.0.1:3000/forms/chromium/convert/html",
        ])
        #expect(html.status == 200 && html.body.hasPrefix("%PDF"), "\(html.status) \(html.body.prefix(300))")
        // A page on a private address (the compose network's): reached, as Gotenberg's default.
        let page = try await curl(["-F", "url=http://127.0.0.1:8000/invoice.html", "http://127.0.0.1:3000/forms/chromium/convert/url"])
        #expect(page.status == 200, "\(page.body.prefix(300))")
        let words = try await run("/usr/bin/pdftotext", [page.file, "-"])
        #expect(words.stdout.contains("Invoice 42"), "\(words.stdout)")
        // Link-local and cloud metadata stay refused.
        let metadata = try await curl(["-F", "url=http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:3000/forms/chromium/convert/url"])
        #expect(metadata.status == 403, "\(metadata.status) \(metadata.body)")
        // Gotenberg's routes alone: the library is not open to the network.
        #expect(try await curl(["http://127.0.0.1:3000/v1/jobs"]).status == 404)
        #expect(try await curl(["-X", "PROPFIND", "http://127.0.0.1:3000/dav/"]).status == 404)
        let rootAnswer = try await curl(["http://127.0.0.1:3000/"])
        #expect(rootAnswer.status == 200 && rootAnswer.body.contains("Gotenberg has no UI"))
        // Each difference from `serve` is said once at start.
        let log = (try? String(contentsOfFile: work.file("server.log"), encoding: .utf8)) ?? ""
        #expect(log.contains("no credentials, as Gotenberg") && log.contains("link-local and cloud metadata addresses stay refused"), "\(log)")
    }
}
