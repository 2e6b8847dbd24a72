import Foundation
import GatewaySettings
import HTTPTypes
import Hummingbird

/// Gotenberg's `GET /debug` (opt-in, `--gotenberg-debug-route`, as its
/// `--api-enable-debug-route`): its JSON shape with this node's real facts — the API version
/// we follow, the time zone, the architecture, the modules that answer and the tools behind
/// them with their versions, and our settings under the Gotenberg flag names they stand for.
/// A Gotenberg flag we have no counterpart for is left out rather than made up.
package struct GotenbergDebug: Encodable {
    var version: String
    var timezone: String
    var architecture: String
    var modules: [String]
    var modulesAdditionalData: [String: [String: String]]
    var flags: [String: String]

    enum CodingKeys: String, CodingKey {
        case version, timezone, architecture, modules, flags
        case modulesAdditionalData = "modules_additional_data"
    }

    package init(configuration: ServerConfiguration, toolVersions: [String: String]) {
        version = GotenbergController.apiVersion
        // Go prints the zone's name (TZ, else the system's); Foundation reads both the same way.
        timezone = TimeZone.current.identifier
        architecture = Self.goArchitecture
        let answering = configuration.gotenbergModules.map(\.rawValue)
        // The tools our engine converts with, under Gotenberg's module names where it has them.
        let tools = toolVersions.keys
        modules = (["api"] + answering + tools).sorted()
        modulesAdditionalData = toolVersions.mapValues { ["version": $0] }
        flags = Self.flags(configuration)
    }

    static func flags(_ configuration: ServerConfiguration) -> [String: String] {
        func list(_ patterns: [String]) -> String { "[" + patterns.joined(separator: ",") + "]" }
        let patterns = configuration.urlPatterns
        // No only-patterns means every URL the SSRF rules let through, Gotenberg's `[.+]`.
        let allow = patterns.only.isEmpty ? "[.+]" : list(patterns.only)
        let deny = list(patterns.deny)
        let modules = configuration.gotenbergModules
        func disabled(_ module: GotenbergModule) -> String { modules.contains(module) ? "false" : "true" }
        return [
            "api-bind-ip": configuration.host,
            "api-port": String(configuration.port),
            "api-root-path": configuration.gotenbergRootPath,
            "api-body-limit": "\(configuration.maxUploadBytes)B",
            "api-enable-basic-auth": configuration.effectiveAuth == .tokens ? "true" : "false",
            "api-enable-debug-route": configuration.gotenbergDebugRoute ? "true" : "false",
            "api-trace-header": "Gotenberg-Trace",
            "api-correlation-id-header": "Gotenberg-Trace",
            "api-disable-download-from": "false",
            "api-download-from-allow-list": allow,
            "api-download-from-deny-list": deny,
            // Our SSRF rules always refuse private, loopback and link-local addresses.
            "api-download-from-deny-private-ips": "true",
            "api-download-from-deny-public-ips": "false",
            "chromium-allow-list": allow,
            "chromium-deny-list": deny,
            "chromium-deny-private-ips": "true",
            "chromium-deny-public-ips": "false",
            "chromium-disable-routes": disabled(.chromium),
            "chromium-max-concurrency": String(configuration.toolSlots.chromium),
            "libreoffice-disable-routes": disabled(.libreoffice),
            "pdfengines-disable-routes": disabled(.pdfengines),
            "prometheus-disable-collect": disabled(.prometheus),
            "prometheus-namespace": "gotenberg",
            "prometheus-metrics-path": "/prometheus/metrics",
            "webhook-disable": disabled(.webhook),
            "webhook-allow-list": allow,
            "webhook-deny-list": deny,
            "webhook-deny-private-ips": "true",
            "webhook-deny-public-ips": "false",
        ]
    }

    /// Go's `runtime.GOARCH` for this machine.
    static var goArchitecture: String {
        #if arch(x86_64)
        "amd64"
        #elseif arch(arm64)
        "arm64"
        #else
        "unknown"
        #endif
    }

    /// `application/json` without a charset, as Gotenberg's `c.JSON` for this route.
    func response() throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Response(
            status: .ok,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(self)))
        )
    }
}
