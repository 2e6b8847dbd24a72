import Foundation

/// Where the runner files what converters produce: the library, seen from the engine.
public protocol DocumentFiler: Sendable {
    /// Files the PDF at `path` (taking it), exactly once per `id`.
    func fileConverted(
        _ path: String,
        id: UUID,
        owner: String,
        folder: String?,
        name: String,
        conflict: ConflictPolicy,
        info: PDFInfo
    ) async throws -> Document
    /// Refuses now a destination filing would refuse later (a folder id that is not the
    /// owner's, a path no folder can have), so a job does not fail after its conversion for it.
    func checkDestination(folder: String?, owner: String) async throws
    /// Removes the document filed under `id`, if there is one (answering whether there was): a
    /// job that ends without success takes back what it filed.
    @discardableResult
    func discardConverted(id: UUID, owner: String) async throws -> Bool
    /// The owner's document `id` and where its PDF is, for an operation to read.
    func storedDocument(id: UUID, owner: String) async throws -> (document: Document, path: String)
    /// Puts the PDF at `path` (taking it) in place of document `id`'s file; the id, name and
    /// folder stay. Only an operation asked to change its original does this.
    func replaceContent(of id: UUID, owner: String, with path: String, info: PDFInfo) async throws -> Document
    /// Keeps a result that is no PDF for the library (a screenshot), taking the file at `path`,
    /// under its job's id in the shared store, until whoever waits for the job takes it.
    func keepResult(_ path: String, jobID: UUID) throws
    /// Where job `jobID`'s kept result is; nil when it has none (any more).
    func keptResult(jobID: UUID) -> String?
    /// Removes job `jobID`'s kept result, if there is one.
    func discardResult(jobID: UUID)
}
