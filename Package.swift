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

        // The domain, in layers; each depends only on those before it. No SQL, no HTTP, no C.
        //   GatewayCore → GatewaySearchText → GatewayLibraryModel → GatewayJobModel → GatewayURLSecurity
        //   → GatewayEngine; GatewayWire writes both models.
        // The converters, in layers over the domain and GatewayProcess, enforced the same way:
        //   GatewaySandbox → GatewayPDFTools → GatewayLocalConverters; GatewayConversionFormats below
        //   GatewayPDFTools, GatewayLocalConverters and GatewayRemoteConverters, which uses none of the others.
        // What every module shares: the typed error protocol, locks, durations, base64url.
        .target(name: "GatewayCore", swiftSettings: strict),
        // Search text: tokenizing, query parsing and rendering, highlighting. Knows no library.
        .target(
            name: "GatewaySearchText",
            dependencies: ["GatewayCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        // The library's values and ports: documents, folders, names, records, the catalog, the
        // filer, the search index and the PDF inspector as the engine sees them, API tokens.
        .target(
            name: "GatewayLibraryModel",
            dependencies: ["GatewayCore", "GatewaySearchText", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        // Jobs: the job and its pure state machine, conversion options, PDF operations, the
        // converter and job-store ports, input staging, idempotency and pacing ports.
        .target(
            name: "GatewayJobModel",
            dependencies: ["GatewayCore", "GatewayLibraryModel", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        // Which URLs may be fetched: address policy, URL patterns, the guard that resolves hosts.
        .target(
            name: "GatewayURLSecurity",
            dependencies: [
                "GatewayJobModel",
                // Only for URLGuard's getaddrinfo, on threads of its own (NIOThreadPool).
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The engine that runs jobs (scheduler, attempts, recorder) and the intake that admits them.
        .target(
            name: "GatewayEngine",
            dependencies: [
                "GatewayCore", "GatewayLibraryModel", "GatewayJobModel", "GatewayURLSecurity",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The wire format: the JSON the API, the CLI and the workers write.
        .target(name: "GatewayWire", dependencies: ["GatewayJobModel", "GatewayLibraryModel"], swiftSettings: strict),
        // Child processes, one way for all: spawned in a process group of their own, killed as a
        // group, waited for without a thread each; line-protocol workers over SwiftNIO; the slot
        // pool that leases workers out. Used by the converters and the PDF inspector.
        .target(
            name: "GatewayProcess",
            dependencies: ["GatewayCore", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: strict
        ),
        // The only Swift that touches Poppler; the worker (`pdfgate inspect-worker`) that runs it; the pool that drives workers.
        .target(
            name: "GatewayPDF",
            dependencies: [
                "GatewayCore", "GatewaySearchText", "GatewayLibraryModel", "GatewayJobModel", "GatewayWire", "GatewayProcess", "CPoppler",
            ],
            swiftSettings: strict
        ),
        // Outbound HTTP: the only Swift that touches libcurl.
        .target(
            name: "GatewayHTTPClient",
            dependencies: ["GatewayCore", "CCurl"],
            swiftSettings: strict
        ),
        // The sandbox every local tool runs in: bubblewrap (`ConverterSandbox`), resource limits and
        // their watchdog, the one-shot sandboxed run and its failures, and the vetting proxy
        // Chromium's requests go through (`Proxy/`, with the files it serves).
        .target(
            name: "GatewaySandbox",
            dependencies: [
                "GatewayCore", "GatewayJobModel", "GatewayURLSecurity", "GatewayProcess",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The fonts every converter sees (DESIGN §16): the gateway's fontconfig file with the
        // Office families' aliases and the operator's folder, and the catalog of what is installed.
        .target(
            name: "GatewayFonts",
            dependencies: ["GatewayCore", "GatewayProcess", "GatewaySandbox", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: strict
        ),
        // What a conversion's input and options become for the tools that do it, local or remote:
        // the HTML bundle (a page with its files as one zip), LibreOffice's PDF export settings.
        .target(
            name: "GatewayConversionFormats",
            dependencies: ["GatewayJobModel", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: strict
        ),
        // The PDF operations on qpdf, Ghostscript, ExifTool and a one-shot LibreOffice, sealed in
        // the sandbox (`LocalPDFOperator`, PDF/A, PDF/UA, XMP, stamps), and OCR with Tesseract.
        .target(
            name: "GatewayPDFTools",
            dependencies: ["GatewayCore", "GatewayJobModel", "GatewayProcess", "GatewaySandbox", "GatewayConversionFormats"],
            swiftSettings: strict
        ),
        // The local converter: warm LibreOffice and Calibre workers, the warm Chromium and its
        // DevTools print, scans, the tools' checks and versions.
        .target(
            name: "GatewayLocalConverters",
            dependencies: [
                "GatewayJobModel", "GatewayURLSecurity", "GatewayProcess", "GatewaySandbox", "GatewayFonts", "GatewayConversionFormats",
                "GatewayPDFTools",
                // HTTP's reason phrases, for the statuses Chromium's page watch reports.
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            // The Python the sandboxed tools run (LibreOffice's UNO worker, Calibre's worker, the
            // scan's img2pdf layout): linted as Python, embedded so the gateway stays one binary.
            resources: [
                .embedInCode("Python/uno_worker.py"), .embedInCode("Python/calibre_worker.py"), .embedInCode("Python/scan_pages.py"),
            ],
            swiftSettings: strict
        ),
        // The converters that hand a job to another server over HTTP: a Gotenberg (`Gotenberg/`)
        // or another pdfgate (`RemoteGateway/`).
        .target(
            name: "GatewayRemoteConverters",
            dependencies: ["GatewayJobModel", "GatewayURLSecurity", "GatewayHTTPClient", "GatewayConversionFormats"],
            swiftSettings: strict
        ),
        // The library's file tree: crash-safe filing, renames and moves, fsck, staging, the
        // mutation lock and the search indexer, over any catalog (SQLite or PostgreSQL).
        .target(
            name: "GatewayLibrary",
            dependencies: [
                "GatewayCore", "GatewaySearchText", "GatewayLibraryModel", "GatewayJobModel", "CLinuxFS",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Documents' bytes in an S3 bucket (`--documents s3://…`): SigV4 on swift-crypto, the S3
        // requests through GatewayHTTPClient's one libcurl loop, and the local read cache.
        .target(
            name: "GatewayDocumentStorage",
            dependencies: [
                "GatewayCore", "GatewayLibraryModel", "GatewayHTTPClient",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The embedded store in SQLite: the library's catalog and search index, jobs, tokens,
        // idempotency keys and the webhook outbox.
        .target(
            name: "GatewayStore",
            dependencies: [
                "GatewaySearchText", "GatewayLibraryModel", "GatewayJobModel", "GatewayLibrary",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The store's ports on PostgreSQL, for several gateways sharing one database: the only
        // Swift that speaks to PostgreSQL.
        .target(
            name: "GatewayPostgres",
            dependencies: [
                "GatewayCore", "GatewaySearchText", "GatewayLibraryModel", "GatewayJobModel",
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
                "GatewayCore", "GatewayLibraryModel", "GatewayJobModel", "GatewayURLSecurity", "GatewayEngine", "GatewayWire",
                "GatewayLibrary", "GatewayPDF", "GatewayStore", "GatewayPostgres", "GatewaySandbox", "GatewayFonts",
                "GatewayLocalConverters", "GatewayRemoteConverters", "GatewayHTTPClient", "GatewayDocumentStorage",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // The HTTP side, in layers; each depends only on those before it:
        //   GatewaySettings → GatewayHTTPServing → GatewayGotenbergAPI → GatewayServer.
        // What `serve` is configured by: `ServerConfiguration`, every setting declared once (file,
        // environment, flags, `--help`), Gotenberg's flags as aliases. No HTTP.
        .target(
            name: "GatewaySettings",
            dependencies: ["GatewayCore", "GatewayJobModel", "GatewayURLSecurity", "GatewayFonts", "GatewayAssembly"],
            swiftSettings: strict
        ),
        // What both doors serve with: the request context, API errors and their middleware, auth,
        // multipart, streamed bodies, file answers, signed URLs, query parameters and JSON answers.
        .target(
            name: "GatewayHTTPServing",
            dependencies: [
                "GatewayCore", "GatewayLibraryModel", "GatewayJobModel", "GatewayEngine", "GatewayWire", "GatewayAssembly",
                "GatewaySettings",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Gotenberg 8's API on our listener: its routes, form fields, answers, webhooks, metrics
        // and trace, each request run as jobs of our engine.
        .target(
            name: "GatewayGotenbergAPI",
            dependencies: [
                "GatewayLibraryModel", "GatewayJobModel", "GatewayURLSecurity", "GatewayEngine", "GatewayConversionFormats",
                "GatewayHTTPClient", "GatewayAssembly", "GatewaySettings", "GatewayHTTPServing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Ink", package: "Ink"),
            ],
            swiftSettings: strict
        ),
        // WebDAV at /dav/ (DESIGN §14): the library for file managers and rclone.
        .target(
            name: "GatewayDAV",
            dependencies: [
                "GatewayLibraryModel", "GatewayJobModel", "GatewayEngine", "GatewayHTTPServing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // The HTTP API (DESIGN §3): our /v1 routes, the web page and the spec; `buildRouter`
        // composes them with Gotenberg's door, `run` serves them with the engine.
        .target(
            name: "GatewayServer",
            dependencies: [
                "GatewayCore", "GatewayLibraryModel", "GatewayJobModel", "GatewayEngine", "GatewayWire", "GatewayLocalConverters",
                "GatewayAssembly", "GatewaySettings", "GatewayHTTPServing", "GatewayGotenbergAPI", "GatewayDAV", "GatewayFonts",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
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
                "GatewayCore", "GatewaySearchText", "GatewayLibraryModel", "GatewayJobModel", "GatewayEngine", "GatewayWire",
                "GatewayLibrary", "GatewayPDF", "GatewayStore", "GatewaySandbox", "GatewayAssembly", "GatewaySettings",
                "GatewayHTTPServing", "GatewayServer", "GatewayFonts",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Drives the library in a loop so the crash test can SIGKILL it mid-mutation.
        .executableTarget(
            name: "library-churn",
            dependencies: ["GatewayLibraryModel", "GatewayLibrary", "GatewayStore"],
            path: "Tests/LibraryChurn",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "pdfgate-bench",
            dependencies: [
                "GatewaySearchText", "GatewayLibraryModel", "GatewayJobModel", "GatewayURLSecurity", "GatewayEngine",
                "GatewayLibrary", "GatewayPDF", "GatewayStore", "GatewayPostgres", "GatewayAssembly", "GatewaySandbox",
                "GatewayLocalConverters", "GatewayRemoteConverters", "GatewayTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/pdfgate-bench",
            swiftSettings: strict
        ),
        .target(
            name: "GatewayTestSupport",
            // GatewayLocalConverters for its DevTools pipe: the web page's tests drive a real Chromium.
            // The store modules for `LibraryFixture`, a real library on SQLite or PostgreSQL.
            dependencies: [
                "GatewayCore", "GatewayLibraryModel", "GatewayJobModel", "GatewayProcess", "GatewayLocalConverters", "GatewayLibrary",
                "GatewayStore", "GatewayPostgres", "GatewayAssembly", "GatewayDocumentStorage",
                // The loopback HTTP server fake peers answer from.
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/GatewayTestSupport",
            swiftSettings: strict
        ),
        // The engine's, intake's and leases' tests run on the real SQLite store (GatewayStore).
        .testTarget(
            name: "GatewayCoreTests",
            dependencies: [
                "GatewayCore", "GatewaySearchText", "GatewayLibraryModel", "GatewayJobModel", "GatewayURLSecurity", "GatewayEngine",
                "GatewayWire", "GatewayLibrary", "GatewayStore", "GatewayTestSupport",
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "GatewayProcessTests", dependencies: ["GatewayProcess", "GatewayTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "GatewayPDFTests",
            dependencies: ["GatewayCore", "GatewaySearchText", "GatewayLibraryModel", "GatewayPDF", "GatewayTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "GatewayStoreTests",
            dependencies: [
                "GatewaySearchText", "GatewayLibraryModel", "GatewayJobModel", "GatewayLibrary", "GatewayStore", "GatewayPostgres", "GatewayAssembly",
                "GatewayPDF", "GatewayProcess", "GatewayTestSupport",
            ],
            swiftSettings: strict
        ),
        // SigV4 against AWS's published examples, and the S3 client and bucket-backed library on a real Ceph.
        .testTarget(
            name: "GatewayDocumentStorageTests",
            dependencies: [
                "GatewayLibraryModel", "GatewayLibrary", "GatewayDocumentStorage", "GatewayTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "GatewayHTTPClientTests",
            dependencies: [
                "GatewayHTTPClient", "GatewayTestSupport",
                // The slow receiver the shared transfer loop is measured against: one event-loop thread.
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "GatewayConvertersTests",
            // NIOHTTP1 for the request heads the proxy's parsing tests build.
            dependencies: [
                "GatewayJobModel", "GatewayURLSecurity", "GatewayProcess", "GatewaySandbox", "GatewayConversionFormats", "GatewayPDFTools",
                "GatewayFonts", "GatewayLocalConverters", "GatewayRemoteConverters", "GatewayTestSupport",
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "CLITests", dependencies: ["GatewayTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "GatewayServerTests",
            dependencies: [
                "GatewayLibraryModel", "GatewayJobModel", "GatewayURLSecurity", "GatewayEngine",
                "GatewaySettings", "GatewayHTTPServing", "GatewayGotenbergAPI", "GatewayServer", "GatewayAssembly", "GatewayLibrary",
                "GatewayStore", "GatewayHTTPClient", "GatewayProcess", "GatewayLocalConverters", "GatewayTestSupport",
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
