#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few raw file operations the transfer loop's thread needs: plain descriptors, so callbacks move
/// bytes between libcurl's buffers and the kernel without copies or Foundation objects.
enum LocalFile {
    /// Opens a regular file for reading and returns its descriptor and size.
    static func openForReading(_ path: String, role: String = "request body") throws -> (fd: Int32, size: Int64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TransferFailure(.localFile, "cannot open \(role) \(path): \(errnoText())") }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw TransferFailure(.localFile, "\(role) \(path) is not a regular file")
        }
        return (fd, Int64(info.st_size))
    }

    /// Fails unless `path` is a regular file this process can read.
    static func requireReadableRegularFile(_ path: String, role: String) throws {
        let (fd, _) = try openForReading(path, role: role)
        close(fd)
    }

    /// Creates or truncates the response file.
    static func createForWriting(_ path: String) throws -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TransferFailure(.localFile, "cannot create response file \(path): \(errnoText())") }
        return fd
    }

    /// Writes all of `bytes`, retrying short writes and interrupted calls; returns errno on failure.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }

    /// Reads up to `buffer.count` bytes, retrying interrupted calls; -1 with errno on failure.
    static func readSome(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0 && errno == EINTR { continue }
            return count
        }
    }

    static func errnoText(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }
}
