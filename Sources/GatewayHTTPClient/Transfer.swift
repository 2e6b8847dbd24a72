import CCurl
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything one exchange needs, handed to the transfer loop's thread, where all of it runs:
/// the handle is made, driven and read there, and the local files are opened and closed there.
struct Transfer: Sendable {
    var request: HTTPRequest
    var sink: HTTPResponseSink
    var configuration: HTTPClientConfiguration
    var totalTimeout: Duration?

    /// A configured easy handle for this exchange, its files opened into `context`; the caller
    /// keeps `context` alive until the handle is gone, since the callbacks reach it unretained.
    func makeHandle(context: TransferContext) throws -> CurlEasy {
        let handle = try CurlEasy()
        try configure(handle, context: context)
        return handle
    }

    /// The result of an exchange libcurl ended with `code`; releases the local files either way.
    /// Never throws; failures are values.
    func outcome(of code: CURLcode, easy: CurlEasy, context: TransferContext, elapsed: Duration) -> Result<HTTPResponse, any Error> {
        do {
            let response = try finish(easy, code: code, context: context, elapsed: elapsed)
            closeInput(context)
            return .success(response)
        } catch {
            return abandoned(error, context: context)
        }
    }

    /// The result of an exchange that ended with `error` (cancelled, refused before it started,
    /// or failed): closes the files, removes a partial response file and words the failure.
    func abandoned(_ error: any Error, context: TransferContext) -> Result<HTTPResponse, any Error> {
        closeInput(context)
        if case .file(let path) = sink, context.outputFD >= 0 {
            close(context.outputFD)
            context.outputFD = -1
            unlink(path)
        }
        if error is CancellationError { return .failure(error) }
        let failure = error as? TransferFailure ?? TransferFailure(.other, "\(error)")
        return .failure(HTTPClientError(failure.kind, "\(request.method) \(hostDescription) failed: \(failure.detail)"))
    }

    private func closeInput(_ context: TransferContext) {
        if context.inputFD >= 0 { close(context.inputFD) }
        context.inputFD = -1
    }

    // MARK: setup

    private func configure(_ easy: CurlEasy, context: TransferContext) throws {
        let pointer = Unmanaged.passUnretained(context).toOpaque()
        try validate()
        try easy.set(CURLOPT_URL, request.url)
        if !request.resolve.isEmpty {
            try easy.setResolve(request.resolve)
            // Every transfer shares the loop's connection cache, and libcurl matches a cached
            // connection by host name and port, not by the address it went to. A pinned exchange
            // therefore neither takes a connection another request opened (perhaps to a different
            // pin of the same name) nor leaves its own behind for one. The pin also lands in the
            // loop's shared DNS cache, where libcurl keeps it; each transfer loads its own list
            // just before it resolves, so a pinned request connects where its own check looked.
            try easy.set(CURLOPT_FRESH_CONNECT, 1)
            try easy.set(CURLOPT_FORBID_REUSE, 1)
        }
        // Signals cannot be used for timeouts in a multithreaded process.
        try easy.set(CURLOPT_NOSIGNAL, 1)
        // Nothing but http(s), including on redirect: file://, gopher:// and friends are SSRF tools.
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_FOLLOWLOCATION, configuration.followRedirects ? 1 : 0)
        try easy.set(CURLOPT_MAXREDIRS, configuration.maxRedirects)
        try easy.set(CURLOPT_USERAGENT, configuration.userAgent)
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout))
        if let totalTimeout { try easy.set(CURLOPT_TIMEOUT_MS, Self.milliseconds(totalTimeout)) }
        if let low = configuration.lowSpeedLimit {
            try easy.set(CURLOPT_LOW_SPEED_LIMIT, max(1, low.bytesPerSecond))
            try easy.set(CURLOPT_LOW_SPEED_TIME, max(1, (Self.milliseconds(low.duration) + 999) / 1000))
        }
        // Keepalive probes stop NAT boxes from dropping a connection while a converter thinks.
        try easy.set(CURLOPT_TCP_KEEPALIVE, 1)
        switch configuration.proxy {
        case .environment: try setProxy(EnvironmentProxy(for: request.url, environment: ProcessInfo.processInfo.environment), on: easy)
        case .variables(let variables): try setProxy(EnvironmentProxy(for: request.url, environment: variables), on: easy)
        case .direct: try easy.set(CURLOPT_PROXY, "")
        case .url(let url): try easy.set(CURLOPT_PROXY, url)
        }

        try configureBody(easy, context: context, pointer: pointer)

        switch sink {
        case .memory(let limit):
            context.responseLimit = Int64(max(0, limit))
        case .file(let path):
            context.responseLimit = configuration.maxResponseFileBytes
            context.outputFD = try LocalFile.createForWriting(path)
        }
        // Refuses at once a body whose Content-Length already says it is too large.
        if let limit = context.responseLimit { try easy.set(CURLOPT_MAXFILESIZE_LARGE, offset: limit) }

        try check(
            pdfgate_curl_setopt_write(easy.handle) { data, size, count, context in
                let context = Unmanaged<TransferContext>.fromOpaque(context!).takeUnretainedValue()
                return context.receive(UnsafeRawBufferPointer(start: data, count: size * count))
            }
        )
        try easy.set(CURLOPT_WRITEDATA, pointer: pointer)
        try check(
            pdfgate_curl_setopt_header(easy.handle) { data, size, count, context in
                let context = Unmanaged<TransferContext>.fromOpaque(context!).takeUnretainedValue()
                context.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
                return size * count
            }
        )
        try easy.set(CURLOPT_HEADERDATA, pointer: pointer)
    }

    /// An explicit proxy (empty: direct) and its exceptions, so libcurl reads no variable itself.
    private func setProxy(_ selection: EnvironmentProxy, on easy: CurlEasy) throws {
        try easy.set(CURLOPT_PROXY, selection.proxy)
        if let noProxy = selection.noProxy { try easy.set(CURLOPT_NOPROXY, noProxy) }
    }

    private func configureBody(_ easy: CurlEasy, context: TransferContext, pointer: UnsafeMutableRawPointer) throws {
        var headerLines = request.headers.map { "\($0.name): \($0.value)" }
        // curl asks for `100 Continue` before large bodies and waits a second when a server
        // ignores it; an empty `Expect:` turns that off unless the caller wants it.
        if !request.headers.contains("Expect") { headerLines.append("Expect:") }
        let method = request.method
        let needsType: Bool
        switch request.body {
        case .none:
            needsType = false
            switch method {
            case "GET": try easy.set(CURLOPT_HTTPGET, 1)
            case "HEAD": try easy.set(CURLOPT_NOBODY, 1)
            case "POST", "PUT", "PATCH":
                // An explicit empty body, so the request carries `Content-Length: 0`.
                try easy.setCopiedBody([])
                if method != "POST" { try easy.set(CURLOPT_CUSTOMREQUEST, method) }
            default: try easy.set(CURLOPT_CUSTOMREQUEST, method)
            }
        case .bytes(let bytes):
            needsType = true
            try easy.setCopiedBody(bytes)
            if method != "POST" { try easy.set(CURLOPT_CUSTOMREQUEST, method) }
        case .file, .fileRange:
            needsType = true
            let path: String
            switch request.body {
            case .file(let whole): path = whole
            case .fileRange(let part, _, _): path = part
            default: preconditionFailure("only file bodies reach here")
            }
            let (fd, fileSize) = try LocalFile.openForReading(path)
            context.inputFD = fd
            var size = fileSize
            if case .fileRange(_, let offset, let length) = request.body {
                guard offset >= 0, length >= 0, offset + length <= fileSize else {
                    throw TransferFailure(.localFile, "bytes \(offset)..<\(offset + length) are not all in \(path), which has \(fileSize)")
                }
                guard lseek(fd, off_t(offset), SEEK_SET) >= 0 else {
                    throw TransferFailure(.localFile, "cannot seek in \(path): \(LocalFile.errnoText())")
                }
                (context.inputStart, context.inputRemaining, size) = (offset, length, length)
            }
            if method == "PUT" {
                try easy.set(CURLOPT_UPLOAD, 1)
                try easy.set(CURLOPT_INFILESIZE_LARGE, offset: size)
            } else {
                try easy.set(CURLOPT_POST, 1)
                try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: size)
                if method != "POST" { try easy.set(CURLOPT_CUSTOMREQUEST, method) }
            }
            try check(
                pdfgate_curl_setopt_read(easy.handle) { buffer, size, count, context in
                    let context = Unmanaged<TransferContext>.fromOpaque(context!).takeUnretainedValue()
                    return context.sendMore(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
                }
            )
            try easy.set(CURLOPT_READDATA, pointer: pointer)
            try check(
                pdfgate_curl_setopt_seek(easy.handle) { context, offset, origin in
                    let context = Unmanaged<TransferContext>.fromOpaque(context!).takeUnretainedValue()
                    return context.seek(to: Int64(offset), origin: origin)
                }
            )
            try easy.set(CURLOPT_SEEKDATA, pointer: pointer)
        case .multipart(let parts):
            needsType = false  // curl writes multipart/form-data with its boundary.
            try easy.setMultipart(parts)
            if method != "POST" { try easy.set(CURLOPT_CUSTOMREQUEST, method) }
        }
        // Without this curl would label raw bytes as a urlencoded form.
        if needsType && !request.headers.contains("Content-Type") { headerLines.append("Content-Type: application/octet-stream") }
        try easy.setHeaders(headerLines)
    }

    private func validate() throws {
        guard Self.isToken(request.method) else { throw TransferFailure(.invalidRequest, "\"\(request.method)\" is not an HTTP method") }
        let lower = request.url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw TransferFailure(.invalidURL, "only absolute http:// and https:// URLs are supported")
        }
        for field in request.headers {
            // Checked as bytes: "\r\n" is a single Character, so a Character test would miss it.
            let badValue = field.value.utf8.contains { $0 == 13 || $0 == 10 || $0 == 0 }
            if !Self.isToken(field.name) || badValue {
                throw TransferFailure(.invalidRequest, "header \"\(field.name)\" has characters HTTP does not allow (CR, LF, NUL or a bad name)")
            }
        }
    }

    /// RFC 9110 `token`: what methods and header names are made of.
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
    }

    private func check(_ code: CURLcode) throws {
        guard code == CURLE_OK else { throw TransferFailure(.other, "libcurl rejected a callback: \(String(cString: curl_easy_strerror(code)))") }
    }

    // MARK: results

    private func finish(_ easy: CurlEasy, code: CURLcode, context: TransferContext, elapsed: Duration) throws -> HTTPResponse {
        guard code == CURLE_OK else { throw failure(for: code, easy: easy, context: context, elapsed: elapsed) }
        var bodyFile: String?
        if case .file(let path) = sink {
            let fd = context.outputFD
            context.outputFD = -1
            // close() can report a delayed write error (NFS, quota): the file would be incomplete.
            if close(fd) != 0 {
                let reason = LocalFile.errnoText()
                unlink(path)
                throw TransferFailure(.localFile, "cannot finish the response file \(path): \(reason)")
            }
            bodyFile = path
        }
        return HTTPResponse(
            status: easy.info(CURLINFO_RESPONSE_CODE),
            headers: context.headers,
            body: context.body,
            bodyFile: bodyFile,
            bytesReceived: context.bytesReceived,
            redirectURL: easy.info(string: CURLINFO_REDIRECT_URL)
        )
    }

    private func failure(for code: CURLcode, easy: CurlEasy, context: TransferContext, elapsed: Duration) -> TransferFailure {
        let detail = easy.errorDetail.isEmpty ? String(cString: curl_easy_strerror(code)) : easy.errorDetail
        let curlText = "curl: \(detail)"
        switch code {
        case CURLE_WRITE_ERROR where context.exceededLimit, CURLE_FILESIZE_EXCEEDED:
            return TransferFailure(.responseTooLarge, "the response body exceeds the limit of \(context.responseLimit ?? 0) bytes")
        case CURLE_WRITE_ERROR, CURLE_READ_ERROR, CURLE_ABORTED_BY_CALLBACK:
            if let local = context.localFileError { return TransferFailure(.localFile, local) }
            return TransferFailure(.other, curlText)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return TransferFailure(.connectFailed, "could not resolve the host name (\(curlText))")
        case CURLE_COULDNT_CONNECT:
            return TransferFailure(.connectFailed, "could not connect (\(curlText))")
        case CURLE_OPERATION_TIMEDOUT:
            if let totalTimeout, elapsed >= totalTimeout - .milliseconds(50) {
                return TransferFailure(.timedOut, "no complete response within \(totalTimeout) (\(curlText))")
            }
            if detail.contains("too slow") {
                return TransferFailure(.tooSlow, "the transfer stayed below the low-speed limit (\(curlText))")
            }
            if easy.info(offset: CURLINFO_CONNECT_TIME_T) == 0 {
                return TransferFailure(.connectFailed, "could not connect within \(configuration.connectTimeout) (\(curlText))")
            }
            return TransferFailure(.timedOut, curlText)
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING:
            return TransferFailure(.connectionReset, "the connection was reset or closed before a complete answer (\(curlText))")
        case CURLE_PARTIAL_FILE:
            return TransferFailure(
                .truncated,
                "the connection closed before the whole body arrived after \(context.bytesReceived) bytes (\(curlText))"
            )
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return TransferFailure(.invalidURL, curlText)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_SHUTDOWN_FAILED,
            CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
            CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
            return TransferFailure(.tls, "TLS failed (\(curlText))")
        default:
            return TransferFailure(.other, curlText)
        }
    }

    /// `host:port` of the URL, for messages: enough to locate the peer without echoing a query
    /// string that might carry a token.
    private var hostDescription: String {
        var rest = Substring(request.url)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let withoutUser = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        return String(withoutUser)
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
    }
}
