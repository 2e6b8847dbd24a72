import Foundation
import GatewayConverters
import GatewayCore
import GatewayPDF
import GatewayStore
import Logging

/// Which backend converts, as the user names it: `local`, `gotenberg=URL` or `gateway=URL`.
enum BackendChoice: Equatable {
    case local
    case gotenberg(String)
    case gateway(String)

    init(parsing text: String) throws {
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
}

/// The engine and everything it needs, wired once; `shutdown()` ends the helper processes.
final class EngineAssembly: Sendable {
    let library: Library
    let engine: JobEngine
    let inspector: PDFInspectorPool
    let local: LocalConverter?

    init(library: Library, backend: BackendChoice, timeout: Duration?, urlAllowList: Set<String>, logger: Logger) throws {
        self.library = library
        inspector = PDFInspectorPool()
        let urlCheck = URLCheck(allowList: urlAllowList)
        // Local converters are needed for `local`, and for ebooks whatever the backend
        // (Gotenberg has no ebook support).
        let local = try LocalConverter(
            configuration: .init(baseDirectory: library.paths.meta + "/converters", urlGuard: URLGuard(check: urlCheck))
        )
        self.local = local
        let localRoute = ConverterRouter.Route(converter: local, slots: 8)
        var routes: [JobType: ConverterRouter.Route] = [:]
        switch backend {
        case .local:
            routes = [.urlToPDF: localRoute, .docToPDF: localRoute, .ebookToPDF: localRoute]
        case .gotenberg(let url):
            let gotenberg = ConverterRouter.Route(converter: GotenbergConverter(configuration: .init(baseURL: url)), slots: 4)
            routes = [.urlToPDF: gotenberg, .docToPDF: gotenberg, .ebookToPDF: localRoute]
        case .gateway(let url):
            let remote = ConverterRouter.Route(
                converter: RemoteGatewayConverter(
                    configuration: .init(baseURL: url, cancelRemoteJobOnTaskCancellation: false)
                ),
                slots: 8
            )
            routes = [.urlToPDF: remote, .docToPDF: remote, .ebookToPDF: remote]
        }
        var defaults: [JobType: Duration] = [:]
        if let timeout { for type in JobType.allCases { defaults[type] = timeout } }
        engine = JobEngine(
            configuration: .init(stagingDirectory: library.paths.staging, defaultTimeout: defaults, urlCheck: urlCheck),
            store: SQLiteJobStore(database: library.database),
            router: ConverterRouter(routes: routes),
            inspector: inspector,
            filer: library,
            logger: logger
        )
    }

    func shutdown() async {
        await inspector.shutdown()
        await local?.shutdown()
    }
}
