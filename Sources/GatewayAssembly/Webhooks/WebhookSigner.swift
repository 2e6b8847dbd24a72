import Crypto
import Foundation

/// Standard Webhooks signatures (standardwebhooks.com): HMAC-SHA256 over
/// `"<webhook-id>.<webhook-timestamp>.<body>"` with the secret's bytes (the base64 after
/// `whsec_`), sent as `webhook-signature: v1,<base64>`.
public struct WebhookSigner: Sendable {
    /// The key's bytes; a `SymmetricKey` is made per use because it is not `Sendable`.
    let secret: Data
    var key: SymmetricKey { SymmetricKey(data: secret) }

    public init(secret: String) {
        let encoded = secret.hasPrefix("whsec_") ? String(secret.dropFirst(6)) : secret
        self.secret = Data(base64Encoded: encoded) ?? Data(secret.utf8)
    }

    public func signature(id: String, timestamp: Int64, body: Data) -> String {
        var message = Data("\(id).\(timestamp).".utf8)
        message.append(body)
        return "v1," + Data(HMAC<SHA256>.authenticationCode(for: message, using: key)).base64EncodedString()
    }

    /// The same over a file's bytes, read in chunks: a webhook may carry a large PDF.
    public func signature(id: String, timestamp: Int64, file path: String) throws -> String {
        var mac = HMAC<SHA256>(key: key)
        mac.update(data: Data("\(id).\(timestamp).".utf8))
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { mac.update(data: chunk) }
        return "v1," + Data(mac.finalize()).base64EncodedString()
    }

    /// What a receiver does: true when any `v1,` signature in the header matches.
    public func verify(id: String, timestamp: Int64, body: Data, header: String) -> Bool {
        var message = Data("\(id).\(timestamp).".utf8)
        message.append(body)
        return header.split(separator: " ").contains { candidate in
            guard candidate.hasPrefix("v1,"), let mac = Data(base64Encoded: String(candidate.dropFirst(3))) else { return false }
            return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: message, using: key)
        }
    }
}
