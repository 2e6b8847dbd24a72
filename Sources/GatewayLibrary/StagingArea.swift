import Foundation
import GatewayJobModel
import GatewayLibraryModel
import Glibc

#if canImport(Glibc)
#endif

/// `<store>/.pdfgate/staging`, the one owner of its layout:
///
///     <job id>/input/<original file name>   the published input
///     <job id>/input/<n>-<file name>        input n of a job with several
///     <job id>/upload-<uuid>.part           an upload still streaming
///     <job id>/attempt-<n>/                 an attempt's work directory (the converter's output)
///     incoming-<uuid>                       a request body whose job does not exist yet
///
/// It sits on the store's file system, so publishing is one no-replace rename: whatever
/// process shares the store, a job's input appears whole and once. Nodes that share no store
/// (documents in a bucket) also share what they staged through `shared`, under the same names.
public struct StagingArea: InputStaging {
    public let root: String
    /// Where staged files go for the other nodes; nil when they share this directory.
    public let shared: (any StagedObjects)?

    public init(root: String, shared: (any StagedObjects)? = nil) {
        self.root = root
        self.shared = shared
    }

    public func prepare(jobID: UUID) throws {
        try FileManager.default.createDirectory(atPath: inputDirectory(jobID), withIntermediateDirectories: true)
    }

    public func incomingPath() -> String { root + "/incoming-\(UUID().lowercased)" }

    public func discardIncoming(_ path: String) {
        guard path.hasPrefix(root + "/incoming-") else { return }
        unlink(path)
    }

    /// Its directory is made here if missing: the job may have been created on another node.
    public func partialInputPath(for job: Job) -> String {
        try? FileManager.default.createDirectory(atPath: inputDirectory(job.id), withIntermediateDirectories: true)
        return jobDirectory(job.id) + "/upload-\(UUID().lowercased).part"
    }

    public func publishInput(_ file: String, for job: Job, part: Int?, copying: Bool) throws(StagingError) {
        let target = inputPath(for: job, part: part)
        var source = file
        do {
            try FileOps.makeDirectories(inputDirectory(job.id))
            if copying {
                source = partialInputPath(for: job)
                try FileOps.copy(from: file, to: source)
            }
            try FileOps.renameNoReplace(source, target)
        } catch let error as FileOpsError {
            if copying { unlink(source) }
            if error.errno == EEXIST {
                throw StagingError(.inputExists, "this job's file has already been uploaded; an upload URL works once")
            }
            throw StagingError(.storage, "cannot stage the input: \(error); check the store's disk and permissions")
        } catch {
            throw StagingError(.storage, "cannot stage the input: \(error)")
        }
    }

    /// Beside the input and the attempts, never inside what a converter's sandbox can see.
    public func publishSecrets(_ secrets: JobSecrets, jobID: UUID) throws(StagingError) {
        let path = jobDirectory(jobID) + "/secrets.json"
        do {
            let data = try JSONEncoder().encode(secrets)
            let partial = path + ".part"
            guard FileManager.default.createFile(atPath: partial, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw StagingError(.storage, "cannot write the job's secrets at \(partial)")
            }
            guard rename(partial, path) == 0 else {
                throw StagingError(.storage, "cannot keep the job's secrets: \(String(cString: strerror(errno)))")
            }
        } catch let error as StagingError {
            throw error
        } catch {
            throw StagingError(.storage, "cannot keep the job's secrets: \(error)")
        }
    }

    public func secrets(jobID: UUID) -> JobSecrets {
        guard let data = FileManager.default.contents(atPath: jobDirectory(jobID) + "/secrets.json") else { return JobSecrets() }
        return (try? JSONDecoder().decode(JobSecrets.self, from: data)) ?? JobSecrets()
    }

    public func inputPath(for job: Job, part: Int?) -> String {
        guard let part else { return inputDirectory(job.id) + "/" + Self.safeFileName(job.spec.originalFilename ?? "input") }
        var name = "input"
        if let inputs = job.spec.inputs, inputs.indices.contains(part), let filename = inputs[part].filename { name = filename }
        // Numbered, so two inputs of the same name stay apart; the name keeps the extension
        // that picks the importer.
        return inputDirectory(job.id) + "/\(part + 1)-" + Self.safeFileName(name)
    }

    public func attemptDirectory(for job: Job) throws(StagingError) -> String {
        let directory = jobDirectory(job.id) + "/attempt-\(job.state.attempts)"
        do {
            // A directory left by a crashed attempt of the same number starts empty again.
            try? FileManager.default.removeItem(atPath: directory)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StagingError(.storage, "cannot make the attempt's work directory \(directory): \(error)")
        }
        return directory
    }

    public func remove(jobID: UUID) {
        try? FileManager.default.removeItem(atPath: jobDirectory(jobID))
    }

    public func sweep(changedBefore before: Date, isUnfinished: (UUID) async throws -> Bool) async -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return 0 }
        var removed = 0
        for name in names {
            let path = root + "/" + name
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            guard let modified, modified < before else { continue }
            if let id = UUID(uuidString: name) {
                guard let unfinished = try? await isUnfinished(id), !unfinished else { continue }
            }
            if (try? FileManager.default.removeItem(atPath: path)) != nil { removed += 1 }
        }
        return removed
    }

    func jobDirectory(_ id: UUID) -> String { root + "/" + id.lowercased }
    func inputDirectory(_ id: UUID) -> String { jobDirectory(id) + "/input" }

    /// The file name part of what a client called its file: never a path, never hidden.
    static func safeFileName(_ name: String) -> String {
        let base = (name as NSString).lastPathComponent.replacingOccurrences(of: "\0", with: "")
        return base.isEmpty || base.hasPrefix(".") ? "input" + base : base
    }
}

extension Library {
    /// The staging area beside this library, shared through the bucket when documents are in one.
    public var staging: StagingArea { StagingArea(root: paths.staging, shared: objects as? any StagedObjects) }
}
