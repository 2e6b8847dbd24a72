import Foundation
import GatewayJobModel

/// Checks on what an HTTP backend sent back, shared by Gotenberg and the remote gateway.
enum RemoteOutput {
    /// Throws a transient `invalid_output` (and removes the file) unless `path` starts with `%PDF-`.
    ///
    /// Transient rather than rejected: a converter that answers 200 with garbage (an error page
    /// from a proxy, a half-written file) is misbehaving, not judging the input, so one more
    /// attempt is worth it; the engine's attempt limit stops a backend that always does it.
    static func verifyPDF(at path: String, service: String) throws(JobFailure) {
        let head = FileHandle(forReadingAtPath: path).flatMap { handle in
            defer { try? handle.close() }
            return try? handle.read(upToCount: 5)
        }
        guard let head, head == Data("%PDF-".utf8) else {
            let what = (head?.isEmpty ?? true) ? "an empty body" : "a body that is not a PDF: \(excerpt(ofFile: path, limit: 200))"
            discard(path)
            throw JobFailure(.transient, code: "invalid_output", "\(service) answered with success but sent \(what)")
        }
    }

    /// Removes a partial or error body so a failed attempt never leaves a file at the output path.
    static func discard(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The first `limit` bytes of a response body saved in a file, as one trimmed line, for error messages.
    static func excerpt(ofFile path: String, limit: Int = 1000) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: limit * 4)) ?? Data()
        return excerpt(String(decoding: data, as: UTF8.self), limit: limit)
    }

    /// `text` trimmed, with line breaks and control characters folded into spaces and cut to
    /// `limit` characters: a peer's error text goes into a job record and a log line.
    static func excerpt(_ text: String, limit: Int = 1000) -> String {
        let flattened = String(text.unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : Character($0) })
        let trimmed = flattened.trimmingCharacters(in: .whitespaces)
        return trimmed.count > limit ? String(trimmed.prefix(limit)) + "…" : trimmed
    }
}
