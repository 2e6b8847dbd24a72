import Foundation
import GatewayJobModel

/// PDF/A with Ghostscript's pdfwrite: its `PDFA_def.ps`, pointed at Debian's sRGB profile, adds
/// the output intent, and `-dPDFA=N` the XMP that declares part and conformance (which our
/// inspector then reports). Colours are converted to RGB, the one profile we embed.
struct PDFAConversion {
    let step: Step

    static let iccProfile = "/usr/share/color/icc/ghostscript/srgb.icc"

    func convert(part: PDFOperation.PDFAPart, what: String) async throws {
        guard let definition = Self.definition else {
            throw JobFailure.converterUnavailable("Ghostscript's PDFA_def.ps is missing: reinstall Debian's ghostscript")
        }
        let name = step.prefix + "-pdfa-def.ps"
        try Data(definition.utf8).write(to: URL(fileURLWithPath: step.work + "/" + name))
        let converted = step.prefix + "-pdfa.pdf"
        let finished = try await step.runner.run(
            .ghostscript,
            PDFToolRunner.ghostscriptBase + [
                "--permit-file-read=\(Self.iccProfile)",
                "-dPDFA=\(part.part)",
                "-dPDFACompatibilityPolicy=1",
                "-sColorConversionStrategy=RGB",
                "-sDEVICE=pdfwrite",
                // Ghostscript turns pages to match their text by default: keep them as they are.
                "-dAutoRotatePages=/None",
                "-sOutputFile=" + converted,
                name,
                step.inputName,
            ],
            in: step.work,
            what: what,
            deadline: step.deadline
        )
        guard finished.status == 0 else { throw PDFToolRunner.refused(.ghostscript, what, finished.log) }
        // Only when Ghostscript says it dropped document information is there anything to restore.
        guard finished.log.contains("discarding DOCINFO") else {
            try ToolFiles.moveReplacing(step.work + "/" + converted, to: step.output)
            return
        }
        let before = try await QPDFJSON(step: step, file: step.inputName).info(what: what).entries
        try await restoreDroppedInfo(before, from: converted, what: what)
    }

    /// Ghostscript 10.0 drops every document information entry it cannot write into XMP for
    /// PDF/A ("cannot be represented in XMP"): any text beyond ASCII, such as a title with an
    /// umlaut. Those entries are put back, in `/Info` and in the XMP alike, as PDF/A requires.
    private func restoreDroppedInfo(_ before: [String: Any], from converted: String, what: String) async throws {
        let pdf = QPDFJSON(step: step, file: converted)
        var info = try await pdf.info(what: what)
        var dropped: [String: String] = [:]
        for key in XMPDocumentInfo.properties.keys {
            guard let text = before[key] as? String, text.hasPrefix("u:"), info.entries[key] == nil else { continue }
            dropped[key] = String(text.dropFirst(2))
            info.entries[key] = text
        }
        guard !dropped.isEmpty else {
            try ToolFiles.moveReplacing(step.work + "/" + converted, to: step.output)
            return
        }
        var changes = info.changes
        if let root = info.trailer["/Root"] as? String, let metadata = try await pdf.object(root, what: what).value["/Metadata"] as? String,
            let change = try await pdf.rewrittenMetadata(metadata, what: what, edit: { XMPDocumentInfo.setting(dropped, in: $0) })
        {
            changes["obj:" + metadata] = change
        }
        try await pdf.update(changes, maxObject: info.maxObject, into: step.outputName, what: what)
    }

    /// The newest `PDFA_def.ps` Debian's ghostscript ships (its directory carries the version),
    /// pointed at our ICC profile and without its example title (which would replace the
    /// document's own). Read once: packages do not change under a running gateway.
    static let definition: String? = {
        let root = "/usr/share/ghostscript"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        for version in versions.sorted().reversed() {
            guard let text = try? String(contentsOfFile: "\(root)/\(version)/lib/PDFA_def.ps", encoding: .utf8) else { continue }
            return text.replacingOccurrences(of: "(srgb.icc) % Customise", with: "(\(iccProfile))")
                .replacingOccurrences(of: "[ /Title (Title)       % Customise\n  /DOCINFO pdfmark", with: "")
        }
        return nil
    }()
}
