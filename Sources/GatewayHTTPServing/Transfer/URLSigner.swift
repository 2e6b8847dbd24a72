import Crypto
import Foundation
import GatewayAssembly

/// Signs and checks the upload and download URLs of DESIGN §3.1.
///
/// The MAC covers method, path, expiry and (uploads) the size cap, so none of them can be
/// changed without breaking it; `kid` names the key, so keys rotate without breaking URLs
/// already handed out.
public struct URLSigner: Sendable {
    public enum Failure: Error, Equatable {
        /// 403: missing parameters, unknown key, or a MAC that does not match.
        case badSignature
        /// 410: a genuine URL past its expiry.
        case expired
    }

    /// What a verified URL grants.
    public struct Grant: Sendable, Equatable {
        public var expires: Date
        public var maxBytes: Int64?
    }

    let keys: [SigningKey]
    /// Key bytes by id; a `SymmetricKey` is made per use because it is not `Sendable`.
    private let secrets: [String: Data]
    /// The signing key's HMAC with the key already absorbed: each signature starts from a copy
    /// instead of keying afresh (every poll of a CREATED job signs its upload URL).
    private let signing: KeyedMAC

    /// The first key signs; every key verifies.
    public init(keys: [SigningKey]) {
        precondition(!keys.isEmpty, "URLSigner needs a key")
        self.keys = keys
        var secrets: [String: Data] = [:]
        for key in keys { secrets[key.id] = Data(base64Encoded: key.secret) ?? Data(key.secret.utf8) }
        self.secrets = secrets
        signing = KeyedMAC(HMAC<SHA256>(key: SymmetricKey(data: secrets[keys[0].id]!)))
    }

    /// The query string (without `?`) that makes `method path` valid until `expires`.
    public func sign(method: String, path: String, expires: Date, maxBytes: Int64? = nil) -> String {
        let key = keys[0]
        let exp = Int64(expires.timeIntervalSince1970.rounded(.up))
        var hmac = signing.keyed
        var message = Self.message(method: method, path: path, exp: exp, max: maxBytes)
        message.withUTF8 { hmac.update(data: UnsafeRawBufferPointer($0)) }
        let mac = hmac.finalize()
        var query = "kid=\(key.id)&exp=\(exp)"
        if let maxBytes { query += "&max=\(maxBytes)" }
        return query + "&sig=" + Data(mac).base64URLEncoded
    }

    /// Checks a request's query parameters; a bad MAC wins over an expired one, so a forged
    /// URL never learns anything from the answer.
    public func verify(method: String, path: String, query: [String: String], now: Date = Date()) throws(Failure) -> Grant {
        guard let kid = query["kid"], let secret = secrets[kid], let expText = query["exp"], let exp = Int64(expText),
            let sig = query["sig"], let mac = Data(base64URLEncoded: sig)
        else { throw .badSignature }
        var maxBytes: Int64?
        if let maxText = query["max"] {
            guard let value = Int64(maxText) else { throw .badSignature }
            maxBytes = value
        }
        let message = Data(Self.message(method: method, path: path, exp: exp, max: maxBytes).utf8)
        // Constant time: swift-crypto compares MACs without an early exit.
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: message, using: SymmetricKey(data: secret)) else { throw .badSignature }
        let expires = Date(timeIntervalSince1970: TimeInterval(exp))
        guard now < expires else { throw .expired }
        return Grant(expires: expires, maxBytes: maxBytes)
    }

    static func message(method: String, path: String, exp: Int64, max: Int64?) -> String {
        [method.uppercased(), path, String(exp), max.map(String.init) ?? "-"].joined(separator: "\n")
    }
}

/// An HMAC already keyed, shared read-only: `HMAC` is not marked `Sendable`, but a copy of it
/// is independent (its hash states are copy-on-write), and this one is only ever copied.
private struct KeyedMAC: @unchecked Sendable {
    let keyed: HMAC<SHA256>

    init(_ keyed: HMAC<SHA256>) {
        self.keyed = keyed
    }
}
