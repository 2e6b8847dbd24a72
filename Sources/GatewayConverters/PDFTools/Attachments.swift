import Foundation
import GatewayCore

/// `attach`: qpdf's `--add-attachment`, once per file, each written beside the input in the
/// work directory first. The PDF's own objects stay as they are; a file of the same name is
/// replaced (`--replace`), as a second `embeds` of one name is in Gotenberg.
struct Attachments {
    let step: Step

    func attach(_ files: [PDFAttachment], secrets: JobSecrets, what: String) async throws {
        var arguments = [step.inputName, step.outputName]
        for (index, file) in files.enumerated() {
            // Our name on disk; the name in the PDF is the client's.
            let staged = step.prefix + "-attachment-\(index)"
            try step.stage(
                file.sha256,
                as: staged,
                secrets: secrets,
                missingCode: "attachment_missing",
                described: "the attached file '\(file.name)'"
            )
            arguments += [
                "--add-attachment", staged, "--key=\(file.name)", "--filename=\(file.name)",
                "--mimetype=\(MediaTypes.mediaType(ofFile: file.name))", "--replace", "--",
            ]
        }
        try await step.qpdf(arguments, what)
    }
}
