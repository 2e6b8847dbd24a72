import GatewayAssembly
import GatewayCore
import GatewayFonts
import GatewayJobModel
import GatewayURLSecurity

/// Every setting of `pdfgate serve`, each declared once (`Setting`). Sources, weakest first:
/// defaults, the JSON file (`--config`), `PDFGATE_*` environment variables, flags.
enum ServerSettings {
    static let all: [Setting] = listening + engine + limits + gotenberg + secrets + converters

    static let listening: [Setting] = [
        Setting("host", environment: "PDFGATE_HOST", flag: "host", help: "Address to bind (default 127.0.0.1).") { c, v, _ in c.host = v[0] },
        Setting("port", environment: "PDFGATE_PORT", flag: "port", help: "Port to listen on (default 8080; 0 picks a free one).") { c, v, s in
            c.port = try SettingText.int(v[0], s)
        },
        Setting(
            "public_url",
            environment: "PDFGATE_PUBLIC_URL",
            flag: "public-url",
            help: "Base URL for links in answers, e.g. https://pdf.example.com (default: the request's Host)."
        ) {
            c,
            v,
            _ in c.publicURL = v[0]
        },
        Setting("auth", environment: "PDFGATE_AUTH", flag: "auth", help: "none or tokens (default: none on loopback, tokens elsewhere).") { c, v, s in
            guard let mode = ServerConfiguration.AuthMode(rawValue: v[0]) else {
                throw ConfigurationError("\(s) must be none or tokens, not '\(v[0])'")
            }
            c.auth = mode
        },
        Setting(
            "event_heartbeat_seconds",
            environment: "PDFGATE_EVENT_HEARTBEAT",
            help: "Seconds between comments on an idle event stream (default 15)."
        ) {
            c,
            v,
            s in c.heartbeat = try SettingText.seconds(v[0], s, in: 0.1...300)
        },
        Setting(
            "log_format",
            environment: "LOG_FORMAT",
            flag: "log-format",
            help: "text, json (one JSON object a line, as Gotenberg's) or auto (json without a terminal); default text, auto under pdfgate gotenberg."
        ) { c, v, s in
            guard let format = LogFormat(rawValue: v[0].lowercased()) else {
                throw ConfigurationError("\(s) must be text, json or auto, not '\(v[0])'")
            }
            c.logFormat = format
        },
        Setting("log_level", environment: "LOG_LEVEL", flag: "log-level", help: "trace, debug, info, notice, warning or error (default info).") {
            c,
            v,
            s in
            // Gotenberg's LOG_LEVEL says warn.
            let level = v[0] == "warn" ? "warning" : v[0]
            guard ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(level) else {
                throw ConfigurationError("\(s) must be trace, debug, info, notice, warning or error, not '\(v[0])'")
            }
            c.logLevel = level
        },
        Setting("web_root", environment: "PDFGATE_WEB_ROOT", help: "Serve the web page's files from this directory instead of the built-in copies.") {
            c,
            v,
            _ in
            c.webRoot = v[0]
        },
    ]

    static let engine: [Setting] = [
        Setting("store", environment: "PDFGATE_STORE", flag: "store", help: "Store directory (default ./data).") { c, v, _ in c.store = v[0] },
        Setting(
            "database",
            environment: "PDFGATE_DATABASE_URL",
            flag: "database",
            help: "sqlite, or postgres://USER[:PASSWORD]@HOST[:PORT]/DB to share one library between gateways (default sqlite)."
        ) { c, v, s in
            do { c.database = try DatabaseChoice(parsing: v[0]) } catch {
                throw ConfigurationError("\(s): \((error as? any GatewayError)?.message ?? "\(error)")")
            }
        },
        Setting(
            "documents",
            environment: "PDFGATE_DOCUMENTS",
            flag: "documents",
            help:
                "tree (files under --store), or s3://BUCKET/PREFIX to keep documents in a bucket, keys and server from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT_URL (default tree)."
        ) { c, v, s in
            do { c.documents = try DocumentsChoice(parsing: v[0], setting: s) } catch {
                throw ConfigurationError("\((error as? any GatewayError)?.message ?? "\(error)")")
            }
        },
        Setting(
            "documents_cache_mb",
            environment: "PDFGATE_DOCUMENTS_CACHE_MB",
            flag: "documents-cache",
            help: "Megabytes of bucket objects each gateway keeps in its local read cache (default 2048)."
        ) { c, v, s in
            c.documentsCacheBytes = Int64(try SettingText.int(v[0], s, in: 16...10_000_000)) << 20
        },
        Setting(
            "documents_grace_seconds",
            environment: "PDFGATE_DOCUMENTS_GRACE",
            flag: "documents-grace",
            help: "Seconds a bucket object no document names is kept before it is removed (default 900)."
        ) { c, v, s in
            c.documentsGrace = try SettingText.seconds(v[0], s, in: 0...86_400)
        },
        Setting(
            "lease_seconds",
            environment: "PDFGATE_LEASE_SECONDS",
            flag: "lease",
            help: "Seconds a running job's lease lasts on a shared database before another gateway resumes it (default 15)."
        ) { c, v, s in
            // Renewals come every third of it, and a takeover waits all of it.
            c.lease = try SettingText.seconds(v[0], s, in: 2...600)
        },
        Setting(
            "node",
            environment: "PDFGATE_NODE",
            flag: "node",
            help: "This gateway's name in leases, logs and metrics (default host name and process id)."
        ) {
            c,
            v,
            _ in c.node = v[0]
        },
        Setting(
            "routes",
            environment: "PDFGATE_ROUTES",
            flag: "routes",
            form: .list(separator: ","),
            help: "Routing, e.g. URL_TO_PDF=gotenberg=http://g:3000,DOC_TO_PDF=local (default: all local)."
        ) { c, v, s in
            do {
                let text = v.joined(separator: ",")
                let parsed = try BackendChoice.routes(parsing: text)
                let named = Set(v.compactMap { $0.split(separator: "=").first.map(String.init) })
                for (type, choice) in parsed where named.contains(type.rawValue) { c.routes[type] = choice }
            } catch {
                throw ConfigurationError("\(s): \((error as? any GatewayError)?.message ?? "\(error)")")
            }
        },
        Setting("timeouts", form: .list(separator: ","), help: "Seconds per job type, e.g. {\"URL_TO_PDF\": 120} in the file.") { c, v, s in
            for pair in v {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let type = JobType(rawValue: parts[0]), let seconds = Double(parts[1]), seconds > 0 else {
                    throw ConfigurationError("\(s): '\(pair)' must be a job type with a positive number of seconds")
                }
                c.timeouts[type] = .milliseconds(Int64(seconds * 1000))
            }
        },
        Setting(
            "remote_event_streams",
            environment: "PDFGATE_REMOTE_EVENT_STREAMS",
            form: .toggle,
            help: "Whether gateway backends wait on the peer's event stream before polling (default true)."
        ) { c, v, s in c.remoteEventStreams = try SettingText.toggle(v[0], s) },
        Setting(
            "shutdown_grace_seconds",
            environment: "PDFGATE_SHUTDOWN_GRACE",
            flag: "shutdown-grace",
            help: "Seconds running jobs get to finish at shutdown (default 30)."
        ) {
            c,
            v,
            s in c.shutdownGrace = try SettingText.seconds(v[0], s, in: 0...86_400)
        },
        Setting(
            "dav_convert_dropped_files",
            environment: "PDFGATE_DAV_CONVERT",
            flag: "dav-convert",
            form: .toggle,
            help: "Whether office files, ebooks, HTML pages and images dropped into /dav/ become PDFs (default true)."
        ) { c, v, s in c.davConvertsDroppedFiles = try SettingText.toggle(v[0], s) },
        Setting(
            "change_history_days",
            environment: "PDFGATE_CHANGE_HISTORY_DAYS",
            flag: "change-history-days",
            help: "Days the change feed remembers deletions; an older sync token must start over (default 30)."
        ) { c, v, s in
            c.changeHistory = try SettingText.seconds(v[0], s, in: 0...36_500) * 86_400
        },
    ]

    static let limits: [Setting] = [
        Setting(
            "allow_hosts",
            environment: "PDFGATE_URL_ALLOWLIST",
            flag: "allow-host",
            form: .list(separator: ","),
            help: "Host or address URL jobs may fetch despite the SSRF rules (repeatable)."
        ) { c, v, _ in c.urlAllowList.formUnion(v) },
        // One pattern per line in the environment: a regular expression may hold commas ({1,3}).
        Setting(
            "deny_urls",
            environment: "PDFGATE_DENY_URLS",
            flag: "deny-url",
            form: .list(separator: "\n"),
            help: "Regular expression: URLs it matches are never fetched, pages, downloads and webhooks alike (repeatable; Gotenberg's deny lists)."
        ) { c, v, s in c.urlPatterns = try patterns(c.urlPatterns, deny: v, s) },
        Setting(
            "only_urls",
            environment: "PDFGATE_ONLY_URLS",
            flag: "only-url",
            form: .list(separator: "\n"),
            help: "Regular expression: when given, only URLs matching one are fetched (repeatable; Gotenberg's allow lists)."
        ) { c, v, s in c.urlPatterns = try patterns(c.urlPatterns, only: v, s) },
        Setting(
            "download_redirect_seconds",
            environment: "PDFGATE_DOWNLOAD_REDIRECT",
            flag: "download-redirect",
            help:
                "With documents in a bucket: answer a document download with a 302 to a presigned URL of its object that lives this many seconds (0: stream through the gateway; default 0)."
        ) { c, v, s in
            let seconds = try SettingText.int(v[0], s, in: 0...3600)
            c.downloadRedirect = seconds == 0 ? nil : .seconds(seconds)
        },
        Setting(
            "max_upload_bytes",
            environment: "PDFGATE_MAX_UPLOAD_BYTES",
            flag: "max-upload-bytes",
            help: "Largest upload in bytes (default 104857600)."
        ) {
            c,
            v,
            s in c.maxUploadBytes = Int64(try SettingText.positive(v[0], s))
        },
        Setting(
            "max_active_jobs_per_owner",
            environment: "PDFGATE_MAX_ACTIVE_JOBS",
            flag: "max-active-jobs",
            help: "Unfinished jobs one owner may have at once (default 32)."
        ) { c, v, s in
            c.maxActiveJobsPerOwner = try SettingText.positive(v[0], s)
            c.ownerLimitsSet = true
        },
        Setting(
            "job_creations_per_minute",
            environment: "PDFGATE_JOBS_PER_MINUTE",
            flag: "jobs-per-minute",
            help: "Jobs one owner may create per minute (default 600)."
        ) { c, v, s in
            c.jobCreationsPerMinute = try SettingText.positive(v[0], s)
            c.ownerLimitsSet = true
        },
    ]

    static let gotenberg: [Setting] = [
        Setting(
            "gotenberg_api",
            environment: "PDFGATE_GOTENBERG_API",
            flag: "gotenberg-api",
            help:
                "Gotenberg 8's routes (/forms/…, /health, /version) beside ours: on, off, or the modules to keep among chromium, libreoffice, pdfengines, prometheus, webhook (default on)."
        ) { c, v, s in try c.setGotenbergAPI(v[0], from: s) },
        Setting(
            "gotenberg_modules",
            form: .list(separator: ","),
            help: "The Gotenberg modules that answer, as a list (the file's form of gotenberg_api)."
        ) {
            c,
            v,
            s in try c.setGotenbergAPI(v.joined(separator: ","), from: s)
        },
        Setting(
            "gotenberg_root_path",
            environment: "PDFGATE_GOTENBERG_ROOT_PATH",
            flag: "gotenberg-root-path",
            help: "Where Gotenberg's routes are mounted, like its --api-root-path, e.g. /gotenberg/ (default /)."
        ) { c, v, s in try c.setGotenbergRootPath(v[0], from: s) },
        Setting(
            "gotenberg_debug_route",
            environment: "PDFGATE_GOTENBERG_DEBUG_ROUTE",
            flag: "gotenberg-debug-route",
            form: .toggle,
            help: "Answer Gotenberg's GET /debug: versions, modules and settings as JSON, behind the credentials (default off)."
        ) { c, v, s in c.gotenbergDebugRoute = try SettingText.toggle(v[0], s) },
    ]

    /// Never flags: `ps` shows a process's arguments.
    static let secrets: [Setting] = [
        Setting("gateway_token", environment: "PDFGATE_GATEWAY_TOKEN", help: "Bearer token sent to gateway backends.") { c, v, _ in
            c.gatewayToken = v[0]
        },
        Setting(
            "signing_keys",
            form: .list(separator: ","),
            help: "KID=SECRET keys for signed URLs; the first signs, all verify (default: one kept in the store)."
        ) {
            c,
            v,
            s in
            c.signingKeys = try v.map { pair throws(ConfigurationError) in
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw ConfigurationError("\(s): each key needs an id and a secret, like {\"id\": \"k1\", \"secret\": \"<base64>\"}")
                }
                return SigningKey(id: parts[0], secret: parts[1])
            }
        },
        Setting("webhook_secret", help: "Standard Webhooks secret, whsec_… (default: one kept in the store).") { c, v, _ in c.webhookSecret = v[0] },
    ]

    static let converters: [Setting] = [
        Setting(
            "unsandboxed_converters",
            environment: "PDFGATE_UNSANDBOXED_CONVERTERS",
            flag: "unsandboxed-converters",
            form: .toggle,
            help:
                "Run local converters without their sandbox. Only where the kernel refuses namespaces: documents can then reach the network and this machine's files."
        ) { c, v, s in c.unsandboxedConverters = try SettingText.toggle(v[0], s) },
        Setting(
            "fonts",
            environment: "PDFGATE_FONTS",
            flag: "fonts",
            help: "A folder of .ttf/.otf/.ttc fonts every converter uses besides the system's (read-only; changes are picked up while running)."
        ) { c, v, s in
            do { c.fontFolder = try FontFolder(path: v[0]) } catch { throw ConfigurationError("\(s): \(error)") }
        },
        // A zero cap would fail every conversion with a misleading message.
        Setting("converter_memory_mb", environment: "PDFGATE_CONVERTER_MEMORY_MB", help: "Memory one local conversion may use, in MB.") { c, v, s in
            c.converterLimits.memoryBytes = try SettingText.positive(v[0], "\(s) (converter memory, MB)") << 20
        },
        Setting("converter_cpu_seconds", environment: "PDFGATE_CONVERTER_CPU_SECONDS", help: "CPU seconds one local conversion may use.") { c, v, s in
            c.converterLimits.cpuSeconds = try SettingText.positive(v[0], "\(s) (converter CPU seconds)")
        },
        Setting("converter_processes", environment: "PDFGATE_CONVERTER_PROCESSES", help: "Processes one local conversion may run.") { c, v, s in
            c.converterLimits.processes = try SettingText.positive(v[0], "\(s) (converter processes)")
        },
        // 1 to 64 of each: none would fail every job of that kind, and each is a whole warm tool.
        Setting("libreoffice_slots", environment: "PDFGATE_LIBREOFFICE_SLOTS", help: "Warm LibreOffice instances (1 to 64, default 2).") { c, v, s in
            c.toolSlots.libreOffice = try SettingText.int(v[0], "\(s) (LibreOffice slots)", in: 1...64)
        },
        Setting("chromium_slots", environment: "PDFGATE_CHROMIUM_SLOTS", help: "Warm Chromium instances (1 to 64, default 2).") { c, v, s in
            c.toolSlots.chromium = try SettingText.int(v[0], "\(s) (Chromium slots)", in: 1...64)
        },
        Setting("calibre_slots", environment: "PDFGATE_CALIBRE_SLOTS", help: "Warm Calibre instances (1 to 64, default 2).") { c, v, s in
            c.toolSlots.calibre = try SettingText.int(v[0], "\(s) (Calibre slots)", in: 1...64)
        },
    ]

    /// Regular expressions checked when the server starts, so a typo is not a silent hole.
    private static func patterns(
        _ patterns: URLPatterns,
        deny: [String] = [],
        only: [String] = [],
        _ source: String
    ) throws(ConfigurationError)
        -> URLPatterns
    {
        do { return try patterns.adding(deny: deny, only: only) } catch { throw ConfigurationError("\(source): \(error.description)") }
    }
}
