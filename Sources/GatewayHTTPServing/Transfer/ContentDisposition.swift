import Foundation

/// The parameters of a `Content-Disposition` header, a request's or a multipart part's: one
/// parser for both (`HeaderValue`), so a file name reads the same however it arrives.
package enum ContentDisposition {
    /// The file name: `filename*` (RFC 5987/6266, UTF-8 or ISO-8859-1) wins over `filename`,
    /// quoted or not. Clients may send a full path (old browsers did): only the last component
    /// is kept, so it never names a directory.
    package static func filename(_ header: String) -> String? {
        guard let name = parameter("filename", of: header) else { return nil }
        return name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init)
    }

    /// Parameter `name` of the header, its extended form `name*` first.
    package static func parameter(_ name: String, of header: String) -> String? {
        let parameters = HeaderValue.split(header).parameters
        return parameters[name + "*"].flatMap(HeaderValue.decodeExtended) ?? parameters[name]
    }
}
