import Foundation
import GatewayLibraryModel
import Logging

/// Reads the text of documents whose index entry is pending and writes it in: a document filed
/// moments ago, one whose file was replaced, every document of a store that had no index yet
/// (migration `v9-search` enqueues them all), one an fsck repair re-queued. One runs per
/// gateway; it sleeps until the library files something, and looks again every few seconds in
/// case another process sharing the store did.
///
/// The text comes from an inspector's worker (Poppler, in a process of its own with a memory cap
/// and a time limit), never from this process: a hostile PDF costs a worker, and its entry is
/// marked `failed` (found by name and title, and a repair can try again).
package final class SearchIndexer: Sendable {
    let library: Library
    let index: any SearchIndex
    let inspector: any PDFInspector
    /// Where the worker writes each document's text, read back and removed at once.
    let scratch: String
    let logger: Logger
    /// How often to look for entries another process left pending.
    let idlePoll: Duration
    /// How long filing must pause before the indexer reads (see `quietMoment`).
    let quiet: Duration = .milliseconds(200)
    /// The longest the indexer defers to filing.
    let maxLag: Duration = .seconds(2)

    package init(library: Library, index: any SearchIndex, inspector: any PDFInspector, logger: Logger, idlePoll: Duration = .seconds(5)) {
        self.library = library
        self.index = index
        self.inspector = inspector
        self.scratch = library.paths.meta + "/indexing"
        self.logger = logger
        self.idlePoll = idlePoll
    }

    /// Indexes until cancelled. Errors of one document never stop it; a failing database makes
    /// it wait a poll and try again.
    package func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { [library, idlePoll] in
                // The poll: a signal now and then, in the same stream the library signals.
                while !Task.isCancelled {
                    try? await Task.sleep(for: idlePoll)
                    library.textWaiting.continuation.yield()
                }
            }
            await indexUntilCancelled()
            group.cancelAll()
        }
    }

    private func indexUntilCancelled() async {
        var signals = library.textWaiting.stream.makeAsyncIterator()
        while !Task.isCancelled {
            do {
                await quietMoment()
                if try await indexPending() == 0 { _ = await signals.next() }
            } catch is CancellationError {
                return
            } catch {
                logger.warning("search.indexer_failed", metadata: ["error": "\(error)"])
                _ = await signals.next()
            }
        }
    }

    /// Waits while documents are being filed, so reading their text does not compete for the
    /// cores with the jobs filing them, but no longer than `maxLag`: text filed in a steady
    /// stream is still read within it.
    func quietMoment() async {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < maxLag {
            let since = ContinuousClock.now - library.lastFiled.withLock { $0 }
            guard since < quiet else { return }
            try? await Task.sleep(for: quiet - since)
        }
    }

    /// Indexes every entry pending now, a batch at a time; answers how many were read.
    @discardableResult
    package func indexPending(batch: Int = 16) async throws -> Int {
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        var done = 0
        // Entries left pending on purpose (a document mid-operation): not read again this pass.
        var skipped: Set<String> = []
        while !Task.isCancelled {
            let pending = try await index.pending(limit: batch + skipped.count).filter { !skipped.contains($0.documentID) }
            if pending.isEmpty { break }
            for document in pending {
                if try await indexDocument(document.documentID) { done += 1 } else { skipped.insert(document.documentID) }
            }
            // A store indexed for the first time (the backfill) says how far it is.
            if done % 1_000 < pending.count, done >= 1_000 {
                let status = try await index.status(owner: nil)
                logger.info("search.backfill", metadata: ["indexed": "\(done)", "pending": "\(status.pending)"])
            }
        }
        return done
    }

    /// Reads one document's text and writes its entry, if the document is still what was read;
    /// false when it was left pending (the document is mid-operation, or changed meanwhile).
    func indexDocument(_ id: String) async throws -> Bool {
        guard let row = try await library.catalog.document(id: id, owner: nil, readyOnly: false) else {
            // No such document: an entry no catalog write removed (fsck's orphan).
            try await index.delete(documentIDs: [id])
            return true
        }
        guard row.record.state == .ready, row.record.pathBefore == nil else { return false }
        let content: SearchContent
        do {
            content = await text(of: try await library.readableFile(of: row.document), id: id)
        } catch  where error.kind == .storageUnavailable {
            return false  // left pending: the bucket is back later, and so is the indexer
        }
        // Checked and written in one transaction of the index, which takes the row as it is
        // then: no lock of the library's is held, so filing never waits for indexing.
        return try await index.writeText(documentID: id, sha256: row.record.sha256, content: content)
    }

    /// The pages' text as the inspector's worker reads it, or `.failed`.
    func text(of path: String, id: String) async -> SearchContent {
        let output = scratch + "/" + id + ".txt"
        defer { try? FileManager.default.removeItem(atPath: output) }
        do {
            let inspection = try await inspector.inspect(path: path, thumbnail: nil, textOutputPath: output)
            guard let text = try inspection.text?.read(path: output) else {
                let why = inspection.text?.failure ?? "the inspector reads no text"
                logger.info("search.text_unreadable", metadata: ["document": "\(id)", "error": "\(why)"])
                return .failed
            }
            return .text(text, source: .pdf)
        } catch {
            logger.info("search.text_unreadable", metadata: ["document": "\(id)", "error": "\(error)"])
            return .failed
        }
    }
}
