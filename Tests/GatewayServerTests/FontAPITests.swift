import Foundation
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayGotenbergAPI
@testable import GatewayServer

/// `GET /v1/fonts` through the router: the families the converters see, with their scripts,
/// and the Office families drawn with a stand-in.
@Suite("The fonts the converters draw with")
struct FontAPITests {
    @Test("the list names a family for every script and Calibri's metric-compatible stand-in")
    func fontsAreListed() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            let answer = try await client.execute(uri: "/v1/fonts", method: .get)
            #expect(answer.status == .ok, "\(answer.json)")
            let families = answer.json["families"] as? [[String: Any]] ?? []
            let scripts = Set(families.flatMap { $0["scripts"] as? [String] ?? [] })
            for script in ["Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Devanagari", "Thai", "Japanese", "Korean", "Emoji"] {
                #expect(scripts.contains(script), "no family covers \(script)")
            }
            let carlito = families.first { $0["family"] as? String == "Carlito" }
            #expect(
                carlito?["custom"] as? Bool == false && (carlito?["styles"] as? [String])?.contains("Bold") == true,
                "\(String(describing: carlito))"
            )
            let substitutes = answer.json["substitutes"] as? [[String: Any]] ?? []
            let calibri = substitutes.first { $0["family"] as? String == "Calibri" }
            #expect(
                calibri?["substitute"] as? String == "Carlito" && calibri?["metric_compatible"] as? Bool == true,
                "\(String(describing: calibri))"
            )
            #expect(substitutes.first { $0["family"] as? String == "MS Mincho" }?["substitute"] as? String == "Noto Serif CJK JP")
        }
    }
}

/// A document set in families this machine lacks: the job and Gotenberg's answer say which,
/// and what drew them.
@Suite("Substituted fonts are reported")
struct FontSubstitutionAPITests {
    @Test("a Word file in MS Mincho: Pdfgate-Warning on Gotenberg's answer, warnings on the job")
    func substitutionsAreWarned() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run(converting: true) { client in
            let answer = try await GotenbergAPITests.post(
                client,
                "/forms/libreoffice/convert",
                [.file("files", path: Fixtures.root + "/scripts/cjk.docx")]
            )
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            let said = answer.headers[values: .pdfgateWarning]
            #expect(said.contains { $0.contains("MS Mincho") && $0.contains("Noto Serif CJK JP") }, "\(said)")
            let job = try await client.execute(uri: "/v1/jobs/\(try #require(answer.headers[.pdfgateJobID]))", method: .get)
            let warnings = job.json["warnings"] as? [String] ?? []
            #expect(warnings.contains { $0.contains("Malgun Gothic") && $0.contains("Noto Sans CJK KR") }, "\(job.json)")
        }
    }
}
