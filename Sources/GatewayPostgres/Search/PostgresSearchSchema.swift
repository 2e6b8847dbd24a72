/// The search index's tables in PostgreSQL (migration `v7-search`): the same rows as SQLite's
/// (`SearchSchema` in GatewayStore), with a `tsvector` and GIN indexes where SQLite has FTS5.
///
/// - `document_index`: one row per document; `doc_seq` orders "newest". `words` holds the
///   document's words as `SearchTokenizer.indexedWords` splits and folds them (PostgreSQL's
///   parser and the `simple` configuration then only take them as they are): the body's with
///   weight D first, then the name's (A) and the title's (B), so a rename keeps the body's
///   positions (`ts_filter(words, '{d}')`) and appends the new name's. `words` goes to TOAST as
///   usual: kept in the row it would make ranking cheaper, but every match found through the GIN
///   index would cost a page read, and the whole search comes out no faster.
/// - `scope`: the document's scope tokens (`SearchScopeTokens`) as an array with a GIN index:
///   a folder scope is one more index to intersect, as in SQLite, but kept out of `words` so a
///   user's word never meets a token and a word query needs no recheck of weights.
/// - `document_recent`: the newest `recentDocuments` entries' words again, with a GIN index of
///   their own, kept by a trigger. PostgreSQL cannot walk a word's matches from the newest as
///   FTS5 does: GIN decodes the words' whole posting lists, even within a range of `doc_seq`, so
///   the newest matches of common words come far sooner from this small index than the whole.
/// - `document_pages`: each page's text and words, for the page of a hit in a long document.
/// - `claimed_until`: a pending entry one node's indexer is reading (`pending(limit:)`), so the
///   nodes of a cluster share the reading instead of each reading everything.
enum PostgresSearchSchema {
    static let migration: [String] = [
        // A document's scope tokens from its owner and folder, read from `folders`: what
        // `SearchScopeTokens.tokens` makes in Swift (owners hashed the same way).
        """
        CREATE FUNCTION pdfgate_search_scope(text, text) RETURNS text[] LANGUAGE sql STABLE AS $$
            SELECT ARRAY['o' || o.hash, CASE WHEN $2 = '' THEN 'r' || o.hash ELSE 'd' || regexp_replace(lower($2), '[^0-9a-f]', '', 'g') END]
                || ARRAY(
                    SELECT 'f' || regexp_replace(lower(a.id), '[^0-9a-f]', '', 'g')
                    FROM folders AS f JOIN folders AS a
                        ON a.owner = f.owner AND (a.path = f.path OR left(f.path, length(a.path) + 1) = a.path || '/')
                    WHERE f.id = $2 AND f.owner = $1 ORDER BY a.path)
            FROM (SELECT encode(substring(sha256(convert_to($1, 'UTF8')) FROM 1 FOR 8), 'hex') AS hash) AS o
        $$
        """,
        """
        CREATE TABLE document_index (
            doc_seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            document_id text NOT NULL UNIQUE,
            owner text COLLATE "C" NOT NULL,
            folder_id text NOT NULL,
            name text NOT NULL,
            title text,
            scope text[] NOT NULL,
            state text NOT NULL,
            source text,
            sha256 text NOT NULL,
            extractor_version integer NOT NULL,
            truncated boolean NOT NULL,
            page_rows integer NOT NULL,
            updated_at timestamptz NOT NULL,
            words tsvector NOT NULL,
            claimed_until timestamptz
        )
        """,
        "CREATE INDEX document_index_words ON document_index USING gin (words)",
        "CREATE INDEX document_index_scope ON document_index USING gin (scope)",
        "CREATE INDEX document_index_state ON document_index (state, doc_seq)",
        "CREATE INDEX document_index_owner_state ON document_index (owner, state)",
        "CREATE INDEX document_index_folder ON document_index (folder_id)",
        """
        CREATE TABLE document_pages (
            doc_seq bigint NOT NULL REFERENCES document_index ON DELETE CASCADE,
            page integer NOT NULL,
            body text NOT NULL,
            words tsvector NOT NULL,
            PRIMARY KEY (doc_seq, page)
        )
        """,
        // Every ready document gets a pending entry, oldest first so the newest stay newest;
        // the indexer reads their text in the background (its progress is in /metrics). Until
        // then the name and title match as PostgreSQL splits them; the indexer's write replaces
        // them with Swift's words.
        """
        INSERT INTO document_index (document_id, owner, folder_id, name, title, scope, state, source, sha256, extractor_version,
            truncated, page_rows, updated_at, words)
        SELECT id, owner, folder_id, name, title, pdfgate_search_scope(owner, folder_id), 'pending', NULL, sha256, 0, false, 0, now(),
            setweight(to_tsvector('simple', name), 'A') || setweight(to_tsvector('simple', COALESCE(title, '')), 'B')
        FROM documents WHERE state = 'ready' ORDER BY created_at, id
        """,
        """
        CREATE TABLE document_recent (
            doc_seq bigint PRIMARY KEY,
            owner text COLLATE "C" NOT NULL,
            scope text[] NOT NULL,
            words tsvector NOT NULL
        )
        """,
        "CREATE INDEX document_recent_words ON document_recent USING gin (words)",
        """
        INSERT INTO document_recent (doc_seq, owner, scope, words)
        SELECT doc_seq, owner, scope, words FROM document_index
        WHERE doc_seq > (SELECT max(doc_seq) FROM document_index) - \(recentDocuments)
        """,
        // Every write of an entry's words, owner or scope reaches its copy while the entry is
        // among the newest; a new entry pushes the oldest copy out.
        """
        CREATE FUNCTION pdfgate_search_recent() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                DELETE FROM document_recent WHERE doc_seq = OLD.doc_seq;
            ELSIF NEW.doc_seq > (SELECT max(doc_seq) FROM document_index) - \(recentDocuments) THEN
                INSERT INTO document_recent (doc_seq, owner, scope, words) VALUES (NEW.doc_seq, NEW.owner, NEW.scope, NEW.words)
                ON CONFLICT (doc_seq) DO UPDATE SET owner = EXCLUDED.owner, scope = EXCLUDED.scope, words = EXCLUDED.words;
                IF TG_OP = 'INSERT' THEN
                    DELETE FROM document_recent WHERE doc_seq <= NEW.doc_seq - \(recentDocuments);
                END IF;
            END IF;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER document_index_recent AFTER INSERT OR DELETE OR UPDATE OF owner, scope, words ON document_index
        FOR EACH ROW EXECUTE FUNCTION pdfgate_search_recent()
        """,
        // The newest `wanted` matches of `query` for `who` (within the folder of `token`), newest
        // first: from the newest entries' copy when it holds that many, else from the whole index.
        // The planner is kept to the GIN indexes here: it does not count reading a row's words, so
        // it would choose walking the primary key or the whole table and testing each row's words,
        // far slower than the GIN index, and start parallel workers for plans it then never runs.
        """
        CREATE FUNCTION pdfgate_search_newest(query tsquery, who text, token text, wanted bigint)
        RETURNS SETOF bigint LANGUAGE plpgsql STABLE
        SET enable_seqscan = off SET enable_indexscan = off SET max_parallel_workers_per_gather = 0 SET jit = off AS $$
        DECLARE
            found bigint[];
        BEGIN
            found := ARRAY(
                SELECT r.doc_seq FROM document_recent AS r
                WHERE r.words @@ query AND r.owner = who AND (token IS NULL OR r.scope @> ARRAY[token])
                ORDER BY r.doc_seq DESC LIMIT wanted);
            IF cardinality(found) < wanted THEN
                found := ARRAY(
                    SELECT i.doc_seq FROM document_index AS i
                    WHERE i.words @@ query AND i.owner = who AND (token IS NULL OR i.scope @> ARRAY[token])
                    ORDER BY i.doc_seq DESC LIMIT wanted);
            END IF;
            RETURN QUERY SELECT unnest(found);
        END
        $$
        """,
    ]

    /// How many of the newest entries `document_recent` holds: enough for the newest 1,000
    /// matches of a query whose words are together in one document of sixteen.
    static let recentDocuments = 16_384
}
