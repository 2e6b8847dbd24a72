import CLinuxFS
import Crypto
import Foundation
import GatewayCore
import GatewayLibraryModel
import Glibc

#if canImport(Glibc)
#endif

/// The few file-system primitives the library's crash-safety rests on, each one syscall deep.
enum FileOps {
    /// Atomically moves `from` to `to`, failing with `EEXIST` rather than replacing anything.
    static func renameNoReplace(_ from: String, _ to: String) throws {
        if pdfgate_rename_noreplace(from, to) != 0 { throw FileOpsError(errno: errno, operation: "rename", path: from, other: to) }
    }

    /// Flushes a file's or directory's contents and metadata to disk.
    static func fsync(_ path: String, directory: Bool = false) throws {
        let fd = open(path, (directory ? O_DIRECTORY : 0) | O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw FileOpsError(errno: errno, operation: "open", path: path) }
        defer { close(fd) }
        if Glibc.fsync(fd) != 0 { throw FileOpsError(errno: errno, operation: "fsync", path: path) }
    }

    static func fsyncParent(of path: String) throws {
        try fsync((path as NSString).deletingLastPathComponent, directory: true)
    }

    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    static func size(_ path: String) -> Int64? {
        var st = stat()
        return lstat(path, &st) == 0 ? Int64(st.st_size) : nil
    }

    /// Creates `path` and missing parents; an existing directory is fine.
    static func makeDirectories(_ path: String) throws {
        if isDirectory(path) { return }
        let parent = (path as NSString).deletingLastPathComponent
        if parent != path && !parent.isEmpty { try makeDirectories(parent) }
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw FileOpsError(errno: errno, operation: "mkdir", path: path) }
    }

    static func removeFile(_ path: String) throws {
        if unlink(path) != 0 && errno != ENOENT { throw FileOpsError(errno: errno, operation: "unlink", path: path) }
    }

    static func removeTree(_ path: String) throws {
        guard exists(path) else { return }
        do { try FileManager.default.removeItem(atPath: path) } catch {
            throw FileOpsError(errno: EIO, operation: "remove", path: path)
        }
    }

    /// SHA-256 (hex) and size of a file, read in 1 MiB chunks.
    static func digest(_ path: String) throws -> (sha256: String, size: Int64) {
        try copy(from: path, to: nil)
    }

    /// Copies `from` to `to` (created, never replaced) hashing on the way, and fsyncs the copy.
    /// With `to == nil` it only hashes.
    @discardableResult
    static func copy(from: String, to: String?) throws -> (sha256: String, size: Int64) {
        let input = open(from, O_RDONLY | O_CLOEXEC)
        if input < 0 { throw FileOpsError(errno: errno, operation: "open", path: from) }
        defer { close(input) }
        var output: Int32 = -1
        if let to {
            output = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if output < 0 { throw FileOpsError(errno: errno, operation: "create", path: to) }
        }
        defer { if output >= 0 { close(output) } }

        var hasher = SHA256()
        var total: Int64 = 0
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(input, buffer.baseAddress, chunk)
            if n < 0 {
                if errno == EINTR { continue }
                throw FileOpsError(errno: errno, operation: "read", path: from)
            }
            if n == 0 { break }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            hasher.update(bufferPointer: bytes)
            total += Int64(n)
            var written = 0
            while output >= 0 && written < n {
                let w = write(output, bytes.baseAddress! + written, n - written)
                if w < 0 {
                    if errno == EINTR { continue }
                    throw FileOpsError(errno: errno, operation: "write", path: to ?? "")
                }
                written += w
            }
        }
        if output >= 0 && Glibc.fsync(output) != 0 { throw FileOpsError(errno: errno, operation: "fsync", path: to ?? "") }
        let hex = hexString(hasher.finalize())
        return (hex, total)
    }

    /// Entries of a directory, without `.` and `..`; empty when it does not exist.
    static func list(_ path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }
}

/// A failed system call, with the path it was about.
struct FileOpsError: Error, CustomStringConvertible {
    var errno: Int32
    var operation: String
    var path: String
    var other: String? = nil

    var description: String {
        let reason = String(cString: strerror(errno))
        if let other { return "\(operation) \(path) → \(other): \(reason)" }
        return "\(operation) \(path): \(reason)"
    }

    var libraryError: LibraryError {
        LibraryError(.storage, "the library's storage failed: \(description); check the disk and permissions, then run `pdfgate fsck`")
    }
}
