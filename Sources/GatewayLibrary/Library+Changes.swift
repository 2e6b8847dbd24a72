import Foundation
import GatewayLibraryModel

extension Library {
    public func changes(owner: String, since token: String?, limit: Int) async throws(LibraryError) -> LibraryChangePage {
        guard (1...Self.maxPageSize).contains(limit) else {
            throw LibraryError(.invalidArgument, "limit \(limit) is out of range; use 1 to \(Self.maxPageSize)")
        }
        let since = try token.map { text throws(LibraryError) in try ChangeToken(decoding: text) }
        return try await read { catalog in
            let page = try await catalog.changes(owner: owner, after: since?.sequence ?? 0, limit: limit + 1)
            if let since {
                guard since.epoch == page.epoch else {
                    throw LibraryError(
                        .invalidSyncToken,
                        "sync token belongs to another change journal (the database was replaced or restored); read the whole library again without `since`"
                    )
                }
                guard since.sequence >= page.horizon else {
                    throw LibraryError(
                        .syncTokenExpired,
                        "sync token is older than the change history kept, which no longer reaches back that far; read the whole library again without `since`"
                    )
                }
            }
            var entries = page.entries
            let more = entries.count > limit
            if more { entries.removeLast() }
            // The last page's token also passes changes of other owners and forgotten deletions.
            let position = more ? entries[entries.count - 1].sequence : max(page.latest, page.horizon, since?.sequence ?? 0)
            let changes = entries.compactMap { entry -> LibraryChange? in
                switch entry.item {
                case .document(let document): return .document(document.document, ItemVersion(sequence: entry.sequence))
                case .folder(let folder): return .folder(folder.folder, ItemVersion(sequence: entry.sequence))
                // Reading everything, there is nothing to delete yet.
                case .deletedDocument(let id): return since == nil ? nil : UUID(uuidString: id).map(LibraryChange.deletedDocument)
                case .deletedFolder(let id): return since == nil ? nil : UUID(uuidString: id).map(LibraryChange.deletedFolder)
                }
            }
            return LibraryChangePage(changes: changes, token: ChangeToken(epoch: page.epoch, sequence: position).encoded, more: more)
        }
    }

    /// Forgets deletions recorded more than `history` ago (`ChangeJournalPruner`); a client
    /// whose token is older must then read the whole library again.
    @discardableResult
    public func forgetChanges(olderThan history: Duration) async throws(LibraryError) -> Int {
        let seconds = Double(history.components.seconds) + Double(history.components.attoseconds) / 1e18
        return try await read { catalog in try await catalog.forgetDeletions(before: Date().addingTimeInterval(-seconds)) }
    }
}
