import Foundation
import GatewayConversionFormats
import GatewayJobModel
import GatewaySandbox

/// PDF/UA of an existing PDF as Gotenberg makes it: LibreOffice Draw imports the PDF and its PDF
/// export writes it again, tagged, with Gotenberg's settings for `pdfua` (and `SelectPdfVersion`
/// for a PDF/A part, in the same pass). A fresh soffice each time, its profile, HOME and scratch
/// in the step's directory and removed after: nothing is shared with the warm LibreOffice slots.
///
/// LibreOffice's export drops the document information; PDF/UA wants the title shown, so the
/// input's title, author, subject, keywords and creator are put back, in `/Info` and in the XMP
/// alike, and the viewer told to show the title (`DisplayDocTitle`).
struct PDFUAConversion {
    let step: Step

    func convert(part: PDFOperation.PDFAPart?, what: String) async throws {
        let soffice = step.runner.sofficePath
        guard FileManager.default.isExecutableFile(atPath: soffice) else {
            throw JobFailure(
                .cannotStart,
                code: "converter_unavailable",
                "\(soffice) is missing: pdfua needs LibreOffice Draw, Debian's libreoffice-draw (scripts/install-deps.sh installs it)"
            )
        }
        let directory = step.prefix + "-libreoffice"
        let scratch = step.work + "/" + directory
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let profile = scratch + "/profile"
        LibreOfficeProfile.prepare(profile, soffice: soffice)
        let finished = try await step.runner.run(
            .libreOffice,
            [
                "--headless", "--invisible", "--nologo", "--norestore", "--nodefault", "--nolockcheck", "--nofirststartwizard",
                "-env:UserInstallation=" + URL(fileURLWithPath: profile).absoluteString,
                "--infilter=draw_pdf_import",
                "--convert-to", Self.convertTo(part: part),
                "--outdir", directory + "/out",
                step.inputName,
            ],
            in: step.work,
            what: what,
            deadline: step.deadline,
            environment: childEnvironment(privateDirectory: scratch)
        )
        let exported = directory + "/out/" + step.inputName
        guard finished.status == 0 else { throw PDFToolRunner.refused(.libreOffice, what, finished.log) }
        // soffice exits 0 whether or not it converted: the file says.
        guard let size = try? FileManager.default.attributesOfItem(atPath: step.work + "/" + exported)[.size] as? Int, size > 0 else {
            // soffice's start-up warning about Java (which it does not need here) would hide the cause.
            let said = finished.log.split(separator: "\n").filter { !$0.contains("javaldx") }.joined(separator: "\n")
            throw JobFailure(
                .rejected,
                code: "operation_failed",
                "LibreOffice could not import \(what) to make it PDF/UA: it is damaged, or not a PDF LibreOffice's import can read ("
                    + OutputCheck.lastLines(said) + ")"
            )
        }
        try await restoreInfo(into: exported, what: what)
    }

    /// `soffice --convert-to`'s target: Draw's PDF export with the settings Gotenberg sends for
    /// `pdfua` (and `pdfa`), the ones the office conversions send too.
    static func convertTo(part: PDFOperation.PDFAPart?) -> String {
        var options = ConversionOptions()
        options.office.pdfua = true
        options.office.pdfa = part.flatMap { OfficeOptions.PDFA(rawValue: "PDF/A-" + $0.rawValue) }
        return LibreOfficeExport.convertTo(for: options, filter: "draw_pdf_Export")
    }

    /// Writes `exported` as the step's output with the input's document information, in `/Info`
    /// and the XMP, and `DisplayDocTitle` set.
    private func restoreInfo(into exported: String, what: String) async throws {
        let before = try await QPDFJSON(step: step, file: step.inputName).info(what: what).entries
        let pdf = QPDFJSON(step: step, file: exported)
        var info = try await pdf.info(what: what)
        var restored: [String: String] = [:]
        for key in XMPDocumentInfo.properties.keys {
            guard let text = before[key] as? String, text.hasPrefix("u:"), text.count > 2 else { continue }
            restored[key] = String(text.dropFirst(2))
            info.entries[key] = text
        }
        var changes = info.changes
        guard let root = info.trailer["/Root"] as? String else {
            throw JobFailure(.rejected, code: "operation_failed", "LibreOffice's PDF/UA export of \(what) has no catalog")
        }
        var catalog = try await pdf.object(root, what: what).value
        // An indirect /ViewerPreferences (never LibreOffice's) stays as it is.
        if catalog["/ViewerPreferences"] == nil || catalog["/ViewerPreferences"] is [String: Any] {
            var preferences = catalog["/ViewerPreferences"] as? [String: Any] ?? [:]
            preferences["/DisplayDocTitle"] = true
            catalog["/ViewerPreferences"] = preferences
            changes["obj:" + root] = ["value": catalog]
        }
        if !restored.isEmpty, let metadata = catalog["/Metadata"] as? String,
            let change = try await pdf.rewrittenMetadata(metadata, what: what, edit: { XMPDocumentInfo.setting(restored, in: $0) })
        {
            changes["obj:" + metadata] = change
        }
        try await pdf.update(changes, maxObject: info.maxObject, into: step.outputName, what: what)
    }
}
