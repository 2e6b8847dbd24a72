import Foundation
import GatewayLocalConverters
import GatewaySandbox
import GatewayTestSupport

/// (f) Likeness: the page or slide count Word and PowerPoint wrote into the files of the
/// fidelity corpus (`scripts/fidelity/word_corpus.py`), against ours through the warm, sealed
/// LibreOffice slots and against a cold `soffice --convert-to` of the same files (the peer: the
/// same LibreOffice and fonts, without the worker's Word layout). Writes the files that differ,
/// ours first, to WORKDIR/differing.txt.
func fidelityBenchmark(work: String) async throws {
    let work = URL(fileURLWithPath: work).standardizedFileURL.path
    try? FileManager.default.removeItem(atPath: work)
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    let corpus = try WordCorpus.load()
    let converter = try LocalConverter(configuration: .init(libreOfficeSlots: 2, baseDirectory: work, sandbox: ConverterSandbox()))
    let ours = try await corpus.pageCounts(with: converter)
    await converter.shutdown()

    // The peer, one file at a time with one profile, initialised first.
    let profile = work + "/soffice-profile"
    _ = try runBlocking("soffice", ["-env:UserInstallation=file://\(profile)", "--headless", "--terminate_after_init"], environment: nil, stdin: nil)
    var peer: [Int?] = []
    for (index, file) in corpus.files.enumerated() {
        let out = work + "/peer-\(index)"
        let source = corpus.directory + "/" + file.file
        _ = try? runBlocking(
            "timeout",
            ["300", "soffice", "-env:UserInstallation=file://\(profile)", "--headless", "--convert-to", "pdf", "--outdir", out, source],
            environment: nil,
            stdin: nil
        )
        let pdf = out + "/" + ((source as NSString).lastPathComponent as NSString).deletingPathExtension + ".pdf"
        peer.append(try await PDFProbe.pageCount(pdf))
    }

    let mine = corpus.agreement(ours)
    let theirs = corpus.agreement(peer)
    emit("fidelity.files", Double(corpus.files.count))
    emit("fidelity.multi_page_files", Double(mine.multiPageTotal))
    emit("fidelity.ours_agree", Double(mine.all))
    emit("fidelity.ours_multi_agree", Double(mine.multiPage))
    emit("fidelity.soffice_agree", Double(theirs.all))
    emit("fidelity.soffice_multi_agree", Double(theirs.multiPage))
    let report = ["ours:"] + mine.differing.map { "  " + $0 } + ["soffice --convert-to:"] + theirs.differing.map { "  " + $0 }
    try Data((report.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: work + "/differing.txt"))
}
