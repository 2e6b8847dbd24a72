import Foundation
import GatewayAssembly
import Testing

@testable import GatewayHTTPServing
@testable import GatewayServer

@Suite("Signed URLs")
struct URLSignerTests {
    static let old = SigningKey(id: "k1", secret: Data(repeating: 1, count: 32).base64EncodedString())
    static let new = SigningKey(id: "k2", secret: Data(repeating: 2, count: 32).base64EncodedString())

    static func query(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            result[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return result
    }

    @Test("rotation: URLs signed with the old key keep working while it is listed, and only then")
    func rotation() throws {
        let expires = Date().addingTimeInterval(600)
        let issued = URLSigner(keys: [Self.old]).sign(method: "GET", path: "/v1/downloads/a/b", expires: expires)
        #expect(Self.query(issued)["kid"] == "k1")
        let rotated = URLSigner(keys: [Self.new, Self.old])
        #expect(throws: Never.self) { try rotated.verify(method: "GET", path: "/v1/downloads/a/b", query: Self.query(issued)) }
        #expect(Self.query(rotated.sign(method: "GET", path: "/x", expires: expires))["kid"] == "k2", "the first key signs")
        let retired = URLSigner(keys: [Self.new])
        #expect(throws: URLSigner.Failure.badSignature) { try retired.verify(method: "GET", path: "/v1/downloads/a/b", query: Self.query(issued)) }
    }

    @Test("one signer signs many URLs at once, each verifying: its keyed HMAC is only ever copied")
    func concurrentSignatures() async throws {
        let signer = URLSigner(keys: [Self.old])
        let expires = Date().addingTimeInterval(600)
        let signed = await withTaskGroup(of: [(String, String)].self) { group in
            for task in 0..<8 {
                group.addTask {
                    (0..<200).map { index in
                        let path = "/v1/uploads/\(task)-\(index)"
                        return (path, signer.sign(method: "PUT", path: path, expires: expires, maxBytes: Int64(index)))
                    }
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(signed.count == 1_600)
        for (path, query) in signed {
            #expect(throws: Never.self) { try signer.verify(method: "PUT", path: path, query: Self.query(query)) }
        }
        // The same URL twice is signed the same: no state carried from one signature to the next.
        let once = signer.sign(method: "GET", path: "/a", expires: expires)
        _ = signer.sign(method: "GET", path: "/b", expires: expires)
        #expect(signer.sign(method: "GET", path: "/a", expires: expires) == once)
    }

    @Test("method, path, expiry and size cap are all covered; a bad MAC wins over expiry")
    func coverage() throws {
        let signer = URLSigner(keys: [Self.old])
        let now = Date()
        let query = Self.query(signer.sign(method: "PUT", path: "/v1/uploads/j", expires: now.addingTimeInterval(60), maxBytes: 100))
        #expect(try signer.verify(method: "PUT", path: "/v1/uploads/j", query: query, now: now).maxBytes == 100)
        #expect(throws: URLSigner.Failure.badSignature) { try signer.verify(method: "GET", path: "/v1/uploads/j", query: query, now: now) }
        #expect(throws: URLSigner.Failure.badSignature) { try signer.verify(method: "PUT", path: "/v1/uploads/k", query: query, now: now) }
        var bigger = query
        bigger["max"] = "1000"
        #expect(throws: URLSigner.Failure.badSignature) { try signer.verify(method: "PUT", path: "/v1/uploads/j", query: bigger, now: now) }
        var later = query
        later["exp"] = String(Int(now.timeIntervalSince1970) + 10_000)
        #expect(throws: URLSigner.Failure.badSignature) { try signer.verify(method: "PUT", path: "/v1/uploads/j", query: later, now: now) }
        #expect(throws: URLSigner.Failure.expired) {
            try signer.verify(method: "PUT", path: "/v1/uploads/j", query: query, now: now.addingTimeInterval(120))
        }
        var forgedAndExpired = query
        forgedAndExpired["sig"] = "AAAA"
        #expect(throws: URLSigner.Failure.badSignature) {
            try signer.verify(method: "PUT", path: "/v1/uploads/j", query: forgedAndExpired, now: now.addingTimeInterval(120))
        }
    }
}
