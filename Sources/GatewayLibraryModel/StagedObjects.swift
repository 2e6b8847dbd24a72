import Foundation

/// Job inputs staged where every node reaches them. With documents in a bucket, nodes share no
/// folder: a job created on one node, uploaded to on a second and run on a third finds its
/// files here. Names are relative, `<job id>/<path in the job's staging directory>`.
public protocol StagedObjects: Sendable {
    /// Stores the file at `path` as `name`, unless something is staged under that name already:
    /// false then (an input arrives once, on whichever node).
    func stage(_ path: String, as name: String) async throws(LibraryError) -> Bool
    /// Writes staged `name` into a file created at `path`; false when nothing is staged under it.
    func fetchStaged(_ name: String, to path: String) async throws(LibraryError) -> Bool
    /// What is staged under `prefix` (`<job id>/`, or empty for everything), with when it was.
    func listStaged(_ prefix: String) async throws(LibraryError) -> [(name: String, staged: Date?)]
    func removeStaged(_ name: String) async throws(LibraryError)
}
