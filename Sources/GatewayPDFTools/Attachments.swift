import Foundation
import GatewayJobModel

/// `attach`: qpdf's `--add-attachment`, once per file, each written beside the input in the
/// work directory first. The PDF's own objects stay as they are; a file of the same name is
/// replaced (`--replace`), as a second `embeds` of one name is in Gotenberg. A file with a
/// relationship becomes one of PDF/A-3's associated files (`associate`).
struct Attachments {
    let step: Step

    func attach(_ files: [PDFAttachment], secrets: JobSecrets, what: String) async throws {
        let related = files.filter { $0.relationship != nil }
        guard !related.isEmpty else { return try await add(files, into: step.outputName, secrets: secrets, what: what) }
        let attached = step.prefix + "-attached.pdf"
        try await add(files, into: attached, secrets: secrets, what: what)
        let pdf = QPDFJSON(step: step, file: attached)
        let association = try await associate(related, in: pdf, what: what)
        try await pdf.update(association.changes, maxObject: association.maxObject, into: step.outputName, what: what)
    }

    /// qpdf adds each file (with its media type) to the input, written as `output`.
    func add(_ files: [PDFAttachment], into output: String, secrets: JobSecrets, what: String) async throws {
        var arguments = [step.inputName, output]
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
                "--mimetype=\(file.mimeType ?? MediaTypes.mediaType(ofFile: file.name))", "--replace", "--",
            ]
        }
        try await step.qpdf(arguments, what)
    }

    /// What relates `files` to the document, as qpdf JSON changes: `/AFRelationship` on each
    /// one's file specification, and the catalog's `/AF` listing them (with what it listed).
    /// The catalog is returned too, for a caller that changes more of it.
    func associate(
        _ files: [PDFAttachment],
        in pdf: QPDFJSON,
        what: String
    ) async throws -> (changes: [String: Any], catalog: String, maxObject: Int) {
        let trailer = try await pdf.object("trailer", what: what)
        guard let catalog = trailer.value["/Root"] as? String else {
            throw JobFailure(.rejected, code: "operation_failed", "\(what) has no catalog; qpdf wrote it without one")
        }
        let attachments = try await pdf.section("attachments", what: what) as? [String: [String: Any]] ?? [:]
        var changes: [String: Any] = [:]
        var associated: [String] = []
        for file in files {
            guard let relationship = file.relationship, let reference = attachments[file.name]?["filespec"] as? String else {
                throw JobFailure(.rejected, code: "operation_failed", "qpdf did not attach '\(file.name)' to \(what)")
            }
            var filespec = try await pdf.object(reference, what: what).value
            filespec["/AFRelationship"] = "/" + relationship.rawValue
            changes["obj:" + reference] = ["value": filespec]
            associated.append(reference)
        }
        var root = try await pdf.object(catalog, what: what).value
        // What the catalog listed stays listed: inline, or an array object of its own.
        var listed: [String] = []
        switch root["/AF"] {
        case let inline as [Any]: listed = inline.compactMap { $0 as? String }
        case let reference as String: listed = try await pdf.array(reference, what: what).compactMap { $0 as? String }
        default: break
        }
        root["/AF"] = listed + associated.filter { !listed.contains($0) }
        changes["obj:" + catalog] = ["value": root]
        return (changes, catalog, trailer.header["maxobjectid"] as? Int ?? 0)
    }
}

/// `facturx`: the invoice's XML attached as `factur-x.xml`, the `Alternative` of the document,
/// and the `fx` declaration added to its XMP — in one qpdf write after the attachment.
struct FacturXInvoice {
    let step: Step

    func apply(_ invoice: FacturX, secrets: JobSecrets, what: String) async throws {
        let attachments = Attachments(step: step)
        let attached = step.prefix + "-invoice.pdf"
        try await attachments.add([invoice.xml], into: attached, secrets: secrets, what: what)
        let pdf = QPDFJSON(step: step, file: attached)
        var (changes, catalog, maxObject) = try await attachments.associate([invoice.xml], in: pdf, what: what)
        // The catalog as `associate` changed it, for its metadata stream.
        let root = ((changes["obj:" + catalog] as? [String: Any])?["value"] as? [String: Any]) ?? [:]
        guard let metadata = root["/Metadata"] as? String else {
            throw JobFailure(
                .rejected,
                code: "operation_failed",
                "\(what) has no XMP metadata to declare the invoice in; a facturx operation follows a pdfa with part 3b"
            )
        }
        guard let change = try await pdf.rewrittenMetadata(metadata, what: what, edit: { XMPFacturX.declaring(invoice, in: $0) }) else {
            throw JobFailure(.rejected, code: "operation_failed", "the XMP metadata of \(what) is not XML that the invoice can be declared in")
        }
        changes["obj:" + metadata] = change
        try await pdf.update(changes, maxObject: maxObject, into: step.outputName, what: what)
    }
}
