import CCurl

/// One libcurl easy handle and the C resources its options point at (header list, mime form,
/// error buffer), freed together. It lives and dies on the transfer loop's thread and never escapes it.
final class CurlEasy {
    let handle: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var resolveList: UnsafeMutablePointer<curl_slist>?
    private var mime: OpaquePointer?
    private let errorBuffer: UnsafeMutablePointer<CChar>

    init() throws {
        CurlGlobal.initialize()
        guard let handle = curl_easy_init() else { throw TransferFailure(.other, "libcurl could not create a handle (out of memory?)") }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
    }

    deinit {
        // The handle references the list, the form and the buffer, so it goes first.
        curl_easy_cleanup(handle)
        if let mime { curl_mime_free(mime) }
        curl_slist_free_all(headerList)
        curl_slist_free_all(resolveList)
        errorBuffer.deallocate()
    }

    /// libcurl's detailed message for the last failure, e.g. "Failed to connect to … port 1 …".
    var errorDetail: String { String(cString: errorBuffer) }

    func set(_ option: CURLoption, _ value: Int) throws {
        try check(pdfgate_curl_setopt_long(handle, option, value), option)
    }

    func set(_ option: CURLoption, _ value: String) throws {
        // libcurl copies string options (except POSTFIELDS, which is never used), so the
        // temporary C string may die when this returns.
        try check(pdfgate_curl_setopt_string(handle, option, value), option)
    }

    func set(_ option: CURLoption, offset value: Int64) throws {
        try check(pdfgate_curl_setopt_off(handle, option, curl_off_t(value)), option)
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws {
        try check(pdfgate_curl_setopt_pointer(handle, option, value), option)
    }

    /// Sends `lines` ("Name: value") as request headers; the list is freed with the handle.
    func setHeaders(_ lines: [String]) throws {
        for line in lines {
            guard let appended = curl_slist_append(headerList, line) else { throw TransferFailure(.other, "out of memory building headers") }
            headerList = appended
        }
        try check(pdfgate_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList), CURLOPT_HTTPHEADER)
    }

    /// Pins names to addresses ("host:port:address"), so the connection goes where the SSRF
    /// check looked and DNS cannot be asked again.
    func setResolve(_ entries: [String]) throws {
        for entry in entries {
            guard let appended = curl_slist_append(resolveList, entry) else { throw TransferFailure(.other, "out of memory building resolve list") }
            resolveList = appended
        }
        try check(pdfgate_curl_setopt_slist(handle, CURLOPT_RESOLVE, resolveList), CURLOPT_RESOLVE)
    }

    /// Sends `parts` as a `multipart/form-data` body; the form is freed with the handle.
    func setMultipart(_ parts: [MultipartPart]) throws {
        guard let mime = curl_mime_init(handle) else { throw TransferFailure(.other, "out of memory building a form") }
        self.mime = mime
        for part in parts { try part.append(to: mime) }
        try check(pdfgate_curl_setopt_mime(handle, mime), CURLOPT_MIMEPOST)
    }

    /// Sends a copy of `bytes` as the body (COPYPOSTFIELDS copies, so no buffer has to outlive the call).
    func setCopiedBody(_ bytes: [UInt8]) throws {
        try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(bytes.count))
        let code = bytes.withUnsafeBytes { buffer in
            pdfgate_curl_setopt_pointer(
                handle,
                CURLOPT_COPYPOSTFIELDS,
                UnsafeMutableRawPointer(mutating: buffer.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start))
            )
        }
        try check(code, CURLOPT_COPYPOSTFIELDS)
    }

    func info(_ item: CURLINFO) -> Int {
        var value = 0
        _ = pdfgate_curl_getinfo_long(handle, item, &value)
        return value
    }

    func info(offset item: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        _ = pdfgate_curl_getinfo_off(handle, item, &value)
        return Int64(value)
    }

    func info(string item: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard pdfgate_curl_getinfo_string(handle, item, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws {
        guard code == CURLE_OK else {
            let reason = String(cString: curl_easy_strerror(code))
            throw TransferFailure(.other, "libcurl rejected option \(option.rawValue): \(reason)")
        }
    }
}

/// `curl_global_init` must run once before any handle exists and is not safe to race, so it
/// hides behind a lazily initialised static (`swift_once` makes that thread-safe).
enum CurlGlobal {
    private static let initialized: Bool = pdfgate_curl_global_init() == CURLE_OK

    static func initialize() {
        precondition(initialized, "curl_global_init failed")
    }
}
