import GatewayLibraryModel

extension DocumentPage {
    /// `{"documents": […], "next_cursor": …}`, with a search's `hits` and `search`: the API's
    /// answer to `GET /v1/documents` and `pdfgate search --json`, one writer for both.
    public func write(to out: inout JSONOutput) {
        out.beginObject()
        out.key("documents")
        out.beginArray()
        for document in documents { DocumentJSON(document).write(to: &out) }
        out.endArray()
        out.key("next_cursor")
        out.string(nextCursor)
        if let search { SearchJSON(search).write(to: &out) }
        out.endObject()
    }
}

/// The part of a documents page a full-text search adds, as the API and `pdfgate search --json`
/// write it: `hits`, one per document in the same order, and `search`, how complete the answer is.
public struct SearchJSON: Sendable {
    public var search: DocumentSearch

    public init(_ search: DocumentSearch) {
        self.search = search
    }

    /// Writes the two keys into the object `out` is in.
    public func write(to out: inout JSONOutput) {
        out.key("hits")
        out.beginArray()
        for hit in search.hits {
            out.beginObject()
            out.key("document_id")
            out.string(hit.documentID)
            out.key("score")
            out.exactDouble(hit.score)
            out.key("page")
            if let page = hit.page { out.int(Int64(page)) } else { out.null() }
            out.key("matched_in")
            out.string(hit.matchedIn.rawValue)
            out.key("snippet")
            out.beginArray()
            for segment in hit.snippet {
                out.beginObject()
                out.key("text")
                out.string(segment.text)
                if segment.match {
                    out.key("match")
                    out.bool(true)
                }
                out.endObject()
            }
            out.endArray()
            out.endObject()
        }
        out.endArray()
        out.key("search")
        out.beginObject()
        out.key("ranked_among")
        out.int(Int64(search.rankedAmong))
        out.key("capped")
        out.bool(search.capped)
        out.key("pending")
        out.int(Int64(search.pending))
        out.endObject()
    }
}
