import Crypto
import Foundation
import GatewayCore
import Hummingbird
import NIOCore

/// Streams a request body into a file, never holding more than a chunk in memory, refusing it
/// past `maxBytes` (413, and the partial file is removed), and hashing it on the way when asked.
package struct BodyToFile {
    package let maxBytes: Int64

    package init(maxBytes: Int64) {
        self.maxBytes = maxBytes
    }

    package struct Written {
        package var bytes: Int64
        package var sha256: String?
    }

    /// Writes `body` to `path` (replacing it); on any failure nothing is left at `path`.
    package func write(_ body: some AsyncSequence<ByteBuffer, any Error>, to path: String, hashing: Bool = false) async throws -> Written {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw APIError(.internalServerError, "storage_error", "cannot create the upload file; is the store writable?")
        }
        do {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            var hasher = hashing ? SHA256() : nil
            var total: Int64 = 0
            for try await buffer in body {
                total += Int64(buffer.readableBytes)
                if total > maxBytes { throw Self.tooLarge(maxBytes) }
                buffer.withUnsafeReadableBytes { bytes in
                    hasher?.update(bufferPointer: bytes)
                }
                try handle.write(contentsOf: buffer.readableBytesView)
            }
            return Written(bytes: total, sha256: hasher.map { hexString($0.finalize()) })
        } catch {
            unlink(path)
            throw error
        }
    }

    package static func tooLarge(_ maxBytes: Int64) -> APIError {
        APIError(
            .contentTooLarge,
            "upload_too_large",
            "the file is larger than the \(ByteCountFormatter.string(fromByteCount: maxBytes, countStyle: .file)) this server accepts; nothing was kept"
        )
    }

    /// Refuses at once when the declared length is already too large, before reading a byte.
    package func checkDeclaredLength(_ request: Request) throws {
        if let text = request.headers[.contentLength], let length = Int64(text), length > maxBytes { throw Self.tooLarge(maxBytes) }
    }
}
