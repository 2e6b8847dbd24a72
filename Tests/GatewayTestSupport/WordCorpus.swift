import Foundation
import GatewayJobModel
import GatewayLocalConverters

/// Word- and PowerPoint-saved files from public test suites, each with the page or slide count
/// its application wrote into `docProps/app.xml`: the oracle of the fidelity suite. Built by
/// `scripts/fidelity/word_corpus.py` (pinned sdists from PyPI, downloaded once) into
/// `.build/fidelity`, which `make test` and `make bench` run first.
public struct WordCorpus: Sendable {
    /// One file and what Word or PowerPoint counted.
    public struct File: Sendable, Decodable {
        /// Relative to the corpus directory.
        public let file: String
        /// `python-docx==1.2.0:features/…`: where it came from.
        public let source: String
        public let application: String
        /// `docx` or `pptx`.
        public let kind: String
        /// Pages (Word) or visible slides (PowerPoint).
        public let expected: Int
    }

    public let directory: String
    public let files: [File]

    /// The corpus `make test` built; throws, saying how to build it, when there is none.
    public static func load() throws -> WordCorpus {
        let directory = (Fixtures.root as NSString).deletingLastPathComponent + "/.build/fidelity"
        let manifest = directory + "/manifest.json"
        guard FileManager.default.fileExists(atPath: manifest) else {
            throw PDFProbeError("no corpus at \(manifest): run /usr/bin/python3 scripts/fidelity/word_corpus.py (make test does)")
        }
        let files = try JSONDecoder().decode([File].self, from: Data(contentsOf: URL(fileURLWithPath: manifest)))
        return WordCorpus(directory: directory, files: files)
    }

    /// How many of `counts` (what we made of each file, in `files`' order; nil: no PDF) agree
    /// exactly, overall and among the files of more than one page, and the files that differ.
    public func agreement(_ counts: [Int?]) -> (all: Int, multiPage: Int, multiPageTotal: Int, differing: [String]) {
        var (all, multiPage, multiPageTotal, differing) = (0, 0, 0, [String]())
        for (file, count) in zip(files, counts) {
            if file.expected > 1 { multiPageTotal += 1 }
            if count == file.expected {
                all += 1
                if file.expected > 1 { multiPage += 1 }
            } else {
                differing.append("\(file.source): \(file.application) \(file.expected), we \(count.map(String.init) ?? "no PDF")")
            }
        }
        return (all, multiPage, multiPageTotal, differing)
    }

    /// Each file's page count as `converter` makes it (nil where it made none), two at a time:
    /// one per warm LibreOffice slot, as the gateway runs them.
    public func pageCounts(with converter: LocalConverter) async throws -> [Int?] {
        try await withThrowingTaskGroup(of: (Int, Int?).self) { group in
            var counts = [Int?](repeating: nil, count: files.count)
            var next = 0
            func start() {
                guard next < files.count else { return }
                let (index, path) = (next, directory + "/" + files[next].file)
                next += 1
                group.addTask {
                    let work = TemporaryDirectory("pdfgate-fidelity")
                    try FileManager.default.createDirectory(atPath: work.file("work"), withIntermediateDirectories: true)
                    let request = ConversionRequest(
                        jobID: UUID(),
                        type: .docToPDF,
                        source: .file(path: path, originalFilename: (path as NSString).lastPathComponent),
                        options: ConversionOptions(),
                        workDirectory: work.file("work"),
                        outputPath: work.file("out.pdf"),
                        deadline: .now + .seconds(300)
                    )
                    do { try await converter.convert(request, events: { _ in }) } catch { return (index, nil) }
                    return (index, try await PDFProbe.pageCount(work.file("out.pdf")))
                }
            }
            start()
            start()
            while let (index, count) = try await group.next() {
                counts[index] = count
                start()
            }
            return counts
        }
    }
}
