import Foundation
import GatewayLibrary
import GatewayLibraryModel
import GatewayStore
import GatewayTestSupport
import Testing

@Suite("Listing documents")
struct ListingTests {
    /// 24 documents across two folders with distinct names, sizes and page counts.
    static func populated(_ backend: StoreBackend) async throws -> LibraryFixture {
        let fixture = try await LibraryFixture(backend)
        let sources = ["one-page.pdf", "many-pages.pdf", "no-metadata.pdf", "linearized.pdf"]
        var infos: [String: PDFInfo] = [:]
        for source in sources { infos[source] = try await fixture.inspector.inspect(path: Fixtures.pdf(source)) }
        for i in 0..<24 {
            let source = sources[i % sources.count]
            let folder: FolderReference = i % 3 == 0 ? .path("Sub") : (i % 3 == 1 ? .path("Sub/Deeper") : .root)
            _ = try await fixture.library.file(
                Fixtures.pdf(source),
                owner: "alice",
                folder: folder,
                name: String(format: "%@doc %02d", i % 2 == 0 ? "a" : "B", i),
                info: infos[source]!
            )
        }
        return fixture
    }

    /// Walks every page and checks each document appears once, in order.
    static func walk(_ library: Library, _ query: DocumentQuery) async throws -> [Document] {
        var query = query
        var all: [Document] = []
        repeat {
            let page = try await library.listDocuments(query)
            #expect(page.documents.count <= query.limit)
            all += page.documents
            query.cursor = page.nextCursor
        } while query.cursor != nil
        #expect(Set(all.map(\.id)).count == all.count, "no document twice")
        return all
    }

    @Test(arguments: StoreBackend.allCases, [false, true])
    func everySortPagesThroughEverythingInOrder(_ backend: StoreBackend, _ descending: Bool) async throws {
        let fixture = try await Self.populated(backend)
        for field in DocumentSortField.allCases { try await Self.expectPagesInOrder(fixture, DocumentSort(field, descending: descending)) }
    }

    static func expectPagesInOrder(_ fixture: LibraryFixture, _ sort: DocumentSort) async throws {
        let (field, descending) = (sort.field, sort.descending)
        let all = try await Self.walk(fixture.library, DocumentQuery(owner: "alice", recursive: true, sort: sort, limit: 5))
        #expect(all.count == 24)
        let keys: [String] = all.map { document in
            switch field {
            case .name: return document.name.lowercased()
            case .createdAt: return String(format: "%.6f", document.createdAt.timeIntervalSince1970)
            case .updatedAt: return String(format: "%.6f", document.updatedAt.timeIntervalSince1970)
            case .size: return String(format: "%012d", document.size)
            case .pageCount: return String(format: "%06d", document.info.pageCount)
            }
        }
        #expect(keys == (descending ? keys.sorted(by: >) : keys.sorted()))
    }

    @Test(arguments: StoreBackend.allCases) func folderScopeRecursiveOrNot(_ backend: StoreBackend) async throws {
        let fixture = try await Self.populated(backend)
        let root = try await Self.walk(fixture.library, DocumentQuery(owner: "alice", limit: 50))
        let sub = try await Self.walk(fixture.library, DocumentQuery(owner: "alice", folder: .path("Sub"), limit: 50))
        let subTree = try await Self.walk(fixture.library, DocumentQuery(owner: "alice", folder: .path("Sub"), recursive: true, limit: 50))
        #expect(root.count == 8 && sub.count == 8 && subTree.count == 16)
        #expect(sub.allSatisfy { $0.folderPath == "Sub" })
        #expect(subTree.allSatisfy { $0.folderPath.hasPrefix("Sub") })
    }

    @Test(arguments: StoreBackend.allCases) func searchMatchesNameOrTitle(_ backend: StoreBackend) async throws {
        let fixture = try await Self.populated(backend)
        let byName = try await fixture.library.listDocuments(DocumentQuery(owner: "alice", recursive: true, search: "bdoc 0"))
        #expect(Set(byName.documents.map(\.name)) == ["Bdoc 01", "Bdoc 03", "Bdoc 05", "Bdoc 07", "Bdoc 09"])
        let byTitle = try await fixture.library.listDocuments(DocumentQuery(owner: "alice", recursive: true, search: "twelve"))
        #expect(byTitle.documents.count == 6)
        #expect(byTitle.documents.allSatisfy { $0.info.pageCount == 12 })
        let literal = try await fixture.library.listDocuments(DocumentQuery(owner: "alice", recursive: true, search: "%"))
        #expect(literal.documents.isEmpty, "% is a literal, not a wildcard")
    }

    /// A full-text search on both backends finds names too: each index holds them beside the text.
    @Test(arguments: StoreBackend.allCases) func aTextSearchFindsNamesOnEitherBackend(_ backend: StoreBackend) async throws {
        let fixture = try await Self.populated(backend)
        let found = try await fixture.library.listDocuments(DocumentQuery(owner: "alice", recursive: true, text: "bdo*"))
        #expect(found.documents.count == 12, "\(found.documents.map(\.name))")
        #expect(found.documents.allSatisfy { $0.name.hasPrefix("Bdoc") })
        #expect(found.search?.hits.count == 12 && found.search?.hits.allSatisfy { $0.matchedIn == .name } == true, "hits come with the index")
        await #expect(throws: LibraryError.self) {
            try await fixture.library.listDocuments(DocumentQuery(owner: "alice", recursive: true, text: "-bdoc"))
        }
    }

    @Test(arguments: StoreBackend.allCases) func badCursorsAndLimitsAreExplained(_ backend: StoreBackend) async throws {
        let fixture = try await Self.populated(backend)
        let first = try await fixture.library.listDocuments(DocumentQuery(owner: "alice", recursive: true, limit: 5))
        let cursor = try #require(first.nextCursor)
        await #expect(throws: LibraryError.self) {
            try await fixture.library.listDocuments(DocumentQuery(owner: "alice", recursive: true, sort: DocumentSort(.size), cursor: cursor))
        }
        await #expect(throws: LibraryError.self) { try await fixture.library.listDocuments(DocumentQuery(owner: "alice", cursor: "garbage!")) }
        await #expect(throws: LibraryError.self) { try await fixture.library.listDocuments(DocumentQuery(owner: "alice", limit: 0)) }
        #expect(throws: LibraryError.self) { try DocumentSort(parsing: "-colour") }
        #expect(try DocumentSort(parsing: "-page_count") == DocumentSort(.pageCount, descending: true))
    }
}
