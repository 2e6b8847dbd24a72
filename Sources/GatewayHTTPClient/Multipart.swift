import CCurl

/// One field of a `multipart/form-data` form.
public struct MultipartPart: Sendable {
    /// What a form field carries.
    public enum Value: Sendable {
        /// A plain text field.
        case text(String)
        /// A file sent as an upload: streamed from `path`, announced as `filename` with `contentType`.
        case file(path: String, filename: String, contentType: String)
        /// A small file made in memory (a template), sent as an upload named `filename`.
        case fileContent(bytes: [UInt8], filename: String, contentType: String)
    }

    /// The form field name.
    public var name: String
    /// The field's content.
    public var value: Value

    /// A form field.
    public init(name: String, value: Value) {
        self.name = name
        self.value = value
    }

    /// A text field.
    public static func text(_ name: String, _ value: String) -> MultipartPart {
        MultipartPart(name: name, value: .text(value))
    }

    /// A file field; `filename` defaults to the last path component.
    public static func file(
        _ name: String,
        path: String,
        filename: String? = nil,
        contentType: String = "application/octet-stream"
    ) -> MultipartPart {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        return MultipartPart(name: name, value: .file(path: path, filename: filename ?? base, contentType: contentType))
    }
}

extension MultipartPart {
    /// Adds this field to a libcurl mime structure. curl copies names and text, and opens the file
    /// itself during the transfer, so nothing here has to outlive the call.
    func append(to mime: OpaquePointer) throws {
        guard let part = curl_mime_addpart(mime) else { throw TransferFailure(.other, "out of memory adding a form field") }
        try check(curl_mime_name(part, name), "setting the form field name \(name)")
        switch value {
        case .text(let text):
            // An explicit length, so text may contain NUL; curl copies the bytes.
            try check(curl_mime_data(part, text, text.utf8.count), "setting the form field \(name)")
        case .file(let path, let filename, let contentType):
            // curl would otherwise learn a missing file only mid-transfer and report a vague read error.
            try LocalFile.requireReadableRegularFile(path, role: "file of form field \(name)")
            try check(curl_mime_filedata(part, path), "attaching \(path) to form field \(name)")
            try check(curl_mime_filename(part, filename), "naming the file of form field \(name)")
            try check(curl_mime_type(part, contentType), "setting the content type of form field \(name)")
        case .fileContent(let bytes, let filename, let contentType):
            try check(
                bytes.withUnsafeBytes { curl_mime_data(part, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count) },
                "setting the form field \(name)"
            )
            try check(curl_mime_filename(part, filename), "naming the file of form field \(name)")
            try check(curl_mime_type(part, contentType), "setting the content type of form field \(name)")
        }
    }

    private func check(_ code: CURLcode, _ what: String) throws {
        guard code == CURLE_OK else { throw TransferFailure(.other, "\(what) failed: \(String(cString: curl_easy_strerror(code)))") }
    }
}
