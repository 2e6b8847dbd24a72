import Foundation
import GatewayJobModel
import GatewayLibraryModel

/// The staging area's side that other nodes see: a job's inputs and secrets copied to the
/// shared storage when they arrive, and fetched from it before an attempt on another node.
extension StagingArea {
    public func share(jobID: UUID) async throws(StagingError) {
        guard let shared else { return }
        let prefix = jobID.lowercased + "/"
        let secrets = jobDirectory(jobID) + "/secrets.json"
        if FileManager.default.fileExists(atPath: secrets) {
            _ = try await Self.staging { try await shared.stage(secrets, as: prefix + "secrets.json") }
        }
        let inputs = (try? FileManager.default.contentsOfDirectory(atPath: inputDirectory(jobID))) ?? []
        for name in inputs.sorted() {
            let stored = try await Self.staging { try await shared.stage(inputDirectory(jobID) + "/" + name, as: prefix + "input/" + name) }
            guard stored else { throw StagingError(.inputExists, "this job's file has already been uploaded; an upload URL works once") }
        }
    }

    public func gather(for job: Job) async throws(StagingError) {
        guard let shared else { return }
        let prefix = job.id.lowercased + "/"
        let staged = try await Self.staging { try await shared.listStaged(prefix) }
        for (name, _) in staged {
            let relative = String(name.dropFirst(prefix.count))
            // Only what a job directory holds: its inputs and its secrets, never a path out of it.
            guard relative == "secrets.json" || (relative.hasPrefix("input/") && !relative.dropFirst(6).contains("/")) else { continue }
            let target = jobDirectory(job.id) + "/" + relative
            guard !FileManager.default.fileExists(atPath: target) else { continue }
            let partial = jobDirectory(job.id) + "/.fetching-\(UUID().lowercased)"
            do {
                try FileManager.default.createDirectory(atPath: inputDirectory(job.id), withIntermediateDirectories: true)
                guard try await shared.fetchStaged(name, to: partial) else { continue }
                if relative == "secrets.json" { chmod(partial, 0o600) }
                guard rename(partial, target) == 0 else {
                    throw StagingError(.storage, "cannot keep the job's staged \(relative): \(String(cString: strerror(errno)))")
                }
            } catch {
                unlink(partial)
                throw Self.stagingError(error)
            }
        }
    }

    public func sweepShared(changedBefore before: Date, isUnfinished: (UUID) async throws -> Bool) async -> Int {
        guard let shared, let staged = try? await shared.listStaged("") else { return 0 }
        var removed = 0
        var verdicts: [UUID: Bool] = [:]
        for (name, stagedAt) in staged where (stagedAt ?? Date()) < before {
            guard let id = UUID(uuidString: String(name.prefix { $0 != "/" })) else { continue }
            if verdicts[id] == nil { verdicts[id] = (try? await isUnfinished(id)) ?? true }
            guard verdicts[id] == false else { continue }
            if (try? await shared.removeStaged(name)) != nil { removed += 1 }
        }
        return removed
    }

    private static func staging<T>(_ body: () async throws -> T) async throws(StagingError) -> T {
        do { return try await body() } catch { throw stagingError(error) }
    }

    private static func stagingError(_ error: any Error) -> StagingError {
        switch error {
        case let error as StagingError: error
        case let error as LibraryError where error.kind == .storageUnavailable: StagingError(.unavailable, error.message)
        case let error as LibraryError: StagingError(.storage, error.message)
        default: StagingError(.storage, "cannot share the job's staged files: \(error)")
        }
    }
}
