import Foundation
import GatewayEngine
import GatewayHTTPClient
import GatewayJobModel
import GatewayLibraryModel
import GatewayLocalConverters
import GatewayPDF
import GatewayStore

/// `/readyz`: can this gateway do its work right now? The store must take a write, the PDF
/// inspector must start and read a PDF, and every
/// configured backend must answer (remote ones over HTTP; local ones by starting the tools of
/// the job types routed to them). Answers name no file system path when all is well: the route is
/// public, and a path says more about the machine than a prober needs.
public struct Readiness: Sendable {
    public struct Check: Encodable, Sendable {
        public var ok: Bool
        public var message: String
    }

    let library: any DocumentLibrary
    let inspector: PDFInspectorPool
    let routes: [JobType: BackendChoice]
    let local: LocalConverter
    let engine: JobEngine
    let client = HTTPClient(configuration: .init(connectTimeout: .seconds(2), totalTimeout: .seconds(3), proxy: .direct))

    /// Every check by name (`store`, `inspector`, `local.sandbox`, a backend's…).
    public func run() async -> [String: Check] {
        var checks: [String: Check] = await ["store": storeCheck()]
        let inspectorProblem = await inspector.selfCheck()
        checks["inspector"] = Check(ok: inspectorProblem == nil, message: inspectorProblem ?? "answers")
        var seen = Set<String>()
        let localTypes = Set(routes.filter { $0.value == .local }.keys)
        for choice in routes.values where seen.insert(choice.description).inserted {
            switch choice {
            case .local:
                let sandboxProblem = await local.sandboxProblem()
                let sealed = local.configuration.sandbox.isSealed
                checks["local.sandbox"] = Check(
                    ok: sandboxProblem == nil,
                    message: sandboxProblem ?? (sealed ? "bubblewrap: no network, read-only system, limits" : "off (--unsandboxed-converters)")
                )
                for tool in Set(localTypes.flatMap(LocalConverter.tools(for:))).sorted() {
                    let problem = await local.toolProblem(tool)
                    checks["local.\(tool.rawValue)"] = Check(ok: problem == nil, message: problem ?? "starts")
                }
                // `ocr` runs wherever PDF operations do; its languages are what a client may ask for.
                if localTypes.contains(.pdfToPDF) {
                    let (problem, languages) = await local.pdfTools.ocr.problem()
                    checks["local.tesseract"] = Check(
                        ok: problem == nil,
                        message: problem ?? "starts; languages: \(languages.joined(separator: ", "))"
                    )
                }
            case .gotenberg(let url): checks["gotenberg"] = await httpCheck(url + "/health")
            case .gateway(let url): checks["gateway"] = await httpCheck(url + "/healthz")
            }
        }
        // A type this node stopped taking because its converter cannot start.
        for (type, outage) in engine.outages.current {
            checks["jobs.\(type.rawValue)"] = Check(ok: false, message: "this node takes no \(type.rawValue) jobs: \(outage.failure.message)")
        }
        return checks
    }

    private func storeCheck() async -> Check {
        let probe = library.metaDirectory + "/.ready-\(getpid())-\(UUID().uuidString.prefix(8))"
        guard FileManager.default.createFile(atPath: probe, contents: Data("ok".utf8)) else {
            return Check(ok: false, message: "cannot write in \(library.metaDirectory)")
        }
        unlink(probe)
        do {
            try await library.ping()
            return Check(ok: true, message: "writable")
        } catch {
            return Check(ok: false, message: "the database does not answer: \(error)")
        }
    }

    private func httpCheck(_ url: String) async -> Check {
        do {
            let response = try await client.execute(HTTPRequest(url: url), sink: .memory(limit: 64 * 1024))
            return Check(ok: (200..<300).contains(response.status), message: "\(url) answered \(response.status)")
        } catch {
            return Check(ok: false, message: "\(url): \(error)")
        }
    }
}
