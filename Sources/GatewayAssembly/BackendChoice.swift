import GatewayJobModel
import GatewayLibraryModel

/// Which backend converts, as a person writes it: `local`, `gotenberg=URL` or `gateway=URL`.
public enum BackendChoice: Equatable, Sendable {
    case local
    case gotenberg(String)
    case gateway(String)

    public init(parsing text: String) throws(LibraryError) {
        if text == "local" {
            self = .local
            return
        }
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[1].hasPrefix("http://") || parts[1].hasPrefix("https://") else {
            throw LibraryError(
                .invalidArgument,
                "converter '\(text)' is not understood; use local, gotenberg=http://host:3000 or gateway=http://host:8080"
            )
        }
        switch parts[0] {
        case "gotenberg": self = .gotenberg(parts[1])
        case "gateway": self = .gateway(parts[1])
        default: throw LibraryError(.invalidArgument, "unknown converter '\(parts[0])'; use local, gotenberg=URL or gateway=URL")
        }
    }

    /// One backend for every type, except that Gotenberg has no ebook support: ebooks stay local.
    public static func everyType(_ choice: BackendChoice) -> [JobType: BackendChoice] {
        var routes: [JobType: BackendChoice] = [:]
        for type in JobType.allCases { routes[type] = choice }
        if case .gotenberg = choice { routes[.ebookToPDF] = .local }
        // Scans are laid out by this gateway's own img2pdf: light work, done without re-encoding.
        routes[.scanToPDF] = .local
        // PDF operations run on this gateway's own qpdf and Ghostscript, whatever converts.
        routes[.pdfToPDF] = .local
        // Screenshots are taken by this gateway's own Chromium: no backend of ours takes them.
        routes[.screenshot] = .local
        return routes
    }

    /// Parses `URL_TO_PDF=gotenberg=http://g:3000,DOC_TO_PDF=local,…`; unnamed types stay local.
    public static func routes(parsing text: String) throws(LibraryError) -> [JobType: BackendChoice] {
        var routes = everyType(.local)
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map { String($0).trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let type = JobType(rawValue: parts[0]) else {
                throw LibraryError(
                    .invalidArgument,
                    "route '\(item)' is not TYPE=BACKEND with TYPE one of \(JobType.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            let choice = try BackendChoice(parsing: parts[1])
            if type == .ebookToPDF, case .gotenberg = choice {
                throw LibraryError(
                    .invalidArgument,
                    "Gotenberg cannot convert ebooks; route EBOOK_TO_PDF to local or gateway=URL (unnamed types stay local)"
                )
            }
            if type == .scanToPDF, choice != .local {
                throw LibraryError(
                    .invalidArgument,
                    "SCAN_TO_PDF runs on the gateway's own img2pdf (no backend keeps JPEGs as they are); leave it local"
                )
            }
            if type == .pdfToPDF, choice != .local {
                throw LibraryError(.invalidArgument, "PDF_TO_PDF runs on the gateway's own PDF tools; leave it local")
            }
            if type == .screenshot, choice != .local {
                throw LibraryError(.invalidArgument, "SCREENSHOT runs on the gateway's own Chromium; leave it local")
            }
            routes[type] = choice
        }
        return routes
    }

    /// `local`, `gotenberg` or `gateway`: the backend without its address, for metric labels.
    public var kind: String {
        switch self {
        case .local: "local"
        case .gotenberg: "gotenberg"
        case .gateway: "gateway"
        }
    }

    public var description: String {
        switch self {
        case .local: "local"
        case .gotenberg(let url): "gotenberg=\(url)"
        case .gateway(let url): "gateway=\(url)"
        }
    }
}
