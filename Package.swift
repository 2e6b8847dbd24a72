// swift-tools-version:6.1
import PackageDescription

// Warnings are errors everywhere: a warning today is a bug report tomorrow.
let strict: [SwiftSetting] = [.unsafeFlags(["-warnings-as-errors"])]

let package = Package(
    name: "PDFGateway",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "pdfgate", targets: ["pdfgate"])
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        // Traits off: we read our own configuration and need nothing of full Foundation there.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // Gotenberg's routes answer several files as one zip.
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        // Gotenberg's Markdown route: the pages' HTML.
        .package(url: "https://github.com/JohnSundell/Ink.git", from: "0.6.0"),
    ],
    targets: [
        // C libraries: one system-library target each, with typed shims for variadic calls.
        .systemLibrary(name: "CPoppler", pkgConfig: "poppler-glib", providers: [.apt(["libpoppler-glib-dev", "libcairo2-dev"])]),
        .target(name: "CLinuxFS"),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // The domain: values, errors and ports. No SQL, no HTTP, no C.
        .target(
            name: "GatewayCore",
            dependencies: [
                .product(name: "Logging", package: "swift-log"), .product(name: "Crypto", package: "swift-crypto"),
                // Only for URLGuard's getaddrinfo, on threads of its own (NIOThreadPool).
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Child processes, one way for all: spawned in a process group of their own, killed as a
        // group, waited for without a thread each; line-protocol workers over SwiftNIO; the slot
        // pool that leases workers out. Used by the converters and the PDF inspector.
        .target(
            name: "GatewayProcess",
            dependencies: [.product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: strict
        ),
        // The only Swift that touches Poppler; the worker (`pdfgate inspect-worker`) that runs it; the pool that drives workers.
        .target(
            name: "GatewayPDF",
            dependencies: ["GatewayCore", "GatewayProcess", "CPoppler"],
            swiftSettings: strict
        ),
        // Outbound HTTP: the only Swift that touches libcurl.
        .target(
            name: "GatewayHTTPClient",
            dependencies: ["GatewayCore", "CCurl"],
            swiftSettings: strict
        ),
        // Converter backends: Local/ (LibreOffice, Chromium, Calibre), Gotenberg/, RemoteGateway/.
        .target(
            name: "GatewayConverters",
            dependencies: [
                "GatewayCore", "GatewayProcess", "GatewayHTTPClient", .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                // The vetting proxy Chromium's requests go through, and the files it serves.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The library on disk and in SQLite.
        .target(
            name: "GatewayStore",
            dependencies: [
                "GatewayCore", "CLinuxFS",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The store's ports on PostgreSQL, for several gateways sharing one database: the only
        // Swift that speaks to PostgreSQL.
        .target(
            name: "GatewayPostgres",
            dependencies: [
                "GatewayCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Only for the pool's error type (`ConnectionPoolError`), which PostgresClient throws as it is.
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The one composition root (`EngineAssembly.open`): stores, sandbox, converters, inspector,
        // engine, intake, metrics and webhooks wired from one `EngineConfiguration`. Shared by
        // `pdfgate serve` (through the HTTP module), the CLI's own engine and the tests.
        .target(
            name: "GatewayAssembly",
            dependencies: [
                "GatewayCore", "GatewayPDF", "GatewayStore", "GatewayPostgres", "GatewayConverters", "GatewayHTTPClient",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The HTTP API (DESIGN §3): routes, signed URLs, tokens, events, webhooks.
        .target(
            name: "GatewayServer",
            dependencies: [
                "GatewayCore", "GatewayConverters", "GatewayHTTPClient", "GatewayAssembly",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Ink", package: "Ink"),
            ],
            // A link to the repository's openapi.yaml: served at /openapi.yaml, one source of truth.
            // The web page's files, served at / and /ui/ (WebAssets lists the same names).
            resources: [
                .embedInCode("openapi.yaml"),
                .embedInCode("Web/index.html"), .embedInCode("Web/style.css"), .embedInCode("Web/favicon.svg"),
                .embedInCode("Web/app.js"), .embedInCode("Web/api.js"), .embedInCode("Web/dom.js"),
                .embedInCode("Web/dialogs.js"), .embedInCode("Web/notice.js"),
                .embedInCode("Web/convert.js"), .embedInCode("Web/convert-options.js"),
                .embedInCode("Web/convert-upload.js"), .embedInCode("Web/convert-jobwatch.js"),
                .embedInCode("Web/convert-job-item.js"),
                .embedInCode("Web/library.js"), .embedInCode("Web/library-state.js"),
                .embedInCode("Web/library-tree.js"), .embedInCode("Web/library-folders.js"),
                .embedInCode("Web/library-list.js"), .embedInCode("Web/library-rows.js"),
                .embedInCode("Web/library-search.js"), .embedInCode("Web/library-actions.js"),
                .embedInCode("Web/library-details.js"),
            ],
            swiftSettings: strict
        ),
        // The CLI: its commands, and `serve`, which runs the HTTP module.
        .executableTarget(
            name: "pdfgate",
            dependencies: [
                "GatewayCore", "GatewayPDF", "GatewayStore", "GatewayConverters", "GatewayAssembly", "GatewayServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Drives the library in a loop so the crash test can SIGKILL it mid-mutation.
        .executableTarget(
            name: "library-churn",
            dependencies: ["GatewayCore", "GatewayStore"],
            path: "Tests/LibraryChurn",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "pdfgate-bench",
            dependencies: [
                "GatewayCore", "GatewayPDF", "GatewayStore", "GatewayPostgres", "GatewayAssembly", "GatewayConverters", "GatewayTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/pdfgate-bench",
            swiftSettings: strict
        ),
        .target(
            name: "GatewayTestSupport",
            // GatewayConverters for its DevTools pipe: the web page's tests drive a real Chromium.
            // The store modules for `LibraryFixture`, a real library on SQLite or PostgreSQL.
            dependencies: ["GatewayCore", "GatewayProcess", "GatewayConverters", "GatewayStore", "GatewayPostgres", "GatewayAssembly"],
            path: "Tests/GatewayTestSupport",
            swiftSettings: strict
        ),
        // The engine's, intake's and leases' tests run on the real SQLite store (GatewayStore).
        .testTarget(name: "GatewayCoreTests", dependencies: ["GatewayCore", "GatewayStore", "GatewayTestSupport"], swiftSettings: strict),
        .testTarget(name: "GatewayProcessTests", dependencies: ["GatewayProcess", "GatewayTestSupport"], swiftSettings: strict),
        .testTarget(name: "GatewayPDFTests", dependencies: ["GatewayPDF", "GatewayTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "GatewayStoreTests",
            dependencies: ["GatewayStore", "GatewayPostgres", "GatewayAssembly", "GatewayPDF", "GatewayTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(name: "GatewayHTTPClientTests", dependencies: ["GatewayHTTPClient", "GatewayTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "GatewayConvertersTests",
            // NIOHTTP1 for the request heads the proxy's parsing tests build.
            dependencies: ["GatewayConverters", "GatewayProcess", "GatewayTestSupport", .product(name: "NIOHTTP1", package: "swift-nio")],
            swiftSettings: strict
        ),
        .testTarget(name: "CLITests", dependencies: ["GatewayTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "GatewayServerTests",
            dependencies: [
                "GatewayServer", "GatewayAssembly", "GatewayStore", "GatewayHTTPClient", "GatewayTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                // In-process requests through the router, for API behaviour that needs no socket.
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // Reads the zips Gotenberg's routes answer.
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
