import Foundation
import GatewayLibraryModel
import GatewaySearchText
import PostgresNIO

// fsck for the index: entries compared with the catalog's documents.
extension PostgresSearchIndex {
    package static func check(in session: PostgresSession) async throws -> [SearchIndexIssue] {
        var issues: [SearchIndexIssue] = []
        for row in try await session.query(
            """
            SELECT d.id FROM documents AS d WHERE d.state = 'ready'
            AND NOT EXISTS (SELECT 1 FROM document_index AS i WHERE i.document_id = d.id) ORDER BY d.id
            """
        ) {
            let id = try row.decode(String.self)
            issues.append(SearchIndexIssue(.missing, documentID: id, "document \(id) is not in the search index"))
        }
        let version = DocumentText.extractorVersion
        for row in try await session.query(
            """
            SELECT i.document_id, i.state, i.sha256 != d.sha256, i.extractor_version != \(version), i.name != d.name,
                i.title IS DISTINCT FROM d.title, i.owner != d.owner, i.folder_id != d.folder_id
            FROM document_index AS i JOIN documents AS d ON d.id = i.document_id
            WHERE d.state = 'ready' AND (
                (i.state != 'pending' AND i.sha256 != d.sha256) OR (i.state = 'ready' AND i.extractor_version != \(version))
                OR i.name != d.name OR i.title IS DISTINCT FROM d.title OR i.owner != d.owner OR i.folder_id != d.folder_id)
            ORDER BY i.document_id
            """
        ) {
            let (id, state, otherFile, olderExtractor, name, title, owner, folder) =
                try row.decode((String, String, Bool, Bool, Bool, Bool, Bool, Bool).self)
            var reasons: [String] = []
            if state != SearchIndexState.pending.rawValue, otherFile {
                reasons.append("its text was read from another file (sha256 differs)")
            } else if state == SearchIndexState.ready.rawValue, olderExtractor {
                reasons.append("its text was read by an older extractor")
            }
            for (differs, what) in [(name, "name"), (title, "title"), (owner, "owner"), (folder, "folder")] where differs {
                reasons.append("its \(what) is not the document's")
            }
            issues.append(SearchIndexIssue(.stale, documentID: id, "the index entry of \(id) is stale: " + reasons.joined(separator: "; ")))
        }
        for row in try await session.query(
            """
            SELECT i.document_id FROM document_index AS i
            WHERE NOT EXISTS (SELECT 1 FROM documents AS d WHERE d.id = i.document_id) ORDER BY i.document_id
            """
        ) {
            let id = try row.decode(String.self)
            issues.append(SearchIndexIssue(.orphan, documentID: id, "the index has an entry for \(id), which is not in the library"))
        }
        return issues
    }

    package static func repair(_ issues: [SearchIndexIssue], in session: PostgresSession) async throws {
        for issue in issues {
            guard let id = issue.documentID else { continue }
            switch issue.kind {
            case .orphan:
                try await delete(documentIDs: [id], in: session)
            case .missing, .stale:
                try await refresh(documentID: id, in: session)
            case .corrupt:
                continue  // never reported here
            }
        }
    }

    /// Brings one entry in line with its document: name, title and folder follow; the text stays
    /// when it was read from this very file by this extractor, else the entry is pending again.
    private static func refresh(documentID: String, in session: PostgresSession) async throws {
        guard
            let document = try await session.query(
                "SELECT owner, folder_id, name, title, sha256 FROM documents WHERE id = \(documentID) AND state = 'ready'"
            ).first
        else { return try await delete(documentIDs: [documentID], in: session) }
        let (owner, folderID, name, title, sha256) = try document.decode((String, String, String, String?, String).self)
        let entry = try await session.query(
            "SELECT owner, state, sha256, extractor_version FROM document_index WHERE document_id = \(documentID)"
        ).first.map { try $0.decode((String, String, String, Int32).self) }
        if let entry, entry.0 == owner,
            entry.1 == SearchIndexState.pending.rawValue || (entry.2 == sha256 && Int(entry.3) == DocumentText.extractorVersion)
        {
            try await rename(documentID: documentID, name: name, title: title, in: session)
            try await move(documentID: documentID, folderID: folderID, in: session)
            if entry.1 == SearchIndexState.pending.rawValue {
                try await session.query("UPDATE document_index SET sha256 = \(sha256) WHERE document_id = \(documentID)")
            }
            return
        }
        try await write(
            SearchEntry(documentID: documentID, owner: owner, folderID: folderID, name: name, title: title, sha256: sha256, content: .pending),
            in: session
        )
    }
}
