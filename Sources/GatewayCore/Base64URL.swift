import Foundation

/// Base64url (RFC 4648 §5), unpadded: safe in URLs, headers and file names. Token secrets and
/// URL signatures both use it.
extension Data {
    public var base64URLEncoded: String {
        // Byte by byte: three `replacingOccurrences` went through NSString and cost a signed
        // URL (and so every poll of a job awaiting its upload) more than the HMAC did.
        let bytes = base64EncodedString().utf8.compactMap { byte -> UInt8? in
            switch byte {
            case UInt8(ascii: "+"): UInt8(ascii: "-")
            case UInt8(ascii: "/"): UInt8(ascii: "_")
            case UInt8(ascii: "="): nil
            default: byte
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes unpadded (or padded) base64url; nil when `text` is not base64url.
    public init?(base64URLEncoded text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}
