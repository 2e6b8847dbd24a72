import Foundation
import GatewayAssembly
import GatewayURLSecurity

/// Gotenberg 8's flags (`--api-timeout=60s`) and the environment variables it reads for them
/// (`API_TIMEOUT`: the flag's name upper-cased, dashes as underscores, lists split at commas),
/// read as aliases of our settings so that a compose file written for Gotenberg starts pdfgate
/// unchanged. Every flag of Gotenberg 8.36 is here, in one of four kinds:
///
/// - **alias**: the same setting under Gotenberg's name (`--api-port` is `--port`);
/// - **Gotenberg's own**: a setting only its routes have (`--api-timeout`, `--api-trace-header`,
///   `--prometheus-namespace`, the per-purpose URL lists);
/// - **no effect**: a knob of machinery pdfgate does not have (Chromium's restart count, a
///   banner): accepted, and named in a notice when the server starts;
/// - **refused**: a value pdfgate cannot honour (TLS, a proxy, private addresses allowed): the
///   server does not start, and the error names the setting and what to use instead.
enum GotenbergSettings {
    static let all: [Setting] = api + downloads + chromium + libreOffice + pdfEngines + prometheus + webhook + process

    static let api: [Setting] = [
        alias("api-port", of: "port"),
        Setting(
            "api-port-from-env",
            environment: "API_PORT_FROM_ENV",
            flag: "api-port-from-env",
            help: "Gotenberg's: the environment variable that holds the port."
        ) { c, v, _ in c.portFromEnvironment = v[0] },
        // Gotenberg's empty bind address is every interface.
        alias("api-bind-ip", of: "host") { value, _ in value.isEmpty ? "0.0.0.0" : value },
        refused("api-tls-cert-file", form: .single, unless: \.isEmpty, "pdfgate serves plain HTTP; put TLS in a reverse proxy in front of it"),
        refused("api-tls-key-file", form: .single, unless: \.isEmpty, "pdfgate serves plain HTTP; put TLS in a reverse proxy in front of it"),
        noEffect("api-start-timeout", form: .single, "pdfgate listens once its store is open, and its converters start on first use"),
        Setting(
            "api-timeout",
            environment: "API_TIMEOUT",
            flag: "api-timeout",
            help: "Gotenberg's: how long a request on its routes may take, waiting for room included (503 after)."
        ) { c, v, s in c.gotenbergTimeout = try GoText.duration(v[0], s) },
        alias("api-body-limit", of: "max_upload_bytes") { value, source in String(try GoText.bytes(value, source)) },
        alias("api-root-path", of: "gotenberg_root_path"),
        traceHeader("api-trace-header"),
        traceHeader("api-correlation-id-header"),
        Setting(
            "api-enable-basic-auth",
            environment: "API_ENABLE_BASIC_AUTH",
            flag: "api-enable-basic-auth",
            form: .toggle,
            help:
                "Gotenberg's: Basic auth with GOTENBERG_API_BASIC_AUTH_USERNAME and _PASSWORD, for its routes and /v1, as one owner (the user name)."
        ) { c, v, s in c.gotenbergBasicAuth = try GoText.bool(v[0], s) },
        refused("api-enable-oidc-auth", unless: isFalse, "pdfgate has no OIDC; use Basic auth (API_ENABLE_BASIC_AUTH) or pdfgate's tokens"),
        refused("api-oidc-issuer", form: .single, unless: \.isEmpty, "pdfgate has no OIDC; use Basic auth or pdfgate's tokens"),
        refused("api-oidc-audience", form: .single, unless: \.isEmpty, "pdfgate has no OIDC; use Basic auth or pdfgate's tokens"),
        refused("api-oidc-jwks-url", form: .single, unless: \.isEmpty, "pdfgate has no OIDC; use Basic auth or pdfgate's tokens"),
        alias("api-enable-debug-route", of: "gotenberg_debug_route", form: .toggle) { value, source in String(try GoText.bool(value, source)) },
        quiet("api-disable-health-check-route-telemetry", ["/health"]),
        quiet("api-disable-root-route-telemetry", ["/", "/favicon.ico"]),
        quiet("api-disable-debug-route-telemetry", ["/debug"]),
        quiet("api-disable-version-route-telemetry", ["/version"]),
        quiet("api-disable-health-check-logging", ["/health"]),
    ]

    static let downloads: [Setting] = [
        patterns("api-download-from-allow-list", only: true, for: .download),
        patterns("api-download-from-deny-list", only: false, for: .download),
        privateAddresses("api-download-from-deny-private-ips", for: [.download]),
        publicAddresses("api-download-from-deny-public-ips"),
        proxy("api-download-from-enable-environment-proxy"),
        noEffect("api-download-from-max-retry", form: .single, "a download is tried once, within a minute"),
        Setting(
            "api-disable-download-from",
            environment: "API_DISABLE_DOWNLOAD_FROM",
            flag: "api-disable-download-from",
            form: .toggle,
            help: "Gotenberg's: refuse the downloadFrom field."
        ) { c, v, s in c.gotenbergDownloadFrom = !(try GoText.bool(v[0], s)) },
    ]

    static let chromium: [Setting] = [
        noEffect("chromium-restart-after", form: .single, "pdfgate restarts a warm Chromium on its own rules (memory, crashes)"),
        queueSize("chromium-max-queue-size", .chromium),
        noEffect("chromium-idle-shutdown-timeout", form: .single, "warm Chromium instances stay up"),
        noEffect("chromium-max-concurrency", form: .single, "conversions run on PDFGATE_CHROMIUM_SLOTS warm instances"),
        noEffect("chromium-auto-start", form: .toggle, "Chromium starts on the first conversion and stays warm"),
        noEffect("chromium-start-timeout", form: .single, "a conversion's own deadline bounds Chromium's start"),
        refused("chromium-allow-insecure-localhost", unless: isFalse, "pdfgate checks every certificate"),
        refused("chromium-ignore-certificate-errors", unless: isFalse, "pdfgate checks every certificate"),
        refused("chromium-disable-web-security", unless: isFalse, "pages keep the same-origin policy"),
        refused("chromium-allow-file-access-from-files", unless: isFalse, "pages never read local files"),
        refused(
            "chromium-host-resolver-rules",
            form: .single,
            unless: \.isEmpty,
            "every host is resolved by pdfgate's SSRF rules; allow a host of your own with --allow-host"
        ),
        refused("chromium-proxy-server", form: .single, unless: \.isEmpty, "Chromium's requests go through pdfgate's own vetting proxy"),
        proxy("chromium-enable-environment-proxy"),
        patterns("chromium-allow-list", only: true, for: .page),
        patterns("chromium-deny-list", only: false, for: .page),
        privateAddresses("chromium-deny-private-ips", for: [.page]),
        publicAddresses("chromium-deny-public-ips"),
        // Each conversion runs in a browser context of its own, disposed of after it.
        noEffect("chromium-clear-cache", form: .toggle, "every conversion starts with an empty cache"),
        noEffect("chromium-clear-cookies", form: .toggle, "every conversion starts without cookies"),
        noEffect("chromium-clear-storage", form: .toggle, "every conversion starts with empty storage"),
        noEffect("chromium-incognito", form: .toggle, "every conversion runs in a browser context of its own"),
        Setting(
            "chromium-disable-javascript",
            environment: "CHROMIUM_DISABLE_JAVASCRIPT",
            flag: "chromium-disable-javascript",
            form: .toggle,
            help: "Gotenberg's: pages on its routes run no script (on /v1, a job's javascript: false)."
        ) { c, v, s in c.gotenbergJavaScript = !(try GoText.bool(v[0], s)) },
        module("chromium-disable-routes", .chromium),
    ]

    static let libreOffice: [Setting] = [
        noEffect("libreoffice-restart-after", form: .single, "pdfgate restarts a warm LibreOffice on its own rules (memory, crashes)"),
        queueSize("libreoffice-max-queue-size", .libreoffice),
        noEffect("libreoffice-idle-shutdown-timeout", form: .single, "warm LibreOffice instances stay up"),
        noEffect("libreoffice-auto-start", form: .toggle, "LibreOffice starts on the first conversion and stays warm"),
        noEffect("libreoffice-start-timeout", form: .single, "a conversion's own deadline bounds LibreOffice's start"),
        refused(
            "libreoffice-allow-list",
            form: .list(separator: ","),
            unless: \.isEmpty,
            "LibreOffice runs without a network here, so linked images are never fetched"
        ),
        noEffect("libreoffice-deny-list", form: .list(separator: ","), "LibreOffice runs without a network here: nothing is fetched"),
        noEffect("libreoffice-deny-private-ips", form: .toggle, "LibreOffice runs without a network here: nothing is fetched"),
        noEffect("libreoffice-deny-public-ips", form: .toggle, "LibreOffice runs without a network here: nothing is fetched"),
        proxy("libreoffice-enable-environment-proxy"),
        module("libreoffice-disable-routes", .libreoffice),
    ]

    static let pdfEngines: [Setting] =
        [
            "merge", "split", "flatten", "convert", "optimize-images", "read-metadata", "write-metadata", "embed",
            "embed-metadata", "read-bookmarks", "write-bookmarks", "factur-x",
        ].map { noEffect("pdfengines-\($0)-engines", form: .list(separator: ","), "pdfgate's own engines do it (qpdf, Ghostscript, ExifTool)") }
        + ["encrypt", "watermark", "stamp", "rotate"].map(engines)
        + [
            noEffect("pdfengines-engines", form: .list(separator: ","), "pdfgate's own engines do it (qpdf, Ghostscript, ExifTool)"),
            module("pdfengines-disable-routes", .pdfengines),
        ]

    static let prometheus: [Setting] = [
        Setting(
            "prometheus-namespace",
            environment: "PROMETHEUS_NAMESPACE",
            flag: "prometheus-namespace",
            help: "Gotenberg's: the prefix of /prometheus/metrics' names (default gotenberg)."
        ) { c, v, s in
            let isName = v[0].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
            guard let first = v[0].first, first.isLetter || first == "_", isName else {
                throw ConfigurationError("\(s) must be a Prometheus name (letters, digits and _), not '\(v[0])'")
            }
            c.prometheusNamespace = v[0]
        },
        noEffect("prometheus-collect-interval", form: .single, "the gauges are read at each scrape"),
        quiet("prometheus-disable-route-telemetry", ["prometheus"]),
        quiet("prometheus-disable-route-logging", ["prometheus"]),
        module("prometheus-disable-collect", .prometheus),
        Setting(
            "prometheus-metrics-path",
            environment: "PROMETHEUS_METRICS_PATH",
            flag: "prometheus-metrics-path",
            help: "Gotenberg's: where its metrics answer (default /prometheus/metrics)."
        ) { c, v, s in
            guard v[0].hasPrefix("/"), v[0].count > 1, !v[0].contains("//"), !v[0].contains("?") else {
                throw ConfigurationError("\(s) must be a path such as /prometheus/metrics, not '\(v[0])'")
            }
            c.prometheusMetricsPath = v[0]
        },
    ]

    static let webhook: [Setting] = [
        Setting(
            "webhook-enable-sync-mode",
            environment: "WEBHOOK_ENABLE_SYNC_MODE",
            flag: "webhook-enable-sync-mode",
            form: .toggle,
            help: "Gotenberg's: a webhook request answers 204 once its delivery ended (within --api-timeout), not once it is recorded."
        ) { c, v, s in c.gotenbergWebhookSync = try GoText.bool(v[0], s) },
        patterns("webhook-allow-list", only: true, for: .webhook),
        patterns("webhook-deny-list", only: false, for: .webhook),
        patterns("webhook-error-allow-list", only: true, for: .webhookError),
        patterns("webhook-error-deny-list", only: false, for: .webhookError),
        privateAddresses("webhook-deny-private-ips", for: [.webhook, .webhookError]),
        publicAddresses("webhook-deny-public-ips"),
        proxy("webhook-enable-environment-proxy"),
        noEffect("webhook-max-retry", form: .single, "pdfgate retries a delivery with backoff for up to two hours, across restarts"),
        noEffect("webhook-retry-min-wait", form: .single, "pdfgate retries a delivery with backoff for up to two hours, across restarts"),
        noEffect("webhook-retry-max-wait", form: .single, "pdfgate retries a delivery with backoff for up to two hours, across restarts"),
        noEffect("webhook-client-timeout", form: .single, "a delivery attempt has a timeout of its own and is retried"),
        module("webhook-disable", .webhook),
    ]

    static let process: [Setting] = [
        noEffect("gotenberg-hide-banner", form: .toggle, "pdfgate prints no banner"),
        noEffect("gotenberg-build-debug-data", form: .toggle, "GET /debug reads the tools' versions when asked"),
        alias("gotenberg-graceful-shutdown-duration", of: "shutdown_grace_seconds") { value, source in
            String(Double((try GoText.duration(value, source)).components.seconds))
        },
        // `--log-level` and `LOG_LEVEL` are ours already, and take Gotenberg's `warn` too.
        // `--log-format` and `LOG_FORMAT` are ours already.
        alias("log-std-format", of: "log_format"),
        noEffect("log-fields-prefix", form: .single, "pdfgate's log lines have fixed keys"),
        refused("log-std-enable-gcp-fields", unless: isFalse, "pdfgate's JSON lines have no GCP fields"),
        refused("log-enable-gcp-fields", unless: isFalse, "pdfgate's JSON lines have no GCP fields"),
        noEffect("log-std-level-case", form: .single, "pdfgate writes levels as swift-log does"),
    ]

    /// The environment variable Gotenberg reads for a flag.
    static func environmentName(_ flag: String) -> String { flag.uppercased().replacingOccurrences(of: "-", with: "_") }

    // MARK: - The four kinds

    /// A setting of ours under Gotenberg's name; `convert` turns Gotenberg's text into ours.
    private static func alias(
        _ flag: String,
        of key: String,
        form: Setting.Form = .single,
        convert: @escaping @Sendable (String, String) throws -> String = { value, _ in value }
    ) -> Setting {
        guard let ours = ServerSettings.all.first(where: { $0.key == key }) else { preconditionFailure("no setting \(key)") }
        return Setting(flag, environment: environmentName(flag), flag: flag, form: form, help: "Gotenberg's name for \(key).") { c, v, s in
            try ours.apply(&c, try v.map { try convert($0, s) }, s)
        }
    }

    /// A knob of machinery pdfgate does not have: read, checked for nothing, and named in a
    /// notice when the server starts, with why it changes nothing.
    private static func noEffect(_ flag: String, form: Setting.Form, _ why: String) -> Setting {
        Setting(flag, environment: environmentName(flag), flag: flag, form: form, help: "Gotenberg's; no effect: \(why).") { c, v, s in
            c.notices.append("\(s)=\(v.joined(separator: ",")) changes nothing in pdfgate: \(why)")
        }
    }

    /// A setting pdfgate honours only for the values `accepted` takes (what it does anyway);
    /// any other value stops the server, saying why.
    private static func refused(
        _ flag: String,
        form: Setting.Form = .toggle,
        unless accepted: @escaping @Sendable (String) -> Bool,
        _ why: String
    ) -> Setting {
        Setting(flag, environment: environmentName(flag), flag: flag, form: form, help: "Gotenberg's; refused unless left at its default: \(why).") {
            c,
            v,
            s in
            for value in v where !accepted(value) {
                throw ConfigurationError("\(s)=\(value) cannot be honoured: \(why). Remove the setting to start pdfgate")
            }
        }
    }

    private static let isFalse: @Sendable (String) -> Bool = { (try? GoText.bool($0, "")) == false }

    /// Gotenberg's per-purpose allow (`only`) and deny lists.
    private static func patterns(_ flag: String, only: Bool, for purpose: URLPurpose) -> Setting {
        Setting(
            flag,
            environment: environmentName(flag),
            flag: flag,
            form: .list(separator: ","),
            help: "Gotenberg's: regular expressions for the \(purpose.rawValue) URLs \(only ? "that may be fetched" : "never fetched")."
        ) { c, v, s in
            do {
                c.urlPatterns = try c.urlPatterns.adding(deny: only ? [] : v, only: only ? v : [], for: purpose)
            } catch {
                throw ConfigurationError("\(s): \(error)")
            }
        }
    }

    /// `*-deny-private-ips`: on refuses loopback and private networks for those URLs (what
    /// `serve` does by default); off lets them through, as Gotenberg and `pdfgate gotenberg` do
    /// by default. Link-local and metadata addresses stay refused either way.
    private static func privateAddresses(_ flag: String, for purposes: Set<URLPurpose>) -> Setting {
        Setting(
            flag,
            environment: environmentName(flag),
            flag: flag,
            form: .toggle,
            help: "Gotenberg's: refuse loopback and private addresses for these URLs (link-local and metadata addresses are refused always)."
        ) { c, v, s in
            if try GoText.bool(v[0], s) {
                c.privateAddressPurposes.subtract(purposes)
            } else {
                c.privateAddressPurposes.formUnion(purposes)
            }
        }
    }

    private static func publicAddresses(_ flag: String) -> Setting {
        refused(
            flag,
            unless: isFalse,
            "pdfgate cannot refuse public addresses alone; list the URLs it may fetch with --only-url or Gotenberg's allow lists"
        )
    }

    private static func proxy(_ flag: String) -> Setting {
        refused(flag, unless: isFalse, "pdfgate connects to the address its SSRF rules checked, never through a proxy")
    }

    /// Gotenberg's per-route telemetry and logging switches: on, those routes' requests are not
    /// logged (pdfgate exports no spans; the access log line is what is left of them).
    /// `prometheus` stands for the metrics path, wherever `--prometheus-metrics-path` puts it.
    private static func quiet(_ flag: String, _ paths: [String]) -> Setting {
        Setting(flag, environment: environmentName(flag), flag: flag, form: .toggle, help: "Gotenberg's: do not log these routes' requests.") {
            c,
            v,
            s in
            if try GoText.bool(v[0], s) { c.gotenbergQuietRoutes.formUnion(paths) } else { c.gotenbergQuietRoutes.subtract(paths) }
        }
    }

    /// `--pdfengines-<operation>-engines`: our engines do the work whatever the list says, but
    /// pdftk alone brings pdftk's limits, which a Gotenberg client of that setup expects.
    private static func engines(_ operation: String) -> Setting {
        let flag = "pdfengines-\(operation)-engines"
        return Setting(
            flag,
            environment: environmentName(flag),
            flag: flag,
            form: .list(separator: ","),
            help: "Gotenberg's: pdfgate's own engines do it; pdftk alone brings pdftk's limits on this route."
        ) { c, v, s in
            if v.map({ $0.lowercased() }) == ["pdftk"] {
                c.gotenbergPDFTkOnly.insert(operation)
                c.notices.append("\(s)=pdftk: pdfgate's own engines do the work, with pdftk's limits on this route, as Gotenberg answers them")
            } else {
                c.gotenbergPDFTkOnly.remove(operation)
                c.notices.append(
                    "\(s)=\(v.joined(separator: ",")) changes nothing in pdfgate: pdfgate's own engines do it (qpdf, Ghostscript, ExifTool)"
                )
            }
        }
    }

    /// `*-disable-routes`: that module's routes answer 404.
    private static func module(_ flag: String, _ module: GotenbergModule) -> Setting {
        Setting(flag, environment: environmentName(flag), flag: flag, form: .toggle, help: "Gotenberg's: turn the \(module.rawValue) routes off.") {
            c,
            v,
            s in
            if try GoText.bool(v[0], s) { c.gotenbergModules.remove(module) } else { c.gotenbergModules.insert(module) }
        }
    }

    /// `*-max-queue-size`: how many of the module's requests may wait for room before more are 429.
    private static func queueSize(_ flag: String, _ module: GotenbergModule) -> Setting {
        Setting(
            flag,
            environment: environmentName(flag),
            flag: flag,
            help: "Gotenberg's: requests of \(module.rawValue) that may wait for room (0: no limit); more are 429."
        ) { c, v, s in
            c.gotenbergQueueSizes[module] = try SettingText.int(v[0], s, in: 0...1_000_000)
        }
    }

    private static func traceHeader(_ flag: String) -> Setting {
        Setting(flag, environment: environmentName(flag), flag: flag, help: "Gotenberg's: the header that carries a request's trace id.") { c, v, s in
            guard !v[0].isEmpty, v[0].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw ConfigurationError("\(s) must be a header name such as Gotenberg-Trace, not '\(v[0])'")
            }
            c.gotenbergTraceHeader = v[0]
        }
    }
}

/// Gotenberg's spellings of values: Go's `strconv.ParseBool`, `time.ParseDuration` and
/// go-humanize's byte sizes.
package enum GoText {
    /// `strconv.ParseBool`'s spellings; nil for anything else.
    package static func parseBool(_ text: String) -> Bool? {
        switch text {
        case "1", "t", "T", "TRUE", "true", "True": true
        case "0", "f", "F", "FALSE", "false", "False": false
        default: nil
        }
    }

    static func bool(_ text: String, _ source: String) throws(ConfigurationError) -> Bool {
        guard let value = parseBool(text) else { throw ConfigurationError("\(source) must be true or false, not '\(text)'") }
        return value
    }

    /// `time.ParseDuration`'s text in seconds — `30s`, `1m30s`, `1.5h`, `500ms`, `0` — or nil.
    package static func seconds(_ text: String) -> Double? {
        let units: [(String, Double)] = [("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600)]
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        if rest == "0" { return 0 }
        guard !rest.isEmpty else { return nil }
        var seconds = 0.0
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { !($0.isNumber || $0 == ".") }
            rest = rest.dropFirst(unit.count)
            guard let value = Double(number), let scale = units.first(where: { $0.0 == unit })?.1 else { return nil }
            seconds += value * scale
        }
        return seconds
    }

    static func duration(_ text: String, _ source: String) throws(ConfigurationError) -> Duration {
        guard let seconds = seconds(text) else {
            throw ConfigurationError("\(source) '\(text)' is not a duration such as 30s, 1m30s or 500ms")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// `100MB` (10⁸ bytes), `5MiB` (5 × 2²⁰), `1G`, or a number of bytes.
    static func bytes(_ text: String, _ source: String) throws(ConfigurationError) -> Int64 {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let number = trimmed.prefix { $0.isNumber || $0 == "." }
        let unit = trimmed.dropFirst(number.count).trimmingCharacters(in: .whitespaces).lowercased()
        let powers = ["": 0, "b": 0, "k": 1, "kb": 1, "m": 2, "mb": 2, "g": 3, "gb": 3, "t": 4, "tb": 4]
        let binary = ["ki": 1, "kib": 1, "mi": 2, "mib": 2, "gi": 3, "gib": 3, "ti": 4, "tib": 4]
        guard let value = Double(number), value > 0 else {
            throw ConfigurationError("\(source) '\(text)' is not a size such as 100MB or 5MiB")
        }
        if let power = powers[unit] { return Int64(value * pow(1000, Double(power))) }
        if let power = binary[unit] { return Int64(value * pow(1024, Double(power))) }
        throw ConfigurationError("\(source) '\(text)' is not a size such as 100MB or 5MiB")
    }
}
