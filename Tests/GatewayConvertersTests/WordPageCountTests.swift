import Foundation
import GatewayJobModel
import GatewayTestSupport
import Testing

@testable import GatewayLocalConverters

/// Likeness measured (DESIGN §16): Word- and PowerPoint-saved files from public test suites,
/// converted by the warm LibreOffice slots in their sandbox, must come out with the page or
/// slide count their application wrote into them — at least 97 % of the files and 85 % of
/// those of more than one page. `make bench` prints the same share and the files that differ.
/// A suite of its own, not one of `LocalConverterTests` (whose 3 minutes are the limit of one
/// test of a tool): 165 documents, one of 460 pages, take 1 minute alone and 6 beside the rest
/// of the first pass.
@Suite(.timeLimit(.minutes(15))) struct WordPageCount {
    @Test func pageCountsAgreeWithWordsOwn() async throws {
        let corpus = try WordCorpus.load()
        try #require(corpus.files.count >= 150, "the corpus holds \(corpus.files.count) files")
        let counts = try await withConverter(.init(libreOfficeSlots: 2)) { converter in
            try await corpus.pageCounts(with: converter)
        }
        let (all, multiPage, multiPageTotal, differing) = corpus.agreement(counts)
        let share = Double(all) / Double(corpus.files.count)
        let multiShare = Double(multiPage) / Double(multiPageTotal)
        #expect(share >= 0.97, "\(all) of \(corpus.files.count) agree; differing: \(differing)")
        #expect(multiShare >= 0.85, "\(multiPage) of \(multiPageTotal) multi-page files agree; differing: \(differing)")
    }
}
