import Foundation
import GatewayAssembly
import GatewayServer
import GatewaySettings
import GatewayTestSupport
import Testing

/// `pdfgate serve`'s settings are declared once (a table): the same value reaches the same
/// configuration from the JSON file, the environment and the flags, the stronger source wins,
/// and a name no setting has is refused with the one it resembles.
@Suite("Settings, declared once")
struct SettingsTableTests {
    /// A value per setting that has all three spellings, as the file, the environment and a flag write it.
    static let samples: [(file: String, environment: String, flag: String, value: String, check: @Sendable (ServerConfiguration) -> Bool)] = [
        ("\"port\": 9090", "PDFGATE_PORT", "--port", "9090", { $0.port == 9090 }),
        ("\"lease_seconds\": 7", "PDFGATE_LEASE_SECONDS", "--lease", "7", { $0.lease == .seconds(7) }),
        ("\"node\": \"n1\"", "PDFGATE_NODE", "--node", "n1", { $0.node == "n1" }),
        ("\"log_level\": \"debug\"", "LOG_LEVEL", "--log-level", "debug", { $0.logLevel == "debug" }),
        ("\"max_active_jobs_per_owner\": 5", "PDFGATE_MAX_ACTIVE_JOBS", "--max-active-jobs", "5", { $0.maxActiveJobsPerOwner == 5 }),
        ("\"job_creations_per_minute\": 9", "PDFGATE_JOBS_PER_MINUTE", "--jobs-per-minute", "9", { $0.jobCreationsPerMinute == 9 }),
        ("\"shutdown_grace_seconds\": 2.5", "PDFGATE_SHUTDOWN_GRACE", "--shutdown-grace", "2.5", { $0.shutdownGrace == .milliseconds(2500) }),
        ("\"max_upload_bytes\": 1024", "PDFGATE_MAX_UPLOAD_BYTES", "--max-upload-bytes", "1024", { $0.maxUploadBytes == 1024 }),
        ("\"gotenberg_root_path\": \"/g/\"", "PDFGATE_GOTENBERG_ROOT_PATH", "--gotenberg-root-path", "/g/", { $0.gotenbergRootPath == "/g/" }),
        ("\"gotenberg_api\": \"chromium\"", "PDFGATE_GOTENBERG_API", "--gotenberg-api", "chromium", { $0.gotenbergModules == [.chromium] }),
        (
            "\"allow_hosts\": [\"a.test\", \"b.test\"]", "PDFGATE_URL_ALLOWLIST", "--allow-host", "a.test,b.test",
            { $0.urlAllowList == ["a.test", "b.test"] }
        ),
        (
            "\"routes\": {\"URL_TO_PDF\": \"gotenberg=http://127.0.0.1:3000\"}", "PDFGATE_ROUTES", "--routes",
            "URL_TO_PDF=gotenberg=http://127.0.0.1:3000",
            { $0.routes[.urlToPDF] == .gotenberg("http://127.0.0.1:3000") && $0.routes[.docToPDF] == .local }
        ),
    ]

    @Test func eachSourceGivesTheSameConfiguration() throws {
        let directory = TemporaryDirectory("pdfgate-settings")
        for sample in Self.samples {
            let file = directory.file("settings.json")
            try "{\(sample.file)}".write(toFile: file, atomically: true, encoding: .utf8)
            let fromFile = try ServerConfiguration.load(file: file, environment: [:])
            let fromEnvironment = try ServerConfiguration.load(environment: [sample.environment: sample.value])
            // A list's flag is repeated rather than comma-separated.
            let flagValues = sample.flag == "--allow-host" ? sample.value.split(separator: ",").map(String.init) : [sample.value]
            let fromFlags = try ServerConfiguration.load(environment: [:], arguments: flagValues.flatMap { [sample.flag, $0] })
            #expect(sample.check(fromFile), "file: \(sample.file)")
            #expect(sample.check(fromEnvironment), "environment: \(sample.environment)")
            #expect(sample.check(fromFlags), "flag: \(sample.flag)")
            #expect(!sample.check(try ServerConfiguration.load(environment: [:])), "the default is not the sample: \(sample.flag)")
        }
    }

    @Test func theStrongerSourceWins() throws {
        let directory = TemporaryDirectory("pdfgate-settings")
        let file = directory.file("settings.json")
        try #"{"port": 1000, "store": "/from/file", "unsandboxed_converters": true}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let loaded = try ServerConfiguration.load(
            environment: ["PDFGATE_CONFIG": file, "PDFGATE_PORT": "2000", "PDFGATE_STORE": "/from/environment"],
            arguments: ["--port=3000", "--log-level", "debug"]
        )
        #expect(loaded.port == 3000 && loaded.store == "/from/environment" && loaded.unsandboxedConverters && loaded.logLevel == "debug")
        #expect(loaded.configurationFile == file)
        #expect(try ServerConfiguration.load(environment: [:], arguments: ["--unsandboxed-converters"]).unsandboxedConverters)
    }

    @Test func aNameNoSettingHasIsRefusedWithTheOneItResembles() throws {
        let directory = TemporaryDirectory("pdfgate-settings")
        let file = directory.file("settings.json")
        try #"{"lease": 3}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect {
            _ = try ServerConfiguration.load(file: file, environment: [:])
        } throws: { error in
            (error as? ConfigurationError)?.message.contains("'lease' is not a setting; did you mean lease_seconds?") == true
        }
        #expect {
            _ = try ServerConfiguration.load(environment: [:], arguments: ["--allow-hosts", "a"])
        } throws: { error in
            (error as? ConfigurationError)?.message.contains("did you mean --allow-host?") == true
        }
        #expect {
            _ = try ServerConfiguration.load(environment: ["LOG_LEVEL": "loud"])
        } throws: { error in
            (error as? ConfigurationError)?.message == "LOG_LEVEL must be trace, debug, info, notice, warning or error, not 'loud'"
        }
        #expect {
            _ = try ServerConfiguration.load(environment: [:], arguments: ["--port"])
        } throws: { error in
            (error as? ConfigurationError)?.message == "--port needs a value"
        }
        #expect {
            _ = try ServerConfiguration.load(environment: ["PDFGATE_LEASE_SECONDS": "1"])
        } throws: { error in
            (error as? ConfigurationError)?.message == "PDFGATE_LEASE_SECONDS must be between 2 and 600 seconds, not 1"
        }
    }
}
