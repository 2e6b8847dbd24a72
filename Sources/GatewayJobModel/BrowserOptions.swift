import Foundation

/// What a browser does with a web page before and while it prints it: Gotenberg 8's Chromium
/// options under our snake_case names. Only Chromium honours them (the local backend, and
/// Gotenberg's Chromium routes); on the wire they sit flat in `options`, beside the paper options.
/// Every field is optional and nil means Chromium's (or our) default.
public struct BrowserOptions: Sendable, Equatable, Codable {
    // MARK: Before printing

    /// Waits as Gotenberg's do, for its routes' jobs (`JobSpec.gotenbergSemantics`; never on
    /// the wire): `waitForExpression` must answer true or false, anything else (undefined, a
    /// text) failing at once, as chromedp's evaluation into a boolean does there.
    public var gotenbergWaits = false

    /// Seconds to wait once the page has settled (and any selector or expression came true).
    public var waitDelay: Double?
    /// A CSS selector: print once an element matching it is visible.
    public var waitForSelector: String?
    /// A JavaScript expression: print once it evaluates truthy (a promise is awaited).
    public var waitForExpression: String?
    /// The CSS media type the page sees (`Emulation.setEmulatedMedia`).
    public var emulatedMediaType: MediaType?
    /// CSS media features the page sees, e.g. `prefers-color-scheme: dark`,
    /// `prefers-reduced-motion: reduce`.
    public var emulatedMediaFeatures: [MediaFeature]?
    /// False: the page's scripts do not run (`Emulation.setScriptExecutionDisabled`).
    public var javaScript: Bool?
    /// Request headers for the page's origin, or for every URL `extraHTTPHeadersScope` matches.
    public var extraHTTPHeaders: [String: String]?
    /// A regular expression over request URLs: where `extraHTTPHeaders` go instead of the
    /// page's origin alone.
    public var extraHTTPHeadersScope: String?
    /// Cookies set before the page loads; without a domain, for the page's host only.
    public var cookies: [Cookie]?
    public var userAgent: String?

    // MARK: Printing

    /// Pages to keep, e.g. `1-3,5`; 1-based, as Chromium reads them.
    public var pageRanges: String?
    /// Rendering scale, 0.1 to 2.
    public var scale: Double?
    /// Let the page's CSS `@page` size win over the paper options.
    public var preferCSSPageSize: Bool?
    /// One page as tall as the content.
    public var singlePage: Bool?
    /// HTML for every page's header or footer; the classes `pageNumber`, `totalPages`, `title`,
    /// `url` and `date` are filled in by Chromium.
    public var headerHTML: String?
    public var footerHTML: String?
    public var generateTaggedPDF: Bool?
    /// Bookmarks from the page's headings (implies a tagged PDF, from which Chromium derives them).
    public var generateDocumentOutline: Bool?
    /// No default white page background: where the page paints none, the PDF is transparent
    /// (needs backgrounds printed; implies `print_background`).
    public var omitBackground: Bool?

    // MARK: Failing instead of printing

    /// The page's own HTTP statuses that fail the job; `X99` stands for the whole `X00`–`X99`
    /// class, as in Gotenberg (`499` is any 4xx).
    public var failOnHTTPStatusCodes: [Int]?
    /// The same for the page's subresources (images, scripts, styles, frames).
    public var failOnResourceHTTPStatusCodes: [Int]?
    /// Hosts whose resources `failOnResourceHTTPStatusCodes` leaves alone: a host matches a
    /// domain it equals or is under (`cdn.sentry.io` under `sentry.io`).
    public var ignoreResourceHTTPStatusDomains: [String]?
    /// Fail when a subresource could not be loaded at all.
    public var failOnResourceLoadingFailed: Bool?
    /// Fail when the page's JavaScript throws an uncaught exception.
    public var failOnConsoleExceptions: Bool?

    public init() {}

    /// One CSS media feature and its value, as `Emulation.setEmulatedMedia` takes them.
    public struct MediaFeature: Sendable, Equatable, Codable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// `ignoreResourceHTTPStatusDomains` as bare domains. Entries are read as Gotenberg reads
    /// them: `example.com`, `*.example.com`, `.example.com`, `example.com:443` or
    /// `https://example.com/path` all name `example.com`.
    public var ignoredResourceStatusDomains: [String] {
        (ignoreResourceHTTPStatusDomains ?? []).compactMap { entry in
            var domain = entry.trimmingCharacters(in: .whitespaces).lowercased()
            if let scheme = domain.range(of: "://") { domain = String(domain[scheme.upperBound...]) }
            if domain.hasPrefix("//") { domain.removeFirst(2) }
            domain = String(domain.prefix { $0 != "/" && $0 != ":" && $0 != "?" })
            while domain.hasPrefix("*") || domain.hasPrefix(".") { domain.removeFirst() }
            return domain.isEmpty ? nil : domain
        }
    }

    /// Whether `host` is one of `domains` or under one (`cdn.sentry.io` under `sentry.io`).
    public static func host(_ host: String, isUnder domains: [String]) -> Bool {
        let host = host.lowercased()
        return domains.contains { host == $0 || host.hasSuffix("." + $0) }
    }

    /// `screen` or `print`: the CSS `@media` the page is laid out for.
    public enum MediaType: String, Sendable, Equatable, Codable, CaseIterable {
        case screen, print
    }

    /// One cookie; `domain` nil means the page's host (a host-only cookie).
    public struct Cookie: Sendable, Equatable, Codable {
        public var name: String
        public var value: String
        public var domain: String?
        public var path: String?
        public var secure: Bool?
        public var httpOnly: Bool?
        public var sameSite: SameSite?

        public init(
            name: String,
            value: String,
            domain: String? = nil,
            path: String? = nil,
            secure: Bool? = nil,
            httpOnly: Bool? = nil,
            sameSite: SameSite? = nil
        ) {
            self.name = name
            self.value = value
            self.domain = domain
            self.path = path
            self.secure = secure
            self.httpOnly = httpOnly
            self.sameSite = sameSite
        }

        /// Spelled as Chromium's DevTools protocol (and Gotenberg) spell it.
        public enum SameSite: String, Sendable, Equatable, Codable, CaseIterable {
            case strict = "Strict"
            case lax = "Lax"
            case none = "None"
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case name, value, domain, path, secure
            case httpOnly = "http_only"
            case sameSite = "same_site"
        }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case waitDelay = "wait_delay"
        case waitForSelector = "wait_for_selector"
        case waitForExpression = "wait_for_expression"
        case emulatedMediaType = "emulated_media_type"
        case emulatedMediaFeatures = "emulated_media_features"
        case javaScript = "javascript"
        case extraHTTPHeaders = "extra_http_headers"
        case extraHTTPHeadersScope = "extra_http_headers_scope"
        case cookies
        case userAgent = "user_agent"
        case pageRanges = "page_ranges"
        case scale
        case preferCSSPageSize = "prefer_css_page_size"
        case singlePage = "single_page"
        case headerHTML = "header_html"
        case footerHTML = "footer_html"
        case generateTaggedPDF = "generate_tagged_pdf"
        case generateDocumentOutline = "generate_document_outline"
        case omitBackground = "omit_background"
        case failOnHTTPStatusCodes = "fail_on_http_status_codes"
        case failOnResourceHTTPStatusCodes = "fail_on_resource_http_status_codes"
        case ignoreResourceHTTPStatusDomains = "ignore_resource_http_status_domains"
        case failOnResourceLoadingFailed = "fail_on_resource_loading_failed"
        case failOnConsoleExceptions = "fail_on_console_exceptions"
    }

    /// Whether the page should run on the real clock before printing: something to wait for.
    public var waitsBeforePrinting: Bool {
        waitDelay != nil || waitForSelector != nil || waitForExpression != nil
    }

    /// Whether `code` is among `codes`, reading `X99` as the whole class.
    public static func status(_ code: Int, isIn codes: [Int]) -> Bool {
        codes.contains { $0 == code || ($0 % 100 == 99 && $0 / 100 == code / 100) }
    }
}
