import Foundation
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

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
