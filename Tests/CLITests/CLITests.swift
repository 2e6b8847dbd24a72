import Foundation
import GatewayTestSupport
import Testing

/// Runs the built `pdfgate` binary the way a shell user would.
struct CLI {
    let store: TemporaryDirectory
    /// `PDFGATE_DATABASE_URL` for every command: the library's rows in that PostgreSQL database.
    let environment: [String: String]?

    /// `extra` joins the environment of every command (a bucket's AWS variables).
    init(database: String? = nil, extra: [String: String] = [:]) {
        store = TemporaryDirectory("cli")
        var variables = database.map { ["PDFGATE_DATABASE_URL": $0] } ?? [:]
        variables.merge(extra) { _, new in new }
        environment = variables.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(variables) { _, new in new }
    }

    /// `inspect` works on a file and `fonts` on the system, not a store; every other command
    /// gets this test's store.
    func withStore(_ arguments: [String]) -> [String] {
        ["inspect", "fonts"].contains(arguments.first) ? arguments : arguments + ["--store", store.path + "/data"]
    }

    @discardableResult
    func callAsFunction(_ arguments: String...) async throws -> ProcessResult {
        try await run(builtProduct("pdfgate"), withStore(arguments), environment: environment)
    }

    /// Runs and decodes `--json` output.
    func json(_ arguments: String...) async throws -> Any { try await json(arguments) }

    func json(_ arguments: [String]) async throws -> Any {
        let result = try await run(builtProduct("pdfgate"), withStore(arguments) + ["--json"], environment: environment)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }
}

@Suite("pdfgate CLI")
struct CLITests {
    @Test func inspectPrintsEveryKey() async throws {
        let cli = CLI()
        let info = try #require(try await cli.json("inspect", Fixtures.pdf("one-page.pdf")) as? [String: Any])
        let keys: Set<String> = [
            "page_count", "title", "author", "subject", "keywords", "creator", "producer", "created_at", "modified_at",
            "pdf_version", "page_width", "page_height", "encrypted", "linearized", "pdfa", "warning",
        ]
        #expect(Set(info.keys) == keys)
        #expect(info["page_count"] as? Int == (try await pdfinfoPageCount(Fixtures.pdf("one-page.pdf"))))
        #expect(info["title"] as? String == "One Page Fixture")
        #expect(info["created_at"] as? String == "2024-01-02T03:04:05.000Z")
    }

    @Test func inspectWritesAThumbnail() async throws {
        let cli = CLI()
        let png = cli.store.file("thumb.png")
        let result = try await cli("inspect", Fixtures.pdf("many-pages.pdf"), "--thumbnail", png, "--width", "120")
        #expect(result.status == 0, "\(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: png))
        #expect(data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let width = data[16..<20].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 120)
    }

    @Test(arguments: [
        ("not-a-pdf.pdf", "not_a_pdf"), ("empty.pdf", "not_a_pdf"), ("truncated.pdf", "damaged"), ("encrypted.pdf", "encrypted"),
    ])
    func inspectErrorsAreTypedAndExplained(_ fixture: String, _ code: String) async throws {
        let cli = CLI()
        let result = try await cli("inspect", Fixtures.pdf(fixture), "--json")
        #expect(result.status == 1)
        let error = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String])
        #expect(error["error"] == code)
        #expect((error["error_message"] ?? "").count > 20)
        #expect(result.stderr.contains(code), "the message goes to stderr too")
    }

    @Test func libraryRoundTrip() async throws {
        let cli = CLI()
        let added = try #require(
            try await cli.json("add", Fixtures.pdf("one-page.pdf"), Fixtures.pdf("many-pages.pdf"), "--folder", "Invoices/2026") as? [[String: Any]]
        )
        #expect(added.count == 2)
        let first = added[0]
        for key in ["id", "name", "folder", "path", "page_count", "size", "sha256", "created_at", "updated_at", "metadata"] {
            #expect(first[key] != nil, "add --json has \(key)")
        }
        #expect(first["path"] as? String == "default/Invoices/2026/one-page.pdf")
        #expect(FileManager.default.fileExists(atPath: cli.store.path + "/data/default/Invoices/2026/one-page.pdf"))
        let id = try #require(first["id"] as? String)

        let renamed = try #require(try await cli.json("rename", id, "Renamed") as? [String: Any])
        #expect(renamed["id"] as? String == id && renamed["name"] as? String == "Renamed")
        let moved = try #require(try await cli.json("mv", id, "Archive") as? [String: Any])
        #expect(moved["id"] as? String == id && moved["path"] as? String == "default/Archive/Renamed.pdf")
        let info = try #require(try await cli.json("info", id) as? [String: Any])
        #expect(info["folder"] as? String == "Archive")

        let listing = try #require(try await cli.json("ls", "--recursive", "--sort", "-page_count") as? [String: Any])
        let documents = try #require(listing["documents"] as? [[String: Any]])
        #expect(documents.map { $0["page_count"] as? Int } == [12, 1])
        #expect((listing["folders"] as? [Any])?.count == 3)

        let paged = try #require(try await cli.json("ls", "--recursive", "--limit", "1") as? [String: Any])
        let cursor = try #require(paged["next_cursor"] as? String)
        let second = try #require(try await cli.json("ls", "--recursive", "--limit", "1", "--cursor", cursor) as? [String: Any])
        #expect(
            (second["documents"] as? [[String: Any]])?.first?["id"] as? String != (paged["documents"] as? [[String: Any]])?.first?["id"] as? String
        )

        #expect(try await cli("rmdir", "Invoices").status == 1, "not empty")
        #expect(try await cli("rmdir", "Invoices", "--recursive").status == 0)
        #expect(try await cli("rm", id).status == 0)
        let info2 = try await cli("info", id)
        #expect(info2.status == 1 && info2.stderr.contains("document_not_found"))
        let fsck = try #require(try await cli.json("fsck") as? [String: Any])
        #expect(fsck["clean"] as? Bool == true)
    }

    @Test func conflictsAndBadInputExitNonZeroWithAMessage() async throws {
        let cli = CLI()
        #expect(try await cli("add", Fixtures.pdf("one-page.pdf"), "--name", "Same").status == 0)
        let clash = try await cli("add", Fixtures.pdf("one-page.pdf"), "--name", "Same")
        #expect(clash.status == 1 && clash.stderr.contains("name_conflict") && clash.stderr.contains("on_conflict"))
        let renamed = try #require(
            try await cli.json("add", Fixtures.pdf("one-page.pdf"), "--name", "Same", "--on-conflict", "rename") as? [[String: Any]]
        )
        #expect(renamed.first?["name"] as? String == "Same 01")
        let bad = try await cli("add", Fixtures.pdf("not-a-pdf.pdf"))
        #expect(bad.status == 1 && bad.stderr.contains("not_a_pdf"))
        #expect(try await cli("info", "not-an-id").stderr.contains("invalid_argument"))
        #expect(try await cli("ls", "--sort", "colour").stderr.contains("invalid_sort"))
    }

    @Test func fsckAdoptsADroppedPDF() async throws {
        let cli = CLI()
        try await cli("mkdir", "Inbox")
        try FileManager.default.copyItem(atPath: Fixtures.pdf("linearized.pdf"), toPath: cli.store.path + "/data/default/Inbox/scan.pdf")
        let found = try await cli("fsck")
        #expect(found.status == 1 && found.stdout.contains("untracked_file"))
        #expect(try await cli("fsck", "--repair").status == 0)
        let listing = try #require(try await cli.json("ls", "Inbox") as? [String: Any])
        #expect((listing["documents"] as? [[String: Any]])?.first?["name"] as? String == "scan")
        #expect(try await cli("fsck").status == 0)
    }

    /// A mistyped id must fail before anything changes: the destination is not created.
    @Test func mvOfAnUnknownTargetCreatesNothing() async throws {
        let cli = CLI()
        try await cli("mkdir", "Existing")
        for target in [UUID().uuidString, "NoSuchFolder"] {
            let result = try await cli("mv", target, "NewDir")
            #expect(result.status == 1, "\(target): \(result.stdout)")
            #expect(result.stderr.contains("not_found"), "\(result.stderr)")
        }
        let listing = try #require(try await cli.json("ls", "--recursive") as? [String: Any])
        let folders = try #require(listing["folders"] as? [[String: Any]])
        #expect(folders.compactMap { $0["path"] as? String } == ["Existing"])
    }

    /// Plain `fsck` only looks: debris of an interrupted filing is reported and left in place
    /// until `--repair`.
    @Test func fsckReportsLeftoversAndOnlyRepairRemovesThem() async throws {
        let cli = CLI()
        try await cli("mkdir", "Inbox")
        let leftover = cli.store.path + "/data/.pdfgate/filing/" + UUID().uuidString.lowercased() + ".pdf"
        try FileManager.default.copyItem(atPath: Fixtures.pdf("one-page.pdf"), toPath: leftover)
        let found = try await cli("fsck")
        #expect(found.status == 1 && found.stdout.contains("leftover"), "\(found.stdout)")
        #expect(FileManager.default.fileExists(atPath: leftover), "fsck without --repair changes nothing")
        #expect(try await cli("fsck", "--repair").status == 0)
        #expect(!FileManager.default.fileExists(atPath: leftover))
        #expect(try await cli("fsck").status == 0)
    }

    @Test func storeComesFromTheEnvironment() async throws {
        let store = TemporaryDirectory("cli-env")
        let result = try await run(
            builtProduct("pdfgate"),
            ["add", Fixtures.pdf("one-page.pdf")],
            environment: ["PDFGATE_STORE": store.path + "/env-store"]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: store.path + "/env-store/default/one-page.pdf"))
    }

    /// `serve`'s settings table, read by the CLI too: the file `PDFGATE_CONFIG` names, under
    /// the environment, under the flags; and a key no setting has is refused the same way.
    @Test func settingsComeFromServesTable() async throws {
        let dir = TemporaryDirectory("cli-config")
        let config = dir.file("pdfgate.json")
        try Data(#"{"store": "\#(dir.path)/file-store"}"#.utf8).write(to: URL(fileURLWithPath: config))
        let filed = try await run(builtProduct("pdfgate"), ["add", Fixtures.pdf("one-page.pdf")], environment: ["PDFGATE_CONFIG": config])
        #expect(filed.status == 0, "\(filed.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.path + "/file-store/default/one-page.pdf"))

        let overridden = try await run(
            builtProduct("pdfgate"),
            ["add", Fixtures.pdf("one-page.pdf")],
            environment: ["PDFGATE_CONFIG": config, "PDFGATE_STORE": dir.path + "/env-store"]
        )
        #expect(overridden.status == 0, "\(overridden.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.path + "/env-store/default/one-page.pdf"), "the environment wins over the file")

        try Data(#"{"stor": "x"}"#.utf8).write(to: URL(fileURLWithPath: config))
        let refused = try await run(builtProduct("pdfgate"), ["ls"], environment: ["PDFGATE_CONFIG": config])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("stor") && refused.stderr.contains("store"), "names the key and the setting it resembles: \(refused.stderr)")
    }
}
