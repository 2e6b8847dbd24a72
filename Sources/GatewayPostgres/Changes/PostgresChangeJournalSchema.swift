/// The library's change journal in PostgreSQL, as `ChangeJournalSchema` keeps it in SQLite: one
/// row per item that is or was visible, with the sequence number of its latest change, written
/// by a trigger in the transaction of every change to `documents` and `folders`.
///
/// Sequence numbers come from a sequence, so they are handed out before commit: numbers are in
/// commit order only because every library write runs under the store-wide mutation lock (one
/// writer across all nodes, `LibraryCatalog`). A reader therefore never sees a number committed
/// after a higher one it already passed.
enum PostgresChangeJournalSchema {
    static let migration: [String] = [
        """
        CREATE TABLE library_changes (
            seq bigserial PRIMARY KEY,
            owner text NOT NULL,
            kind text NOT NULL,
            item_id text NOT NULL,
            deleted boolean NOT NULL,
            changed_at timestamptz NOT NULL DEFAULT now(),
            UNIQUE (kind, item_id)
        )
        """,
        "CREATE INDEX library_changes_owner ON library_changes (owner, seq)",
        "CREATE INDEX library_changes_tombstones ON library_changes (changed_at) WHERE deleted",
        """
        CREATE TABLE library_journal (
            one integer PRIMARY KEY CHECK (one = 1),
            epoch text NOT NULL,
            horizon bigint NOT NULL
        )
        """,
        "INSERT INTO library_journal (one, epoch, horizon) VALUES (1, substr(md5(random()::text || clock_timestamp()::text), 1, 16), 0)",
        // The triggers come with `departures`, which always runs next.
        // What the library already holds, parents before children.
        """
        INSERT INTO library_changes (owner, kind, item_id, deleted)
            SELECT owner, 'folder', id, false FROM (SELECT owner, id, path FROM folders WHERE state = 'ready' ORDER BY path) ready
        """,
        """
        INSERT INTO library_changes (owner, kind, item_id, deleted)
            SELECT owner, 'document', id, false FROM (SELECT owner, id FROM documents WHERE state = 'ready' ORDER BY created_at, id) ready
        """,
    ]

    /// Adds the departures (`library_departures`, as `ChangeJournalSchema.migrateDepartures` in
    /// SQLite): each place a shown item left, under the number of the change that moved it, for
    /// WebDAV's `sync-collection`. Installs the trigger that writes both tables.
    static let departures: [String] = [
        """
        CREATE TABLE library_departures (
            seq bigint NOT NULL,
            owner text NOT NULL,
            kind text NOT NULL,
            item_id text NOT NULL,
            parent_id text NOT NULL,
            name text NOT NULL,
            changed_at timestamptz NOT NULL DEFAULT now()
        )
        """,
        "CREATE INDEX library_departures_place ON library_departures (owner, parent_id, seq)",
        "CREATE INDEX library_departures_age ON library_departures (changed_at)",
        // A change re-numbers the item's row (one row per item); an item leaving the visible
        // state leaves a tombstone, but only if it was ever shown. A shown item that leaves its
        // place (moved, renamed, hidden or deleted) leaves a departure under the new number.
        """
        CREATE OR REPLACE FUNCTION library_journal_row() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            item_kind text := CASE TG_TABLE_NAME WHEN 'documents' THEN 'document' ELSE 'folder' END;
            item_id_ text;
            item_owner text;
            visible boolean;
            old_parent text;
            new_parent text;
            sequence bigint;
        BEGIN
            IF TG_OP = 'DELETE' THEN
                item_id_ := OLD.id; item_owner := OLD.owner; visible := false;
            ELSE
                item_id_ := NEW.id; item_owner := NEW.owner; visible := NEW.state = 'ready';
            END IF;
            IF NOT visible AND NOT EXISTS (
                SELECT 1 FROM library_changes c WHERE c.kind = item_kind AND c.item_id = item_id_ AND NOT c.deleted
            ) THEN
                RETURN NULL;
            END IF;
            INSERT INTO library_changes AS c (owner, kind, item_id, deleted) VALUES (item_owner, item_kind, item_id_, NOT visible)
            ON CONFLICT (kind, item_id) DO UPDATE
                SET seq = nextval(pg_get_serial_sequence('library_changes', 'seq')), owner = EXCLUDED.owner,
                    deleted = EXCLUDED.deleted, changed_at = EXCLUDED.changed_at
            RETURNING c.seq INTO sequence;
            IF TG_OP = 'INSERT' OR OLD.state <> 'ready' THEN
                RETURN NULL;
            END IF;
            -- Each branch names only its own table's column: plpgsql plans a statement when it runs.
            IF TG_TABLE_NAME = 'documents' THEN
                old_parent := OLD.folder_id;
                IF TG_OP = 'UPDATE' THEN new_parent := NEW.folder_id; END IF;
            ELSE
                old_parent := OLD.parent_id;
                IF TG_OP = 'UPDATE' THEN new_parent := NEW.parent_id; END IF;
            END IF;
            IF TG_OP = 'DELETE' OR NOT visible OR old_parent IS DISTINCT FROM new_parent OR OLD.name IS DISTINCT FROM NEW.name THEN
                INSERT INTO library_departures (seq, owner, kind, item_id, parent_id, name)
                VALUES (sequence, OLD.owner, item_kind, OLD.id, old_parent, OLD.name);
            END IF;
            RETURN NULL;
        END
        $$
        """,
        "DROP TRIGGER IF EXISTS folders_journal ON folders",
        "DROP TRIGGER IF EXISTS documents_journal ON documents",
        "CREATE TRIGGER folders_journal AFTER INSERT OR UPDATE OR DELETE ON folders FOR EACH ROW EXECUTE FUNCTION library_journal_row()",
        "CREATE TRIGGER documents_journal AFTER INSERT OR UPDATE OR DELETE ON documents FOR EACH ROW EXECUTE FUNCTION library_journal_row()",
    ]

    /// Renumbers an item only when a value a client can see changed, as SQLite's
    /// `ChangeJournalSchema.migrateVisibleColumns` does: a rename's second write, which clears
    /// `path_before`, and a filing's `staged_path` are bookkeeping, not changes.
    static let visibleColumns: [String] = ["folders", "documents"].flatMap { table in
        [
            "DROP TRIGGER \(table)_journal ON \(table)",
            "CREATE TRIGGER \(table)_journal AFTER INSERT OR DELETE ON \(table) FOR EACH ROW EXECUTE FUNCTION library_journal_row()",
            """
            CREATE TRIGGER \(table)_journal_update AFTER UPDATE ON \(table) FOR EACH ROW
                WHEN ((to_jsonb(OLD) - 'path_before' - 'staged_path') IS DISTINCT FROM (to_jsonb(NEW) - 'path_before' - 'staged_path'))
                EXECUTE FUNCTION library_journal_row()
            """,
        ]
    }
}
