import Foundation
import GatewayAssembly
import GatewayCore

extension ServerConfiguration {
    /// The JSON file's shape; every key optional, snake_case like the API.
    struct File: Decodable {
        var host: String?
        var port: Int?
        var store: String?
        /// `sqlite` or a `postgres://` URL.
        var database: String?
        var leaseSeconds: Double?
        var node: String?
        var publicURL: String?
        var auth: AuthMode?
        /// `{"URL_TO_PDF": "gotenberg=http://gotenberg:3000", …}`
        var routes: [String: String]?
        /// Seconds per job type.
        var timeouts: [String: Double]?
        var allowHosts: [String]?
        var denyURLs: [String]?
        var onlyURLs: [String]?
        var maxUploadBytes: Int64?
        var maxActiveJobsPerOwner: Int?
        var jobCreationsPerMinute: Int?
        var shutdownGraceSeconds: Double?
        var remoteEventStreams: Bool?
        var gotenbergAPI: Bool?
        var gotenbergModules: [String]?
        var gotenbergRootPath: String?
        var gotenbergDebugRoute: Bool?
        var gatewayToken: String?
        var eventHeartbeatSeconds: Double?
        var signingKeys: [SigningKey]?
        var webhookSecret: String?
        var unsandboxedConverters: Bool?
        var converterMemoryMB: Int?
        var converterCPUSeconds: Int?
        var converterProcesses: Int?
        var libreOfficeSlots: Int?
        var chromiumSlots: Int?
        var calibreSlots: Int?

        enum CodingKeys: String, CodingKey {
            case host, port, store, auth, routes, timeouts, database, node
            case leaseSeconds = "lease_seconds"
            case publicURL = "public_url"
            case allowHosts = "allow_hosts"
            case denyURLs = "deny_urls"
            case onlyURLs = "only_urls"
            case maxUploadBytes = "max_upload_bytes"
            case maxActiveJobsPerOwner = "max_active_jobs_per_owner"
            case jobCreationsPerMinute = "job_creations_per_minute"
            case shutdownGraceSeconds = "shutdown_grace_seconds"
            case remoteEventStreams = "remote_event_streams"
            case gotenbergAPI = "gotenberg_api"
            case gotenbergModules = "gotenberg_modules"
            case gotenbergRootPath = "gotenberg_root_path"
            case gotenbergDebugRoute = "gotenberg_debug_route"
            case gatewayToken = "gateway_token"
            case eventHeartbeatSeconds = "event_heartbeat_seconds"
            case signingKeys = "signing_keys"
            case webhookSecret = "webhook_secret"
            case unsandboxedConverters = "unsandboxed_converters"
            case converterMemoryMB = "converter_memory_mb"
            case converterCPUSeconds = "converter_cpu_seconds"
            case converterProcesses = "converter_processes"
            case libreOfficeSlots = "libreoffice_slots"
            case chromiumSlots = "chromium_slots"
            case calibreSlots = "calibre_slots"
        }
    }

    /// Defaults, then the file at `path` (if any), then the environment.
    public static func load(file path: String?, environment: [String: String]) throws(ConfigurationError) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        if let path = path ?? environment["PDFGATE_CONFIG"] {
            let file: File
            do {
                file = try JSONDecoder().decode(File.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw ConfigurationError("cannot read the configuration file \(path): \(error)")
            }
            try configuration.apply(file)
            configuration.configurationFile = path
        }
        try configuration.apply(environment: environment)
        return configuration
    }

    mutating func apply(_ file: File) throws(ConfigurationError) {
        if let value = file.host { host = value }
        if let value = file.port { port = value }
        if let value = file.store { engine.store = value }
        if let value = file.database { try setDatabase(value, from: "database") }
        if let value = file.leaseSeconds { try setLease(value, from: "lease_seconds") }
        if let value = file.node, !value.isEmpty { engine.node = value }
        if let value = file.publicURL { publicURL = value }
        if let value = file.auth { auth = value }
        if let routes = file.routes {
            try applyRoutes(routes.map { "\($0.key)=\($0.value)" }.joined(separator: ","))
        }
        for (name, seconds) in file.timeouts ?? [:] {
            guard let type = JobType(rawValue: name), seconds > 0 else {
                throw ConfigurationError("timeouts: '\(name)' must be a job type with a positive number of seconds")
            }
            engine.timeouts[type] = .milliseconds(Int64(seconds * 1000))
        }
        if let value = file.allowHosts { engine.urlAllowList = Set(value) }
        if file.denyURLs != nil || file.onlyURLs != nil {
            try setURLPatterns(
                deny: file.denyURLs ?? engine.urlPatterns.deny,
                only: file.onlyURLs ?? engine.urlPatterns.only,
                from: "deny_urls/only_urls"
            )
        }
        if let value = file.maxUploadBytes { maxUploadBytes = value }
        if let value = file.maxActiveJobsPerOwner { engine.maxActiveJobsPerOwner = value }
        if let value = file.jobCreationsPerMinute { engine.jobCreationsPerMinute = value }
        if let value = file.shutdownGraceSeconds { engine.shutdownGrace = .milliseconds(Int64(value * 1000)) }
        if let value = file.remoteEventStreams { engine.remoteEventStreams = value }
        if let value = file.gotenbergAPI { gotenbergAPI = value }
        if let value = file.gotenbergModules { try setGotenbergAPI(value.joined(separator: ","), from: "gotenberg_modules") }
        if let value = file.gotenbergRootPath { try setGotenbergRootPath(value, from: "gotenberg_root_path") }
        if let value = file.gotenbergDebugRoute { gotenbergDebugRoute = value }
        if let value = file.gatewayToken, !value.isEmpty { engine.gatewayToken = value }
        if let value = file.eventHeartbeatSeconds { try setHeartbeat(value, from: "event_heartbeat_seconds") }
        if let value = file.signingKeys { signingKeys = value }
        if let value = file.webhookSecret { engine.webhookSecret = value }
        if let value = file.unsandboxedConverters { engine.unsandboxedConverters = value }
        try setConverterLimits(memoryMB: file.converterMemoryMB, cpuSeconds: file.converterCPUSeconds, processes: file.converterProcesses)
        try setToolSlots(libreOffice: file.libreOfficeSlots, chromium: file.chromiumSlots, calibre: file.calibreSlots)
    }

    /// `sqlite` or a PostgreSQL URL, refused with the shape it should have.
    public mutating func setDatabase(_ value: String, from source: String) throws(ConfigurationError) {
        do {
            engine.database = try DatabaseChoice(parsing: value)
        } catch {
            throw ConfigurationError("\(source): \((error as? any GatewayError)?.message ?? "\(error)")")
        }
    }

    /// 2 to 600 seconds: renewals come every third of it, and a takeover waits all of it.
    public mutating func setLease(_ seconds: Double, from source: String) throws(ConfigurationError) {
        guard (2...600).contains(seconds) else {
            throw ConfigurationError("\(source) must be between 2 and 600 seconds, not \(seconds)")
        }
        engine.lease = .milliseconds(Int64(seconds * 1000))
    }

    /// 1 to 64 of each: none would fail every job of that kind, and each is a whole warm tool.
    private mutating func setToolSlots(libreOffice: Int?, chromium: Int?, calibre: Int?) throws(ConfigurationError) {
        for (name, value) in [("LibreOffice slots", libreOffice), ("Chromium slots", chromium), ("Calibre slots", calibre)] {
            if let value, !(1...64).contains(value) { throw ConfigurationError("\(name) must be between 1 and 64, not \(value)") }
        }
        if let libreOffice { engine.toolSlots.libreOffice = libreOffice }
        if let chromium { engine.toolSlots.chromium = chromium }
        if let calibre { engine.toolSlots.calibre = calibre }
    }

    /// Positive numbers only: a zero cap would fail every conversion with a misleading message.
    private mutating func setConverterLimits(memoryMB: Int?, cpuSeconds: Int?, processes: Int?) throws(ConfigurationError) {
        for (name, value) in [("converter memory (MB)", memoryMB), ("converter CPU seconds", cpuSeconds), ("converter processes", processes)] {
            if let value, value <= 0 { throw ConfigurationError("\(name) must be a positive number, not \(value)") }
        }
        if let memoryMB { engine.converterLimits.memoryBytes = memoryMB << 20 }
        if let cpuSeconds { engine.converterLimits.cpuSeconds = cpuSeconds }
        if let processes { engine.converterLimits.processes = processes }
    }

    mutating func apply(environment: [String: String]) throws(ConfigurationError) {
        if let value = environment["PDFGATE_HOST"] { host = value }
        if let value = environment["PDFGATE_PORT"] {
            guard let port = Int(value) else { throw ConfigurationError("PDFGATE_PORT '\(value)' is not a number") }
            self.port = port
        }
        if let value = environment["PDFGATE_STORE"] { engine.store = value }
        if let value = environment["PDFGATE_DATABASE_URL"], !value.isEmpty { try setDatabase(value, from: "PDFGATE_DATABASE_URL") }
        if let value = environment["PDFGATE_LEASE_SECONDS"] {
            guard let seconds = Double(value) else { throw ConfigurationError("PDFGATE_LEASE_SECONDS '\(value)' is not a number") }
            try setLease(seconds, from: "PDFGATE_LEASE_SECONDS")
        }
        if let value = environment["PDFGATE_NODE"], !value.isEmpty { engine.node = value }
        if let value = environment["PDFGATE_PUBLIC_URL"], !value.isEmpty { publicURL = value }
        if let value = environment["PDFGATE_AUTH"] {
            guard let mode = AuthMode(rawValue: value) else { throw ConfigurationError("PDFGATE_AUTH must be none or tokens, not '\(value)'") }
            auth = mode
        }
        if let value = environment["PDFGATE_ROUTES"], !value.isEmpty { try applyRoutes(value) }
        if let value = environment["PDFGATE_URL_ALLOWLIST"] {
            engine.urlAllowList.formUnion(value.split(separator: ",").map(String.init))
        }
        // One pattern per line: a regular expression may hold commas ({1,3}).
        let deny = environment["PDFGATE_DENY_URLS"].map { $0.split(separator: "\n").map(String.init) }
        let only = environment["PDFGATE_ONLY_URLS"].map { $0.split(separator: "\n").map(String.init) }
        if deny != nil || only != nil {
            try setURLPatterns(
                deny: deny ?? engine.urlPatterns.deny,
                only: only ?? engine.urlPatterns.only,
                from: "PDFGATE_DENY_URLS/PDFGATE_ONLY_URLS"
            )
        }
        if let value = environment["PDFGATE_REMOTE_EVENT_STREAMS"] {
            switch value.lowercased() {
            case "true", "1", "on", "yes": engine.remoteEventStreams = true
            case "false", "0", "off", "no": engine.remoteEventStreams = false
            default: throw ConfigurationError("PDFGATE_REMOTE_EVENT_STREAMS must be true or false, not '\(value)'")
            }
        }
        if let value = environment["PDFGATE_GOTENBERG_DEBUG_ROUTE"] {
            switch value.lowercased() {
            case "true", "1", "on", "yes": gotenbergDebugRoute = true
            case "false", "0", "off", "no", "": gotenbergDebugRoute = false
            default: throw ConfigurationError("PDFGATE_GOTENBERG_DEBUG_ROUTE must be true or false, not '\(value)'")
            }
        }
        if let value = environment["PDFGATE_GOTENBERG_API"] { try setGotenbergAPI(value, from: "PDFGATE_GOTENBERG_API") }
        if let value = environment["PDFGATE_GOTENBERG_ROOT_PATH"] { try setGotenbergRootPath(value, from: "PDFGATE_GOTENBERG_ROOT_PATH") }
        if let value = environment["PDFGATE_GATEWAY_TOKEN"], !value.isEmpty { engine.gatewayToken = value }
        if let value = environment["PDFGATE_WEB_ROOT"], !value.isEmpty { webRoot = value }
        if let value = environment["PDFGATE_EVENT_HEARTBEAT"] {
            guard let seconds = Double(value) else { throw ConfigurationError("PDFGATE_EVENT_HEARTBEAT '\(value)' is not a number of seconds") }
            try setHeartbeat(seconds, from: "PDFGATE_EVENT_HEARTBEAT")
        }
        if let value = environment["PDFGATE_MAX_ACTIVE_JOBS"] {
            guard let count = Int(value), count > 0 else { throw ConfigurationError("PDFGATE_MAX_ACTIVE_JOBS '\(value)' is not a positive number") }
            engine.maxActiveJobsPerOwner = count
        }
        if let value = environment["PDFGATE_JOBS_PER_MINUTE"] {
            guard let count = Int(value), count > 0 else { throw ConfigurationError("PDFGATE_JOBS_PER_MINUTE '\(value)' is not a positive number") }
            engine.jobCreationsPerMinute = count
        }
        if let value = environment["PDFGATE_SHUTDOWN_GRACE"] {
            guard let seconds = Double(value), seconds >= 0 else {
                throw ConfigurationError("PDFGATE_SHUTDOWN_GRACE '\(value)' is not a number of seconds")
            }
            engine.shutdownGrace = .milliseconds(Int64(seconds * 1000))
        }
        if let value = environment["PDFGATE_UNSANDBOXED_CONVERTERS"] {
            switch value.lowercased() {
            case "true", "1", "on", "yes": engine.unsandboxedConverters = true
            case "false", "0", "off", "no", "": engine.unsandboxedConverters = false
            default: throw ConfigurationError("PDFGATE_UNSANDBOXED_CONVERTERS must be true or false, not '\(value)'")
            }
        }
        func number(_ name: String) throws(ConfigurationError) -> Int? {
            guard let value = environment[name] else { return nil }
            guard let number = Int(value) else { throw ConfigurationError("\(name) '\(value)' is not a whole number") }
            return number
        }
        try setConverterLimits(
            memoryMB: try number("PDFGATE_CONVERTER_MEMORY_MB"),
            cpuSeconds: try number("PDFGATE_CONVERTER_CPU_SECONDS"),
            processes: try number("PDFGATE_CONVERTER_PROCESSES")
        )
        try setToolSlots(
            libreOffice: try number("PDFGATE_LIBREOFFICE_SLOTS"),
            chromium: try number("PDFGATE_CHROMIUM_SLOTS"),
            calibre: try number("PDFGATE_CALIBRE_SLOTS")
        )
        if let value = environment["PDFGATE_MAX_UPLOAD_BYTES"] {
            guard let bytes = Int64(value) else { throw ConfigurationError("PDFGATE_MAX_UPLOAD_BYTES '\(value)' is not a number") }
            maxUploadBytes = bytes
        }
    }

    /// `on` or `off` (also true/false), or the modules to keep (`chromium,pdfengines`), from
    /// `source` for the error message.
    public mutating func setGotenbergAPI(_ value: String, from source: String) throws(ConfigurationError) {
        switch value.lowercased() {
        case "on", "true", "1", "yes": gotenbergAPI = true
        case "off", "false", "0", "no": gotenbergAPI = false
        default:
            let names = value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let modules = names.compactMap(GotenbergModule.init(rawValue:))
            guard !names.isEmpty, modules.count == names.count else {
                let all = GotenbergModule.allCases.map(\.rawValue).joined(separator: ", ")
                throw ConfigurationError("\(source) must be on, off, or modules among \(all) (comma-separated), not '\(value)'")
            }
            gotenbergModules = Set(modules)
        }
    }

    /// Regular expressions checked when the server starts, so a typo is not a silent hole.
    public mutating func setURLPatterns(deny: [String], only: [String], from source: String) throws(ConfigurationError) {
        do {
            engine.urlPatterns = try URLPatterns(deny: deny, only: only)
        } catch {
            throw ConfigurationError("\(source): \(error.description)")
        }
    }

    /// Gotenberg's `--api-root-path`: a path that starts and ends with `/`.
    public mutating func setGotenbergRootPath(_ value: String, from source: String) throws(ConfigurationError) {
        let path = value.hasSuffix("/") ? value : value + "/"
        guard path.hasPrefix("/"), !path.contains("//"), path.allSatisfy({ $0.isLetter || $0.isNumber || "/-_.~".contains($0) }) else {
            throw ConfigurationError("\(source) must be a path such as /gotenberg/, not '\(value)'")
        }
        gotenbergRootPath = path
    }

    private mutating func setHeartbeat(_ seconds: Double, from source: String) throws(ConfigurationError) {
        guard seconds >= 0.1 && seconds <= 300 else {
            throw ConfigurationError("\(source) must be between 0.1 and 300 seconds, not \(seconds)")
        }
        heartbeat = .milliseconds(Int64(seconds * 1000))
    }

    /// `TYPE=BACKEND,…` on top of the current routes.
    public mutating func applyRoutes(_ text: String) throws(ConfigurationError) {
        do {
            let parsed = try BackendChoice.routes(parsing: text)
            let named = Set(text.split(separator: ",").compactMap { $0.split(separator: "=").first.map(String.init) })
            for (type, choice) in parsed where named.contains(type.rawValue) { engine.routes[type] = choice }
        } catch {
            throw ConfigurationError(error.message)
        }
    }
}
