import GRDB
import GatewaySearchText

/// The folders a document is under, read from the catalog's `folders` rows in the caller's
/// transaction: its scope tokens name each of them.
enum SearchFolders {
    /// `A/B/C` → `A`, `A/B`, `A/B/C`.
    static func pathAndAncestors(_ path: String) -> [String] {
        var paths: [String] = []
        var prefix = ""
        for name in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix = prefix.isEmpty ? String(name) : prefix + "/" + name
            paths.append(prefix)
        }
        return paths
    }

    /// The ids of `folderID` and of every folder above it. A folder without a row (which the
    /// catalog never leaves behind) counts as its own only ancestor rather than failing a filing.
    static func folderAndAncestors(owner: String, folderID: String, in db: Database) throws -> [String] {
        guard !folderID.isEmpty else { return [] }
        guard
            let path = try String.fetchOne(
                db.cachedStatement(sql: "SELECT path FROM folders WHERE id = ? AND owner = ?"),
                arguments: [folderID, owner]
            )
        else { return [folderID] }
        let paths = pathAndAncestors(path)
        let placeholders = databaseQuestionMarks(count: paths.count)
        let ids = try String.fetchAll(
            db,
            sql: "SELECT id FROM folders WHERE owner = ? AND path IN (\(placeholders))",
            arguments: StatementArguments([owner] + paths)
        )
        return ids.contains(folderID) ? ids : ids + [folderID]
    }

    /// The scope column of a document of `owner` in `folderID`.
    static func scopeText(owner: String, folderID: String, in db: Database) throws -> String {
        let chain = try folderAndAncestors(owner: owner, folderID: folderID, in: db)
        return SearchScopeTokens.text(SearchScopeTokens.tokens(owner: owner, folderID: folderID, folderAndAncestors: chain))
    }
}
