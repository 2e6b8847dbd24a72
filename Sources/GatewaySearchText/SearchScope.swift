import Crypto
import Foundation

/// Which documents a search looks at: one owner's, all of them or one folder's, with or without
/// the folders under it.
public struct SearchScope: Sendable, Equatable {
    public var owner: String
    /// The folder's id (lower case); nil for the owner's root.
    public var folderID: String?
    /// Whether documents in folders under `folderID` count too.
    public var recursive: Bool

    public init(owner: String, folderID: String? = nil, recursive: Bool = true) {
        self.owner = owner
        self.folderID = folderID
        self.recursive = recursive
    }

    /// The scope tokens a document must carry to be in this scope, all of them (see
    /// `SearchScopeTokens`). A folder's token alone: folder ids are unique across owners, the
    /// caller resolved the folder as the owner's, and an index checks the owner of each hit
    /// anyway. Adding the owner's token would cost FTS5's bm25 a walk over all of the owner's
    /// documents (it computes each term's IDF, a weight-0 scope term's too).
    public var requiredTokens: [String] {
        switch (folderID, recursive) {
        case (nil, true): [SearchScopeTokens.owner(owner)]
        case (nil, false): [SearchScopeTokens.ownerRoot(owner)]
        case (let folder?, true): [SearchScopeTokens.folder(folder)]
        case (let folder?, false): [SearchScopeTokens.directFolder(folder)]
        }
    }
}

/// Owner and folder filters as words in the index: every document carries a token for its owner,
/// for each folder it is under (its own and every ancestor), and for the one folder it is
/// directly in. A filter is then one more term to intersect in the same index, never a join
/// that scans, which is why moving a folder rewrites the rows of the documents under it.
///
/// Tokens are lower-case hex behind a letter, so every tokenizer keeps each one whole.
public enum SearchScopeTokens {
    /// Every document of `owner`. Owners are hashed: their names may hold anything.
    public static func owner(_ owner: String) -> String { "o" + ownerHash(owner) }
    /// Documents directly in the owner's root folder.
    public static func ownerRoot(_ owner: String) -> String { "r" + ownerHash(owner) }
    /// Documents in this folder or any folder under it.
    public static func folder(_ id: String) -> String { "f" + hex(id) }
    /// Documents directly in this folder.
    public static func directFolder(_ id: String) -> String { "d" + hex(id) }

    /// The tokens of a document of `owner` in `folderID` (`""` for the root), whose folder and
    /// its ancestors are `folderAndAncestors` (empty for the root).
    public static func tokens(owner: String, folderID: String, folderAndAncestors: [String]) -> [String] {
        guard !folderID.isEmpty else { return [self.owner(owner), ownerRoot(owner)] }
        return [self.owner(owner), directFolder(folderID)] + folderAndAncestors.map(folder)
    }

    /// The column text for `tokens`.
    public static func text(_ tokens: [String]) -> String { tokens.joined(separator: " ") }

    private static func ownerHash(_ owner: String) -> String {
        SHA256.hash(data: Data(owner.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    private static func hex(_ id: String) -> String {
        id.lowercased().filter { $0.isHexDigit }
    }
}
