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
            try Self.check(since, against: page)
            // A slice, not `removeLast()` on a copy: that would copy every entry of the page.
            let more = page.entries.count > limit
            let entries = page.entries.prefix(limit)
            // The last page's token also passes changes of other owners and forgotten deletions.
            let position = more ? entries[entries.endIndex - 1].sequence : max(page.latest, page.horizon, since?.sequence ?? 0)
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

    public func changeToken(owner: String) async throws(LibraryError) -> String {
        try await read { catalog in
            let page = try await catalog.changes(owner: owner, after: .max, limit: 1)
            return ChangeToken(epoch: page.epoch, sequence: max(page.latest, page.horizon)).encoded
        }
    }

    public func folderChanges(
        _ folder: FolderReference,
        owner: String,
        since token: String?,
        limit: Int?
    ) async throws(LibraryError)
        -> FolderChangeSet
    {
        if let limit, limit < 1 { throw LibraryError(.invalidArgument, "limit \(limit) is out of range; ask for 1 or more") }
        let since = try token.map { text throws(LibraryError) in try ChangeToken(decoding: text) }
        return try await read { catalog in
            let folderID = try await resolveFolder(owner: owner, folder)?.id ?? ""
            let page = try await catalog.changes(owner: owner, inFolder: folderID, after: since?.sequence ?? 0)
            try Self.check(since, against: page)
            // Members and departures in one order; a cut falls between two numbers, never inside
            // one change (a rename is a departure and an arrival under the same number).
            var cut = Int64.max
            if let limit {
                let numbers = (page.entries.map(\.sequence) + (since == nil ? [] : page.departures.map(\.sequence))).sorted()
                if numbers.count > limit { cut = numbers[limit - 1] }
            }
            let members = page.entries.filter { $0.sequence <= cut }
            var changed: [LibraryChange] = []
            var names = Set<String>()
            for entry in members {
                switch entry.item {
                case .document(let document):
                    changed.append(.document(document.document, ItemVersion(sequence: entry.sequence)))
                    names.insert("d/" + document.record.name)
                case .folder(let folder):
                    changed.append(.folder(folder.folder, ItemVersion(sequence: entry.sequence)))
                    names.insert("f/" + folder.name)
                case .deletedDocument, .deletedFolder: continue
                }
            }
            // A name left since the token and taken again is among the changed members: a member
            // that arrived after the departure has a later number.
            var departed: [(kind: LibraryItemKind, name: String)] = []
            if since != nil {
                for departure in page.departures where departure.sequence <= cut {
                    let key = (departure.kind == .document ? "d/" : "f/") + departure.name
                    if names.insert(key).inserted { departed.append((departure.kind, departure.name)) }
                }
            }
            let more = cut != .max
            let position = more ? cut : max(page.latest, page.horizon, since?.sequence ?? 0)
            return FolderChangeSet(
                changed: changed,
                departed: departed,
                token: ChangeToken(epoch: page.epoch, sequence: position).encoded,
                more: more
            )
        }
    }

    /// Refuses a token from another journal or from before the history kept.
    private static func check(_ since: ChangeToken?, against page: JournalPage) throws(LibraryError) {
        guard let since else { return }
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

    /// Forgets deletions recorded more than `history` ago (`ChangeJournalPruner`); a client
    /// whose token is older must then read the whole library again.
    @discardableResult
    public func forgetChanges(olderThan history: Duration) async throws(LibraryError) -> Int {
        let seconds = Double(history.components.seconds) + Double(history.components.attoseconds) / 1e18
        return try await read { catalog in try await catalog.forgetDeletions(before: Date().addingTimeInterval(-seconds)) }
    }
}
