import Foundation
import GatewayJobModel
import GatewayProcess
import GatewayTestSupport
import GatewayURLSecurity
import Glibc
import Synchronization
import Testing

@testable import GatewayLocalConverters
@testable import GatewaySandbox

#if canImport(Glibc)
#endif

/// Counts every TCP connection to 127.0.0.1:`port` and keeps its first line: a document that
/// reaches out shows up here whether or not it completes a request.
final class ConnectionCounter: Sendable {
    let port: Int
    private let listener: Int32
    private let seen = Mutex<[String]>([])

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 64) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        try #require(bound, "cannot listen on 127.0.0.1")
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                var buffer = [UInt8](repeating: 0, count: 512)
                var entry = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
                let count = poll(&entry, 1, 500) > 0 ? buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, 512, 0) } : 0
                let line = String(decoding: buffer[..<max(0, count)], as: UTF8.self).split(separator: "\r\n").first.map(String.init)
                seen.withLock { $0.append(line ?? "(a connection that sent nothing)") }
                _ = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".withCString {
                    send(client, $0, strlen($0), Int32(MSG_NOSIGNAL))
                }
                close(client)
            }
        }
    }

    var connections: [String] { seen.withLock { $0 } }
    var url: String { "http://127.0.0.1:\(port)" }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}

/// One document from `scripts/hostile-documents.py`.
struct HostileDocument: Decodable, CustomTestStringConvertible {
    var file: String
    var kind: String
    var converter: String
    var what: String

    var testDescription: String { "\(file) (\(what))" }

    /// Calibre takes ebooks; the gateway routes everything else (office files, HTML) by name.
    var jobType: JobType { converter == "calibre" ? .ebookToPDF : .docToPDF }
}

/// Writes the hostile documents of `kind` (all by default) for `listener` (and `secrets`) into
/// `directory`; returns the manifest. Of the limit cases, `only` names the ones written: the
/// deflate bomb alone takes seconds of a core to write.
func makeHostileDocuments(
    in directory: String,
    listener: String,
    secrets: [String] = [],
    kind: String? = nil,
    only: [String] = []
) async throws -> [HostileDocument] {
    let script = (Fixtures.root as NSString).deletingLastPathComponent + "/scripts/hostile-documents.py"
    var arguments = [script, directory, "--listener", listener] + secrets.flatMap { ["--secret", $0] }
    if let kind { arguments += ["--kind", kind] }
    arguments += only.flatMap { ["--only", $0] }
    let result = try await run("/usr/bin/python3", arguments)
    try #require(result.status == 0, "hostile-documents.py failed")
    return try JSONDecoder().decode([HostileDocument].self, from: Data(result.stdout.utf8))
}

extension LocalConverterTests {
    /// Converters run sealed: no network, no store, limits (DESIGN §8).
    @Suite(.serialized) struct Sandbox {
        @Test func documentsWithLinkedResourcesReachNothing() async throws {
            let listener = try ConnectionCounter()
            let directory = TemporaryDirectory("pdfgate-hostile")
            let documents = try await makeHostileDocuments(in: directory.path, listener: listener.url, kind: "network")
            try #require(documents.count >= 10)
            var converted: [String] = []
            try await withConverter { converter in
                for document in documents {
                    let job = JobFixture()
                    let request = job.request(document.jobType, job.file(directory.file(document.file)))
                    // Success or not is beside the point here (most convert, with a blank where
                    // the linked resource would be); what matters is that nothing left the sandbox.
                    if await conversionError({ try await converter.convert(request, events: { _ in }) }) == nil {
                        converted.append(document.file)
                    }
                }
            }
            #expect(listener.connections.isEmpty, "documents reached the listener: \(listener.connections)")
            #expect(converted.count >= documents.count - 2, "most hostile documents should still convert; converted \(converted)")
        }

        /// The control for the test above: the same kind of document, unsealed, does reach out.
        @Test func unsealedALinkedImageIsFetched() async throws {
            let listener = try ConnectionCounter()
            let directory = TemporaryDirectory("pdfgate-hostile")
            let documents = try await makeHostileDocuments(in: directory.path, listener: listener.url, kind: "network")
            let document = try #require(documents.first { $0.file == "linked-image.odt" })
            try await withConverter(.init(sandbox: ConverterSandbox(isolation: .none))) { converter in
                let job = JobFixture()
                _ = await conversionError {
                    try await converter.convert(job.request(document.jobType, job.file(directory.file(document.file))), events: { _ in })
                }
            }
            #expect(!listener.connections.isEmpty, "unsealed, LibreOffice should have fetched the linked image")
        }

        @Test func fileLinksToTheStoreLeaveNothingInTheOutput() async throws {
            let store = TemporaryDirectory("pdfgate-store")
            let secret = store.file("secrets.json")
            let otherOwners = store.file("other-owner.txt")
            try Data(#"{"signing_key":"SECRET-SIGNING-KEY-7f3a"}"#.utf8).write(to: URL(fileURLWithPath: secret))
            try Data("ANOTHER-OWNERS-DOCUMENT-91c2\n".utf8).write(to: URL(fileURLWithPath: otherOwners))
            let listener = try ConnectionCounter()
            let directory = TemporaryDirectory("pdfgate-hostile")
            let documents = try await makeHostileDocuments(in: directory.path, listener: listener.url, secrets: [secret, otherOwners], kind: "file")
            try #require(documents.count >= 3)
            let sandbox = ConverterSandbox(hiddenPaths: [store.path])
            var converted = 0
            try await withConverter(.init(sandbox: sandbox)) { converter in
                for document in documents {
                    let job = JobFixture()
                    let request = job.request(document.jobType, job.file(directory.file(document.file)))
                    guard await conversionError({ try await converter.convert(request, events: { _ in }) }) == nil else { continue }
                    converted += 1
                    let text = try await run("pdftotext", [job.output, "-"]).stdout
                    #expect(!text.contains("SECRET-SIGNING-KEY"), "\(document.file) printed the store's secret")
                    #expect(!text.contains("ANOTHER-OWNERS-DOCUMENT"), "\(document.file) printed another owner's file")
                    #expect(text.contains("Linked resources test"), "\(document.file) converted to something else")
                }
            }
            #expect(converted >= documents.count - 1, "only \(converted) of \(documents.count) converted: the check above saw too little")
        }

        @Test func theSandboxHasNoNetworkAndSeesNoStore() async throws {
            let store = TemporaryDirectory("pdfgate-store")
            try Data("top secret".utf8).write(to: URL(fileURLWithPath: store.file("secrets.json")))
            let listener = try ConnectionCounter()
            let work = TemporaryDirectory("pdfgate-work")
            let sandbox = ConverterSandbox(hiddenPaths: [store.path])
            // A shell in the sandbox tries the listener, the store and the system's secrets.
            let probe = """
                (exec 3<>/dev/tcp/127.0.0.1/\(listener.port)) 2>/dev/null && echo NET-OPEN || echo NET-CLOSED
                cat \(store.file("secrets.json")) 2>/dev/null || echo STORE-HIDDEN
                cat /etc/shadow 2>/dev/null | head -c 1 | grep -q . && echo SHADOW-READ || echo SHADOW-HIDDEN
                touch /usr/pdfgate-probe 2>/dev/null && echo SYSTEM-WRITABLE || echo SYSTEM-READ-ONLY
                echo ok > \(work.path)/written && echo WORK-WRITABLE
                """
            let spec = sandbox.wrap(
                ChildSpec(
                    executable: "/bin/bash",
                    arguments: ["-c", probe],
                    environment: ["PATH": "/usr/bin:/bin"],
                    workingDirectory: work.path,
                    stdout: .file(work.file("out.log")),
                    stderr: .file(work.file("err.log"))
                ),
                mounts: .init(writable: [work.path]),
                backstops: .init(addressSpace: true, cpu: true)
            )
            let outcome = try await runOneShot(spec, deadline: .now + .seconds(20), limits: sandbox.limits)
            #expect(outcome == .finished(.exited(0)))
            let said = try String(contentsOfFile: work.file("out.log"), encoding: .utf8)
            for expected in ["NET-CLOSED", "STORE-HIDDEN", "SHADOW-HIDDEN", "SYSTEM-READ-ONLY", "WORK-WRITABLE"] {
                #expect(said.contains(expected), "\(expected) in: \(said)")
            }
            #expect(listener.connections.isEmpty)
        }

        /// Either way into the sandbox (`prlimit`, or the helper that Chromium takes) leaves the
        /// tool with the same rlimits, the backstops behind the watchdog.
        @Test(arguments: [false, true])
        func aToolStartsWithItsRLimits(throughHelper: Bool) async throws {
            let work = TemporaryDirectory("pdfgate-work")
            let limits = ResourceLimits(memoryBytes: 512 << 20, cpuSeconds: 30, processes: 40)
            let sandbox = ConverterSandbox(limits: limits)
            let spec = sandbox.wrap(
                ChildSpec(
                    executable: "/bin/cat",
                    arguments: ["/proc/self/limits"],
                    environment: [:],
                    workingDirectory: work.path,
                    stdout: .file(work.file("limits.txt")),
                    stderr: .file(work.file("err.log"))
                ),
                mounts: .init(writable: [work.path]),
                backstops: .init(addressSpace: true, cpu: true),
                throughHelper: throughHelper
            )
            #expect(spec.arguments.contains("sandbox-exec") == throughHelper)
            let outcome = try await runOneShot(spec, deadline: .now + .seconds(20), limits: limits)
            let said = (try? String(contentsOfFile: work.file("err.log"), encoding: .utf8)) ?? ""
            #expect(outcome == .finished(.exited(0)), "\(said)")
            // "Max cpu time   35   37   seconds": the name, then soft and hard.
            let table = try String(contentsOfFile: work.file("limits.txt"), encoding: .utf8)
            func limit(_ name: String) -> [String] {
                let line = table.split(separator: "\n").first { $0.hasPrefix(name) } ?? ""
                return line.dropFirst(name.count).split(separator: " ").prefix(2).map(String.init)
            }
            let addressSpace = String(limits.memoryBytes + ConverterSandbox.addressSpaceHeadroom)
            #expect(limit("Max cpu time") == ["35", "37"])
            #expect(limit("Max address space") == [addressSpace, addressSpace])
            #expect(limit("Max core file size") == ["0", "0"])
            if getuid() != 0 { #expect(limit("Max processes") == ["40", "40"]) }
        }

        /// Tight limits so each case ends in seconds; each document must be stopped at one of them.
        /// Four CPU-seconds are ten times what a sample document takes, its slot's start included.
        static let tightLimits = ResourceLimits(memoryBytes: 768 << 20, cpuSeconds: 4, processes: 24)

        @Test(arguments: ["bomb.docx", "lines.txt"])
        func aHostileOfficeDocumentStopsAtALimit(name: String) async throws {
            let directory = TemporaryDirectory("pdfgate-hostile")
            let documents = try await makeHostileDocuments(in: directory.path, listener: "http://127.0.0.1:9", kind: "limit", only: [name])
            let document = try #require(documents.first { $0.file == name })
            try await withConverter(.init(libreOfficeSlots: 2, sandbox: ConverterSandbox(limits: Self.tightLimits))) { converter in
                // A plain document converts on the other slot at the same time, untouched.
                let neighbour = Task {
                    let job = JobFixture()
                    try await converter.convert(job.request(.docToPDF, job.file(Fixtures.office("sample.docx"))), events: { _ in })
                    return try await pdfinfoPageCount(job.output)
                }
                let job = JobFixture()
                let error = await conversionError {
                    try await converter.convert(
                        job.request(.docToPDF, job.file(directory.file(document.file)), timeout: .seconds(90)),
                        events: { _ in }
                    )
                }
                let failure = try #require(error as? JobFailure, "\(name) converted; it should have hit a limit")
                #expect(failure.code == "resource_limit", "\(name): \(failure.code): \(failure.message)")
                #expect(failure.kind == .rejected)
                #expect(failure.message.contains("limit of"))
                #expect(!FileManager.default.fileExists(atPath: job.output))
                #expect(try await neighbour.value == 2)
                // The slot that hit the limit starts afresh for the next document.
                let next = JobFixture()
                try await converter.convert(next.request(.docToPDF, next.file(Fixtures.office("sample.odt"))), events: { _ in })
                #expect(try await pdfinfoPageCount(next.output) == 2)
            }
        }

        /// LibreOffice's XML parser refuses entity expansion itself: the "billion laughs" ends at
        /// once as an unreadable document, before it could come near a limit.
        @Test func anEntityExpansionDocumentIsRefusedAtOnce() async throws {
            let directory = TemporaryDirectory("pdfgate-hostile")
            let documents = try await makeHostileDocuments(in: directory.path, listener: "http://127.0.0.1:9", kind: "limit", only: ["entities.odt"])
            let document = try #require(documents.first { $0.file == "entities.odt" })
            try await withConverter(.init(libreOfficeSlots: 1, sandbox: ConverterSandbox(limits: Self.tightLimits))) { converter in
                let job = JobFixture()
                let start = ContinuousClock.now
                let error = await conversionError {
                    try await converter.convert(job.request(.docToPDF, job.file(directory.file(document.file))), events: { _ in })
                }
                let failure = try #require(error as? JobFailure)
                #expect(["unreadable_document", "resource_limit"].contains(failure.code), "\(failure.code): \(failure.message)")
                #expect(failure.kind == .rejected)
                #expect(seconds(since: start) < 15)
                #expect(!FileManager.default.fileExists(atPath: job.output))
            }
        }

        @Test func aPageThatStartsRendererAfterRendererStopsAtTheProcessLimit() async throws {
            let site = try LoopbackHTTPServer { request, response in
                _ = try request.discardBody()
                let frame = "<html><body><p>frame \(request.header("Host") ?? "")</p></body></html>"
                try response.respond(status: 200, headers: [("Content-Type", "text/html")], text: frame)
            }
            let directory = TemporaryDirectory("pdfgate-hostile")
            let documents = try await makeHostileDocuments(in: directory.path, listener: site.baseURL, kind: "limit", only: ["many-frames.html"])
            let page = try #require(documents.first { $0.file == "many-frames.html" })
            let html = try String(contentsOfFile: directory.file(page.file), encoding: .utf8)
            // The page itself comes from the site too; every frame host resolves to it.
            let frameHosts = (1...150).map { "f\($0).frames.test" }
            let names = Dictionary(uniqueKeysWithValues: frameHosts.map { ($0, IPAddress.v4(0x7F00_0001)) })
            let pageSite = try LoopbackHTTPServer { request, response in
                _ = try request.discardBody()
                try response.respond(status: 200, headers: [("Content-Type", "text/html")], text: html)
            }
            var configuration = LocalConverterTests.VettingProxyThroughChromium.configuration(
                allowing: ["127.0.0.1:\(pageSite.port)"] + frameHosts.map { "\($0):\(site.port)" },
                names: names
            )
            // CPU to spare, so the process count is what stops it (a browser alone runs about 6).
            configuration.sandbox = ConverterSandbox(limits: ResourceLimits(memoryBytes: 4 << 30, cpuSeconds: 120, processes: 12))
            try await withConverter(configuration) { converter in
                let job = JobFixture()
                let error = await conversionError {
                    try await converter.convert(job.request(.urlToPDF, .url(pageSite.baseURL + "/")), events: { _ in })
                }
                let failure = try #require(error as? JobFailure, "150 cross-site frames printed within 12 processes")
                #expect(failure.code == "resource_limit")
                #expect(failure.message.contains("process limit of 12"), "\(failure.message)")
            }
        }

        @Test func aDocumentThatCrashesAWarmSlotConvertsInAColdLibreOffice() async throws {
            // Long enough to be caught mid-conversion: some seconds of work for LibreOffice.
            let directory = TemporaryDirectory("pdfgate-crash")
            let text = (1...20000).map { "Line \($0): the warm slot is killed while it converts this file." }.joined(separator: "\n")
            try Data(text.utf8).write(to: URL(fileURLWithPath: directory.file("long.txt")))
            try await withConverter(.init(libreOfficeSlots: 1)) { converter in
                let warm = JobFixture()
                try await converter.convert(warm.request(.docToPDF, warm.file(Fixtures.office("sample.rtf"))), events: { _ in })
                let slot = converter.libreOffice.workers.slots.slots[0]
                let group = try #require(slot.processGroup())

                let job = JobFixture()
                let request = job.request(.docToPDF, job.file(directory.file("long.txt")))
                let conversion = Task { try await converter.convert(request, events: { _ in }) }
                // Kill soffice.bin once it is well into this document.
                let soffice = try #require(members(ofGroup: group, named: "soffice.bin").first)
                let idle = ProcessProbe.cpuTime(of: soffice) ?? .zero
                try await eventually("soffice.bin is well into the document") {
                    ProcessProbe.cpuTime(of: soffice) ?? .zero >= idle + .milliseconds(400)
                }
                #expect(kill(soffice, SIGKILL) == 0)
                try await conversion.value
                #expect(try await pdfinfoPageCount(job.output) ?? 0 > 50)
                #expect(converter.libreOffice.workers.goesCold(request.jobID), "the PDF came from the cold retry, not the killed slot")
                // Later attempts of the same job go straight to a cold LibreOffice.
                let again = await conversionError { try await converter.convert(request, events: { _ in }) }
                #expect(again == nil)
                #expect(slot.startCount == 1, "the crashing document took exactly one slot with it, and no more")
            }
        }
    }
}

/// Pids of `group`'s processes whose command name is `name`.
func members(ofGroup group: pid_t, named name: String) -> [pid_t] {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry -> pid_t? in
        guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
            let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
        else { return nil }
        let command = stat[stat.index(after: open)..<close]
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return command == name && fields.count > 3 && pid_t(fields[2]) == group ? pid : nil
    }
}

extension LocalConverterTests {
    @Suite(.serialized) struct WarmLibreOffice {
        /// Debian's -nogui LibreOffice lacks Writer's UI files, and a Writer document with comments
        /// then aborted a warm soffice ("Binary URP bridge disposed during call"), though a cold
        /// `soffice --convert-to` converted it. With the full packages the warm slot survives it.
        @Test func aWordDocumentWithCommentsConvertsWarmWithoutARestart() async throws {
            let directory = TemporaryDirectory("pdfgate-comments")
            let path = directory.file("comments.docx")
            let script = #"""
                import sys, zipfile
                W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
                body = "".join('<w:p><w:commentRangeStart w:id="%d"/><w:r><w:t>Paragraph %d with a comment.</w:t></w:r>'
                               '<w:commentRangeEnd w:id="%d"/><w:r><w:commentReference w:id="%d"/></w:r></w:p>' % (i, i, i, i) for i in range(20))
                comments = "".join('<w:comment w:id="%d" w:author="Reviewer" w:date="2020-01-01T00:00:00Z" w:initials="R">'
                                   '<w:p><w:r><w:t>Comment %d</w:t></w:r></w:p></w:comment>' % (i, i) for i in range(20))
                with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                    z.writestr("[Content_Types].xml", '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
                        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
                        '<Override PartName="/word/comments.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml"/></Types>')
                    z.writestr("_rels/.rels", '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>')
                    z.writestr("word/_rels/document.xml.rels", '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                        '<Relationship Id="rIdC" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" Target="comments.xml"/></Relationships>')
                    z.writestr("word/document.xml", '<?xml version="1.0" encoding="UTF-8"?><w:document %s><w:body>%s</w:body></w:document>' % (W, body))
                    z.writestr("word/comments.xml", '<?xml version="1.0" encoding="UTF-8"?><w:comments %s>%s</w:comments>' % (W, comments))
                """#
            #expect(try await run("/usr/bin/python3", ["-c", script, path]).status == 0)
            try await withConverter(.init(libreOfficeSlots: 1)) { converter in
                for _ in 0..<2 {
                    let job = JobFixture()
                    let request = job.request(.docToPDF, job.file(path))
                    try await converter.convert(request, events: { _ in })
                    #expect(try await run("pdftotext", [job.output, "-"]).stdout.contains("Paragraph 19 with a comment."))
                    // A crash would be hidden by the cold retry's PDF: it must not have happened.
                    #expect(!converter.libreOffice.workers.goesCold(request.jobID), "the warm slot crashed on comments")
                }
                #expect(converter.libreOffice.workers.slots.slots[0].startCount == 1)
            }
        }
    }
}
