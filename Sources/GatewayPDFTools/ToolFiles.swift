import Foundation
import GatewayJobModel

/// The few file moves the converters and the PDF operations make between the job's directories.
package enum ToolFiles {
    package static func makeDirectory(_ path: String) throws(JobFailure) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw JobFailure(.transient, code: "storage_error", "could not create \(path): \(error.localizedDescription)")
        }
    }

    /// A hard link when both sides share a file system (instant, and the library's later renames
    /// or deletes cannot touch it), else a copy.
    package static func linkOrCopy(_ source: String, to destination: String) throws(JobFailure) {
        unlink(destination)
        if link(source, destination) == 0 { return }
        try copy(source, to: destination)
    }

    static func copy(_ source: String, to destination: String) throws(JobFailure) {
        unlink(destination)
        do {
            try FileManager.default.copyItem(atPath: source, toPath: destination)
        } catch {
            throw JobFailure(.transient, code: "storage_error", "could not copy \(source): \(error.localizedDescription)")
        }
    }

    static func moveReplacing(_ source: String, to destination: String) throws(JobFailure) {
        guard rename(source, destination) == 0 else {
            throw JobFailure(.transient, code: "storage_error", "could not move \(source) to \(destination): \(String(cString: strerror(errno)))")
        }
    }

    static func size(_ path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
    }
}
