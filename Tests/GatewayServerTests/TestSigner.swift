import Crypto
import Foundation

/// Signs like the server does (HMAC-SHA256 over method, path, expiry and cap), written out
/// again here so the test checks the scheme rather than reusing the code under test.
struct TestSigner {
    var id: String
    var secret: String

    func sign(method: String, path: String, exp: Int64, max: Int64?) -> String {
        let message = [method, path, String(exp), max.map(String.init) ?? "-"].joined(separator: "\n")
        let key = SymmetricKey(data: Data(base64Encoded: secret)!)
        let mac = Data(HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: key)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "kid=\(id)&exp=\(exp)" + (max.map { "&max=\($0)" } ?? "") + "&sig=\(mac)"
    }
}
