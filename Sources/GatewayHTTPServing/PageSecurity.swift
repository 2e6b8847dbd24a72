import HTTPTypes

/// The headers of every HTML answer: the web page's (`WebController`) and Gotenberg's words
/// at `/`. Nothing runs or is framed but what this server sends, and nothing is sniffed.
package enum PageSecurity {
    /// Everything the page loads comes from this server; thumbnails arrive as `blob:` URLs
    /// (they need the bearer header, which an `<img src>` cannot send).
    package static let contentSecurityPolicy = [
        "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' blob: data:", "connect-src 'self'",
        "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'", "object-src 'none'",
    ].joined(separator: "; ")

    package static let headers: HTTPFields = [
        .contentSecurityPolicy: contentSecurityPolicy,
        HTTPField.Name("X-Frame-Options")!: "DENY",
        .xContentTypeOptions: "nosniff",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
        HTTPField.Name("Cross-Origin-Opener-Policy")!: "same-origin",
    ]
}
