import HTTPTypes

/// WebDAV's methods (RFC 4918, RFC 6578), which HTTPTypes does not name, for the router tests.
extension HTTPRequest.Method {
    static let propfind = HTTPRequest.Method("PROPFIND")!
    static let move = HTTPRequest.Method("MOVE")!
    static let lock = HTTPRequest.Method("LOCK")!
    static let unlock = HTTPRequest.Method("UNLOCK")!
    static let mkcol = HTTPRequest.Method("MKCOL")!
    static let report = HTTPRequest.Method("REPORT")!
}
