import GRDB

/// The library's change journal in SQLite: one row per document or folder that is or was
/// visible, holding the sequence number of its latest change. Triggers on `documents` and
/// `folders` write it in the transaction of every change, whichever code path made it (a
/// rename's two writes, a folder move's subtree update, a recursive delete), so nothing the
/// library does can be missed by a client catching up.
///
/// A change re-inserts the item's row, so its sequence number is new (AUTOINCREMENT never
/// reuses one) and the journal stays one row per item. An item that stops being visible (deleted,
/// or on its way to be) leaves a tombstone, which `forgetDeletions` drops after the retention
/// period, moving `library_journal.horizon` past it.
enum ChangeJournalSchema {
    static func migrate(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE library_changes (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    owner TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    item_id TEXT NOT NULL,
                    deleted INTEGER NOT NULL,
                    changed_at TEXT NOT NULL
                );
                CREATE UNIQUE INDEX library_changes_item ON library_changes (kind, item_id);
                CREATE INDEX library_changes_owner ON library_changes (owner, seq);
                CREATE INDEX library_changes_tombstones ON library_changes (changed_at) WHERE deleted;
                CREATE TABLE library_journal (
                    one INTEGER PRIMARY KEY CHECK (one = 1),
                    epoch TEXT NOT NULL,
                    horizon INTEGER NOT NULL
                );
                INSERT INTO library_journal (one, epoch, horizon) VALUES (1, lower(hex(randomblob(8))), 0);
                """
        )
        // The triggers come with `migrateDepartures`, which always runs next.
        // What the library already holds, parents before children.
        try db.execute(
            sql: """
                INSERT INTO library_changes (owner, kind, item_id, deleted, changed_at)
                    SELECT owner, 'folder', id, 0, \(now) FROM folders WHERE state = 'ready' ORDER BY path;
                INSERT INTO library_changes (owner, kind, item_id, deleted, changed_at)
                    SELECT owner, 'document', id, 0, \(now) FROM documents WHERE state = 'ready' ORDER BY created_at, id;
                """
        )
    }

    /// Makes the feed's index cover the columns it reads (`changes(owner:after:limit:)`), so a
    /// page of 500 reads them from the index instead of seeking each row in the table.
    static func migrateFeedIndex(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE INDEX library_changes_feed ON library_changes (owner, seq, kind, item_id, deleted);
                DROP INDEX library_changes_owner;
                """
        )
    }

    /// Adds the departures (`library_departures`): each place (folder and name) a shown item
    /// left, and when. A WebDAV `sync-collection` report names the hrefs that no longer hold
    /// what they held at the client's token; the one-row-per-item journal cannot, since a later
    /// change re-numbers the row and forgets where the item was. Replaces the triggers with ones
    /// that write both tables.
    static func migrateDepartures(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE library_departures (
                    seq INTEGER NOT NULL,
                    owner TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    item_id TEXT NOT NULL,
                    parent_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    changed_at TEXT NOT NULL
                );
                CREATE INDEX library_departures_place ON library_departures (owner, parent_id, seq);
                CREATE INDEX library_departures_age ON library_departures (changed_at);
                """
        )
        try installTriggers(db) { _ in nil }
    }

    /// Renumbers an item only when a write names a column a client can see. A rename or move
    /// writes twice (the intent with `path_before`, then clearing it once the file has moved)
    /// and a filing sets `staged_path`: those bookkeeping columns alone are not a change, so the
    /// second write neither renumbers the item nor writes the journal's pages again. The
    /// catalog writes only the columns that changed (`updateChanges`), so the list holds.
    /// A column added to either table later must be added here by a migration of its own.
    static func migrateVisibleColumns(_ db: Database) throws {
        let bookkeeping: Set = ["path_before", "staged_path"]
        try installTriggers(db) { table in try db.columns(in: table).map(\.name).filter { !bookkeeping.contains($0) } }
    }

    /// Replaces both tables' journal triggers; `updateOf` names the columns whose writes fire a
    /// table's update triggers (nil: any write).
    private static func installTriggers(_ db: Database, updateOf: (String) throws -> [String]?) throws {
        for (table, kind, parent) in [("folders", "folder", "parent_id"), ("documents", "document", "folder_id")] {
            for event in ["insert", "update", "hide", "delete"] {
                try db.execute(sql: "DROP TRIGGER IF EXISTS \(table)_journal_\(event)")
            }
            try db.execute(sql: triggers(table: table, kind: kind, parent: parent, updateOf: try updateOf(table)))
        }
    }

    /// The current time as GRDB writes a `Date`, so `changed_at` compares with a bound date.
    private static let now = "strftime('%Y-%m-%d %H:%M:%f', 'now')"

    /// `updateOf`: the columns whose writes fire the update triggers; nil for any write.
    private static func triggers(table: String, kind: String, parent: String, updateOf columns: [String]?) -> String {
        let update = columns.map { "UPDATE OF " + $0.joined(separator: ", ") } ?? "UPDATE"
        func record(_ row: String, deleted: Int) -> String {
            """
            DELETE FROM library_changes WHERE kind = '\(kind)' AND item_id = \(row).id;
            INSERT INTO library_changes (owner, kind, item_id, deleted, changed_at)
                VALUES (\(row).owner, '\(kind)', \(row).id, \(deleted), \(now));
            """
        }
        // Under the number `record` just gave the item, so the departure sorts with its change.
        func departure(when condition: String) -> String {
            """
            INSERT INTO library_departures (seq, owner, kind, item_id, parent_id, name, changed_at)
                SELECT seq, OLD.owner, '\(kind)', OLD.id, OLD.\(parent), OLD.name, \(now) FROM library_changes
                WHERE kind = '\(kind)' AND item_id = OLD.id AND \(condition);
            """
        }
        func shown(_ row: String) -> String {
            "EXISTS (SELECT 1 FROM library_changes WHERE kind = '\(kind)' AND item_id = \(row).id AND NOT deleted)"
        }
        let moved = "OLD.state = 'ready' AND (OLD.\(parent) IS NOT NEW.\(parent) OR OLD.name IS NOT NEW.name)"
        return """
            CREATE TRIGGER \(table)_journal_insert AFTER INSERT ON \(table) WHEN NEW.state = 'ready'
            BEGIN \(record("NEW", deleted: 0)) END;
            CREATE TRIGGER \(table)_journal_update AFTER \(update) ON \(table) WHEN NEW.state = 'ready'
            BEGIN \(record("NEW", deleted: 0)) \(departure(when: moved)) END;
            CREATE TRIGGER \(table)_journal_hide AFTER \(update) ON \(table)
                WHEN NEW.state != 'ready' AND \(shown("NEW"))
            BEGIN \(record("NEW", deleted: 1)) \(departure(when: "OLD.state = 'ready'")) END;
            CREATE TRIGGER \(table)_journal_delete AFTER DELETE ON \(table)
                WHEN \(shown("OLD"))
            BEGIN \(record("OLD", deleted: 1)) \(departure(when: "OLD.state = 'ready'")) END;
            """
    }
}
