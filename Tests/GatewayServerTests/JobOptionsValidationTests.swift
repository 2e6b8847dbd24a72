import Foundation
import GatewayTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import GatewayServer

/// A create whose `options` are wrong is refused before anything is stored, with a stable code
/// and a message naming the key and what it takes — JSON and one-shot creates alike.
@Suite("job options are checked at create time")
struct JobOptionsValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        /// The `options` object, as JSON text.
        var options: String
        var status: HTTPResponse.Status
        var code: String
        /// Words the message must contain.
        var mentions: [String]
        var testDescription: String { "\(code): \(options)" }
    }

    static let cases: [Case] = [
        Case(options: #"{"scael": 0.5}"#, status: .badRequest, code: "unknown_option", mentions: ["scael", "scale", "wait_for_selector"]),
        Case(options: #"{"scale": 3}"#, status: .badRequest, code: "invalid_options", mentions: ["options.scale", "0.1 to 2"]),
        Case(options: #"{"scale": "big"}"#, status: .badRequest, code: "invalid_options", mentions: ["options.scale", "a number"]),
        // Well-formed as the spec's pattern says, but backwards (a schemathesis finding): 422.
        Case(
            options: #"{"page_ranges": "3-1"}"#,
            status: .unprocessableContent,
            code: "invalid_page_range",
            mentions: ["options.page_ranges", "1-3"]
        ),
        Case(options: #"{"page_ranges": "one"}"#, status: .badRequest, code: "invalid_options", mentions: ["page_ranges"]),
        Case(
            options: #"{"emulated_media_type": "tv"}"#,
            status: .badRequest,
            code: "invalid_options",
            mentions: ["emulated_media_type", "screen", "print"]
        ),
        Case(options: #"{"wait_delay": -1}"#, status: .badRequest, code: "invalid_options", mentions: ["wait_delay", "3600"]),
        Case(options: #"{"extra_http_headers": {"X-A": 1}}"#, status: .badRequest, code: "invalid_options", mentions: ["extra_http_headers"]),
        Case(options: #"{"extra_http_headers": {"Host": "evil"}}"#, status: .unprocessableContent, code: "forbidden_header", mentions: ["Host"]),
        Case(options: #"{"cookies": [{"name": "a"}]}"#, status: .badRequest, code: "invalid_options", mentions: ["cookies", "value"]),
        Case(
            options: #"{"cookies": [{"name": "a", "value": "b", "expires": 1}]}"#,
            status: .badRequest,
            code: "unknown_option",
            mentions: ["expires", "same_site"]
        ),
        Case(options: #"{"fail_on_http_status_codes": [404, 700]}"#, status: .badRequest, code: "invalid_options", mentions: ["700", "499"]),
        Case(options: #"{"user_agent": "a\nb"}"#, status: .badRequest, code: "invalid_options", mentions: ["user_agent"]),
        Case(
            options: #"{"single_page": true, "page_ranges": "1"}"#,
            status: .unprocessableContent,
            code: "conflicting_options",
            mentions: ["single_page", "page_ranges"]
        ),
        Case(
            options: #"{"omit_background": true, "print_background": false}"#,
            status: .unprocessableContent,
            code: "conflicting_options",
            mentions: ["omit_background", "print_background"]
        ),
        Case(
            options: #"{"extra_http_headers_scope": "^https://"}"#,
            status: .unprocessableContent,
            code: "conflicting_options",
            mentions: ["extra_http_headers"]
        ),
    ]

    @Test("a JSON create with bad options is refused and nothing is stored", arguments: cases)
    func jsonCreate(_ bad: Case) async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            let options = try JSONSerialization.jsonObject(with: Data(bad.options.utf8))
            let answer = try await client.send(.post, "/v1/jobs", json: ["type": "URL_TO_PDF", "url": "https://example.com/", "options": options])
            #expect(answer.status == bad.status && answer.error.code == bad.code, "\(answer.status) \(answer.json)")
            for word in bad.mentions { #expect(answer.error.message?.contains(word) == true, "mentions \(word): \(answer.json)") }
            let listed = try await client.send(.get, "/v1/jobs").json["jobs"] as? [Any]
            #expect(listed?.isEmpty == true, "nothing was filed: \(String(describing: listed))")
        }
    }

    @Test("a one-shot create checks its option fields and its options part the same way")
    func oneShotCreate() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            let html = Array("<p>x</p>".utf8)
            let scale = try await client.send(.post, "/v1/jobs?filename=a.html&scale=5", bytes: html, contentType: "text/html")
            #expect(scale.status == .badRequest && scale.error.code == "invalid_options", "\(scale.json)")
            #expect(scale.error.message?.contains("scale") == true)

            let media = try await client.send(.post, "/v1/jobs?filename=a.html&emulated_media_type=tv", bytes: html, contentType: "text/html")
            #expect(media.status == .badRequest && media.error.code == "invalid_options", "\(media.json)")

            let form = try FormPart.encode([.text("options", #"{"singel_page": true}"#), .file("file", path: Fixtures.office("sample.html"))])
            let unknown = try await client.send(.post, "/v1/jobs", bytes: form.bytes, contentType: form.contentType)
            #expect(unknown.status == .badRequest && unknown.error.code == "unknown_option", "\(unknown.json)")
            #expect(unknown.error.message?.contains("singel_page") == true)

            let conflict = try await client.send(
                .post,
                "/v1/jobs?filename=a.html&single_page=true&page_ranges=2",
                bytes: html,
                contentType: "text/html"
            )
            #expect(conflict.status == .unprocessableContent && conflict.error.code == "conflicting_options", "\(conflict.json)")

            let listed = try await client.send(.get, "/v1/jobs").json["jobs"] as? [Any]
            #expect(listed?.isEmpty == true, "nothing was filed: \(String(describing: listed))")
        }
    }

    @Test("good options are taken as sent and shown on the job")
    func goodOptionsAreKept() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            let options: [String: Any] = [
                "scale": 0.8, "page_ranges": "1-2", "emulated_media_type": "screen", "wait_for_selector": "#ready",
                "extra_http_headers": ["X-Token": "t"], "cookies": [["name": "s", "value": "1", "same_site": "lax"]],
                "fail_on_http_status_codes": [499, 599],
            ]
            let created = try await client.send(.post, "/v1/jobs", json: ["type": "URL_TO_PDF", "url": "https://example.com/", "options": options])
            #expect(created.status == .created, "\(created.json)")
            let shown = created.json["options"] as? [String: Any]
            #expect(shown?["scale"] as? Double == 0.8 && shown?["page_ranges"] as? String == "1-2", "\(created.json)")
            #expect((shown?["extra_http_headers"] as? [String: String]) == ["X-Token": "t"], "header names keep their case: \(created.json)")
            #expect(((shown?["cookies"] as? [[String: Any]])?.first?["same_site"] as? String) == "Lax")
        }
    }
}
