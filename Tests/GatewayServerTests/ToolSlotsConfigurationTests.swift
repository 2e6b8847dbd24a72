import Foundation
import GatewayAssembly
import GatewayJobModel
import GatewayLocalConverters
import GatewayServer
import GatewaySettings
import GatewayStore
import GatewayTestSupport
import Logging
import Testing

/// The warm pools are sized by the operator: the file's `*_slots` keys, then the environment,
/// reach the local converter; a size that cannot work is refused naming the setting.
@Suite("Tool slots configuration")
struct ToolSlotsConfigurationTests {
    @Test func theFileThenTheEnvironmentSizeTheWarmPools() async throws {
        let directory = TemporaryDirectory("pdfgate-slots")
        let file = directory.file("config.json")
        try #"{"libreoffice_slots": 3, "chromium_slots": 5, "calibre_slots": 1}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let configuration = try ServerConfiguration.load(file: file, environment: ["PDFGATE_CHROMIUM_SLOTS": "4"])
        #expect(configuration.toolSlots.libreOffice == 3 && configuration.toolSlots.chromium == 4 && configuration.toolSlots.calibre == 1)
        #expect(try ServerConfiguration.load(file: nil, environment: [:]).toolSlots == ToolSlots())

        var engine = configuration.engine
        engine.store = directory.file("store")
        let assembly = try await EngineAssembly.open(engine, logger: Logger(label: "test"))
        let local = assembly.local.configuration
        #expect(local.libreOfficeSlots == 3 && local.chromiumSlots == 4 && local.calibreSlots == 1)
        await assembly.shutdown()
    }

    /// Assemblies in one process may share one set of warm tools: the lent converter is the
    /// one the assembly converts with, and it still converts after the assembly has shut down.
    @Test func aLentConverterServesTheAssemblyAndOutlivesIt() async throws {
        let directory = TemporaryDirectory("pdfgate-lent")
        let lent = try LocalConverter(configuration: .init())
        var engine = EngineConfiguration()
        engine.store = directory.file("store")
        let assembly = try await EngineAssembly.open(engine, logger: Logger(label: "test"), lentConverter: lent)
        #expect(assembly.local === lent)
        await assembly.shutdown()

        let page = directory.file("page.html")
        try "<h1>Still warm</h1>".write(toFile: page, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: directory.file("work"), withIntermediateDirectories: true)
        let request = ConversionRequest(
            jobID: UUID(),
            type: .docToPDF,
            source: .file(path: page, originalFilename: "page.html"),
            options: ConversionOptions(),
            workDirectory: directory.file("work"),
            outputPath: directory.file("out.pdf"),
            deadline: .now + .seconds(60)
        )
        try await lent.convert(request, events: { _ in })
        await lent.shutdown()
        #expect(try await run("pdftotext", [directory.file("out.pdf"), "-"]).stdout.contains("Still warm"))
    }

    @Test func aPoolThatCannotWorkIsRefusedNamingTheSetting() {
        for (name, value, words) in [("PDFGATE_LIBREOFFICE_SLOTS", "0", "LibreOffice slots"), ("PDFGATE_CALIBRE_SLOTS", "100", "Calibre slots")] {
            #expect {
                _ = try ServerConfiguration.load(file: nil, environment: [name: value])
            } throws: { error in
                (error as? ConfigurationError)?.message == "\(name) (\(words)) must be between 1 and 64, not \(value)"
            }
        }
        #expect(throws: ConfigurationError.self) { _ = try ServerConfiguration.load(file: nil, environment: ["PDFGATE_CHROMIUM_SLOTS": "two"]) }
    }
}
