import Foundation
import GatewaySearchText

/// What a full-text search adds to a page of documents (`DocumentPage.search`).
public struct DocumentSearch: Sendable, Equatable {
    /// One per document of the page, in the same order: best first.
    public var hits: [SearchHit]
    /// Only the newest this-many matching documents were looked at (`SearchPage.rankedAmong`).
    public var rankedAmong: Int
    /// More documents matched than `rankedAmong` (see `SearchPage.capped`).
    public var capped: Bool
    /// The owner's documents whose text is not indexed yet: they match by name and title only
    /// until the indexer has read them.
    public var pending: Int

    public init(hits: [SearchHit], rankedAmong: Int, capped: Bool, pending: Int) {
        self.hits = hits
        self.rankedAmong = rankedAmong
        self.capped = capped
        self.pending = pending
    }
}

extension SearchCursor {
    private struct Wire: Codable {
        var score: Double
        var id: String

        enum CodingKeys: String, CodingKey {
            case score = "r"
            case id = "i"
        }
    }

    /// Opaque to clients: base64url JSON, like a listing's cursor.
    public var encoded: String {
        ((try? JSONEncoder().encode(Wire(score: score, id: documentID))) ?? Data()).base64URLEncoded
    }

    /// A cursor from a previous page of the same search.
    public init(decoding text: String) throws(LibraryError) {
        guard let data = Data(base64URLEncoded: text), let wire = try? JSONDecoder().decode(Wire.self, from: data), wire.score.isFinite else {
            throw LibraryError(.invalidCursor, "cursor '\(text)' is not one this search issued; start again without a cursor")
        }
        self.init(score: wire.score, documentID: wire.id)
    }
}
