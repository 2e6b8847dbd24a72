import GatewaySearchText

/// What the index keeps of one document: who owns it, where it is, what it is called, and its
/// text once extracted. Written in the transaction that makes the document ready.
public struct SearchEntry: Sendable, Equatable {
    /// The document's id, lower case as the catalog stores it.
    public var documentID: String
    public var owner: String
    /// The folder's id, `""` for the owner's root.
    public var folderID: String
    public var name: String
    public var title: String?
    /// The file's digest when the text was read: a different one later means the text is stale.
    public var sha256: String
    public var content: SearchContent

    public init(documentID: String, owner: String, folderID: String, name: String, title: String?, sha256: String, content: SearchContent) {
        self.documentID = documentID
        self.owner = owner
        self.folderID = folderID
        self.name = name
        self.title = title
        self.sha256 = sha256
        self.content = content
    }
}

/// Whether a document's text is in the index. Until it is, the document matches by name and
/// title only.
public enum SearchContent: Sendable, Equatable {
    /// Not extracted yet: filed before the index existed, or waiting for the backfill.
    case pending
    /// Extraction failed (a worker timeout on a hostile PDF): the document is filed anyway and
    /// found by name and title; a repair may try again.
    case failed
    /// The pages' text and where it came from.
    case text(DocumentText, source: TextSource)

    /// The state column this content is stored with.
    public var state: SearchIndexState {
        switch self {
        case .pending: .pending
        case .failed: .failed
        case .text: .ready
        }
    }
}

/// Where a document's indexed text came from.
public enum TextSource: String, Sendable, Codable, CaseIterable {
    /// Poppler's text of the PDF's own text layer.
    case pdf
    /// Tesseract's text of pages that had none.
    case ocr
}

/// An index row's state, as `status()` counts them.
public enum SearchIndexState: String, Sendable, Codable, CaseIterable {
    case pending
    case ready
    case failed
}

extension SearchEntry {
    /// The entry of a catalog row, for the catalogs' own transactions.
    package init(_ record: DocumentRecord, content: SearchContent) {
        self.init(
            documentID: record.id,
            owner: record.owner,
            folderID: record.folderID,
            name: record.name,
            title: record.title,
            sha256: record.sha256,
            content: content
        )
    }
}
