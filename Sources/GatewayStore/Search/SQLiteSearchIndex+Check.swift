import Foundation
import GRDB
import GatewayLibraryModel
import GatewaySearchText

// fsck for the index: entries compared with the catalog's documents, and FTS5's own
// integrity check of each full-text table against the text it was built from.
extension SQLiteSearchIndex {
    package static func check(verifyFullText: Bool, in db: Database) throws -> [SearchIndexIssue] {
        var issues: [SearchIndexIssue] = []
        for id in try String.fetchAll(
            db,
            sql: """
                SELECT d.id FROM documents AS d WHERE d.state = 'ready'
                AND NOT EXISTS (SELECT 1 FROM document_index AS i WHERE i.document_id = d.id) ORDER BY d.id
                """
        ) {
            issues.append(SearchIndexIssue(.missing, documentID: id, "document \(id) is not in the search index"))
        }
        let stale = try Row.fetchAll(
            db,
            sql: """
                SELECT i.document_id, i.state, i.sha256 != d.sha256, i.extractor_version != ?, i.name != d.name,
                    i.title IS NOT d.title, i.owner != d.owner, i.folder_id != d.folder_id
                FROM document_index AS i JOIN documents AS d ON d.id = i.document_id
                WHERE d.state = 'ready' AND (
                    (i.state != 'pending' AND i.sha256 != d.sha256) OR (i.state = 'ready' AND i.extractor_version != ?)
                    OR i.name != d.name OR i.title IS NOT d.title OR i.owner != d.owner OR i.folder_id != d.folder_id)
                ORDER BY i.document_id
                """,
            arguments: [DocumentText.extractorVersion, DocumentText.extractorVersion]
        )
        for row in stale {
            let (id, state): (String, String) = (row[0], row[1])
            var reasons: [String] = []
            if state != SearchIndexState.pending.rawValue, row[2] as Bool {
                reasons.append("its text was read from another file (sha256 differs)")
            } else if state == SearchIndexState.ready.rawValue, row[3] as Bool {
                reasons.append("its text was read by an older extractor")
            }
            for (column, what) in [(4, "name"), (5, "title"), (6, "owner"), (7, "folder")] where row[column] as Bool {
                reasons.append("its \(what) is not the document's")
            }
            issues.append(SearchIndexIssue(.stale, documentID: id, "the index entry of \(id) is stale: " + reasons.joined(separator: "; ")))
        }
        for id in try String.fetchAll(
            db,
            sql: """
                SELECT i.document_id FROM document_index AS i
                WHERE NOT EXISTS (SELECT 1 FROM documents AS d WHERE d.id = i.document_id) ORDER BY i.document_id
                """
        ) {
            issues.append(SearchIndexIssue(.orphan, documentID: id, "the index has an entry for \(id), which is not in the library"))
        }
        for table in ["document_fts", "page_fts"] where verifyFullText {
            do {
                // rank 1: compare the index with the content it indexes, not only with itself.
                try db.execute(sql: "INSERT INTO \(table) (\(table), rank) VALUES ('integrity-check', 1)")
            } catch let error as DatabaseError {
                issues.append(
                    SearchIndexIssue(
                        .corrupt,
                        documentID: nil,
                        "the full-text table \(table) does not match its text (\(error.message ?? "\(error)"))"
                    )
                )
            }
        }
        return issues
    }

    package static func repair(_ issues: [SearchIndexIssue], in db: Database) throws {
        for issue in issues where issue.kind == .corrupt {
            for table in ["document_fts", "page_fts"] { try db.execute(sql: "INSERT INTO \(table) (\(table)) VALUES ('rebuild')") }
            break
        }
        for issue in issues {
            guard let id = issue.documentID else { continue }
            switch issue.kind {
            case .orphan:
                try delete(documentIDs: [id], in: db)
            case .missing, .stale:
                try refresh(documentID: id, in: db)
            case .corrupt:
                continue
            }
        }
    }

    /// Brings one entry in line with its document: name, title and folder follow; the text stays
    /// when it was read from this very file by this extractor, else the entry is pending again.
    private static func refresh(documentID: String, in db: Database) throws {
        guard
            let document = try Row.fetchOne(
                db,
                sql: "SELECT owner, folder_id, name, title, sha256 FROM documents WHERE id = ? AND state = 'ready'",
                arguments: [documentID]
            )
        else { return try delete(documentIDs: [documentID], in: db) }
        let (owner, folderID, name, title, sha256): (String, String, String, String?, String) =
            (document[0], document[1], document[2], document[3], document[4])
        let entry = try Row.fetchOne(
            db,
            sql: "SELECT owner, state, sha256, extractor_version FROM document_index WHERE document_id = ?",
            arguments: [documentID]
        )
        if let entry, entry[0] as String == owner,
            entry[1] as String == SearchIndexState.pending.rawValue
                || (entry[2] as String == sha256 && entry[3] as Int == DocumentText.extractorVersion)
        {
            try rename(documentID: documentID, name: name, title: title, in: db)
            try move(documentID: documentID, folderID: folderID, in: db)
            if entry[1] as String == SearchIndexState.pending.rawValue {
                try db.execute(sql: "UPDATE document_index SET sha256 = ? WHERE document_id = ?", arguments: [sha256, documentID])
            }
            return
        }
        try write(
            SearchEntry(documentID: documentID, owner: owner, folderID: folderID, name: name, title: title, sha256: sha256, content: .pending),
            in: db
        )
    }
}
