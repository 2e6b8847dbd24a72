import Foundation
import GatewayTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayServer
@testable import GatewaySettings

/// A compose file written for Gotenberg (deploy/gotenberg-compose.yml, only its image
/// changed) starts pdfgate with the same command and environment, and serves as it says.
@Suite("A Gotenberg compose file")
struct GotenbergComposeTests {
    /// The gotenberg service's command (after `gotenberg`) and environment, read from the file
    /// (plain YAML: one `- "…"` or `KEY: "…"` a line), `${VAR:-default}` taken at its default.
    static func service() throws -> (arguments: [String], environment: [String: String]) {
        let repository = (Fixtures.root as NSString).deletingLastPathComponent
        let text = try String(contentsOfFile: repository + "/deploy/gotenberg-compose.yml", encoding: .utf8)
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
            let metrics = try await client.execute(uri: "/gotenberg/prometheus/metrics", method: .get, headers: credentials)
            #expect(String(buffer: metrics.body).contains("paperless_gotenberg_libreoffice_requests_queue_size"))
        }
    }
}
