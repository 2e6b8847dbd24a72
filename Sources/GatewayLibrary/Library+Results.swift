import Foundation

/// Results that are no PDF for the library — a screenshot — kept in the store's private area
/// under their job's id, so that whichever node waits for the job can answer with it. Nobody
/// browses them: the requester takes the file and discards it, and a restart sweeps what a
/// crash left behind (`sweepResults`).
extension Library {
    var resultsDirectory: String { paths.meta + "/results" }

    private func resultPath(_ jobID: UUID) -> String { resultsDirectory + "/" + jobID.lowercased }

    public func keepResult(_ path: String, jobID: UUID) throws {
        let target = resultPath(jobID)
        do {
            try FileOps.makeDirectories(resultsDirectory)
            try FileOps.fsync(path)
            // A retry that kept one already replaces it: the result is the job's latest.
            try FileOps.removeFile(target)
            try FileOps.renameNoReplace(path, target)
            try FileOps.fsyncParent(of: target)
        } catch let error as FileOpsError {
            throw error.libraryError
        }
    }

    public func keptResult(jobID: UUID) -> String? {
        let path = resultPath(jobID)
        return FileOps.exists(path) ? path : nil
    }

    public func discardResult(jobID: UUID) {
        try? FileOps.removeFile(resultPath(jobID))
    }

    /// Removes results kept before `before`: their requester is gone (a crash, a client that
    /// hung up while the answer was being sent). Answers how many went.
    @discardableResult
    public func sweepResults(changedBefore before: Date) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: resultsDirectory)) ?? []
        var removed = 0
        for name in names {
            let path = resultsDirectory + "/" + name
            let changed = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantFuture
            if changed < before, (try? FileOps.removeFile(path)) != nil { removed += 1 }
        }
        return removed
    }
}
