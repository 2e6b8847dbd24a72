import CCurl
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The state of one transfer that libcurl's C callbacks reach through an `Unmanaged` pointer.
///
/// `@unchecked Sendable` is safe because everything but `cancelled` is touched only by the
/// transfer loop's thread: the handle is configured there, libcurl runs the callbacks
/// synchronously inside `curl_multi_perform` there, and the results are read there once the
/// transfer ended. `cancelled`, set by the task's cancellation handler, is an `Atomic`.
final class TransferContext: @unchecked Sendable {
    // MARK: loop-thread state

    /// Headers of the latest response seen; reset at each status line, so 1xx interim answers and
    /// followed redirects leave only the final response's fields.
    var headers = HTTPHeaders()
    /// The in-memory body (memory sink).
    var body: [UInt8] = []
    /// Where the body goes: a descriptor (file sink) or nil for memory.
    var outputFD: Int32 = -1
    /// The request body file (`.file` body), read by `readCallback`.
    var inputFD: Int32 = -1
    /// Where the body starts in that file (`.fileRange`; 0 for a whole file).
    var inputStart: Int64 = 0
    /// Body bytes still to send from it; nil sends to the end of the file.
    var inputRemaining: Int64?
    /// Body bytes accepted so far.
    var bytesReceived: Int64 = 0
    /// Abort once the body would pass this many bytes.
    var responseLimit: Int64?
    /// Set when the limit was passed, so `CURLE_WRITE_ERROR` can be reported as too large.
    var exceededLimit = false
    /// Set when a local read or write failed, with the reason.
    var localFileError: String?

    // MARK: cross-thread state

    /// Set by `TransferLoop.cancel(_:)`, so a transfer cancelled before the loop started it never starts.
    let cancelled = Atomic<Bool>(false)

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    // MARK: callbacks

    /// Body bytes arrived: keep them in memory or write them to the file. Returning less than
    /// `data.count` makes libcurl abort with `CURLE_WRITE_ERROR`.
    func receive(_ data: UnsafeRawBufferPointer) -> Int {
        if let responseLimit, bytesReceived + Int64(data.count) > responseLimit {
            exceededLimit = true
            return 0
        }
        if outputFD >= 0 {
            if let failure = LocalFile.writeAll(outputFD, data) {
                localFileError = "cannot write the response file: \(LocalFile.errnoText(failure))"
                return 0
            }
        } else {
            body.append(contentsOf: data)
        }
        bytesReceived += Int64(data.count)
        return data.count
    }

    /// One raw header line, CRLF included, as libcurl delivers it.
    func receiveHeaderLine(_ data: UnsafeRawBufferPointer) {
        // Strip CR/LF as bytes: as a String, "\r\n" is one Character that equals neither.
        var end = data.count
        while end > 0, data[end - 1] == 10 || data[end - 1] == 13 { end -= 1 }
        let line = String(decoding: UnsafeRawBufferPointer(rebasing: data[0..<end]), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers = HTTPHeaders()
        } else if let first = line.first, first == " " || first == "\t", !headers.fields.isEmpty {
            // An obsolete folded continuation line belongs to the previous field.
            headers.extendLastValue(line.trimmingCharacters())
        } else if let colon = line.firstIndex(of: ":") {
            headers.add(String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters())
        }
    }

    /// libcurl wants more request body: read it from the file.
    func sendMore(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var buffer = buffer
        if let remaining = inputRemaining {
            guard remaining > 0 else { return 0 }
            buffer = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(Int64(buffer.count), remaining))])
        }
        let count = LocalFile.readSome(inputFD, into: buffer)
        if count < 0 {
            localFileError = "cannot read the request body: \(LocalFile.errnoText())"
            return Int(CURL_READFUNC_ABORT)
        }
        if let remaining = inputRemaining { inputRemaining = remaining - Int64(count) }
        return count
    }

    /// libcurl must resend the body (a redirect or an authentication retry): rewind the file
    /// (offsets count from the body's start, which for a range is inside the file).
    func seek(to offset: Int64, origin: Int32) -> Int32 {
        guard origin == SEEK_SET else {
            return lseek(inputFD, off_t(offset), origin) < 0 ? Int32(CURL_SEEKFUNC_CANTSEEK) : Int32(CURL_SEEKFUNC_OK)
        }
        if let remaining = inputRemaining {
            let position = lseek(inputFD, 0, SEEK_CUR)
            inputRemaining = remaining + (Int64(position) - inputStart) - offset
        }
        return lseek(inputFD, off_t(inputStart + offset), SEEK_SET) < 0 ? Int32(CURL_SEEKFUNC_CANTSEEK) : Int32(CURL_SEEKFUNC_OK)
    }
}

extension String {
    /// Strips ASCII spaces and tabs at both ends (header values; no Foundation needed).
    fileprivate func trimmingCharacters() -> String {
        var slice = Substring(self)
        while let c = slice.first, c == " " || c == "\t" { slice.removeFirst() }
        while let c = slice.last, c == " " || c == "\t" { slice.removeLast() }
        return String(slice)
    }
}
