import Foundation
import GatewayJobModel
import GatewayLibraryModel

/// What `JobIntake` checks and settles for jobs that run PDF operations or read library
/// documents, before anything is stored: the documents are the owner's, encrypted ones come
/// with a password, every page range fits, the operations' order makes sense — so a job that
/// cannot work is refused with a 400/422 naming the field, never failed after the fact.
struct OperationIntake {
    let filer: any DocumentFiler
    /// Where a password check works: beside the store, so the document is linked, not copied.
    let staging: any InputStaging

    /// The spec to store (passwords out, the destination and name defaulted from the first
    /// document) and the secrets to keep beside it. With `tools`, a password that does not open
    /// its encrypted document is refused here too (qpdf answers in milliseconds); without them
    /// the job finds out itself.
    func settle(
        _ spec: JobSpec,
        owner: String,
        secrets given: JobSecrets,
        tools: (any PDFOperator)?
    ) async throws -> (
        spec: JobSpec, secrets: JobSecrets
    ) {
        var spec = spec
        var secrets = given
        let operations = spec.operations ?? []
        try operations.checkOrder()
        for (index, operation) in operations.enumerated() {
            guard case .watermark(var mark) = operation, var image = mark.image else { continue }
            // The PNG waits beside the job's input; the row keeps its hash and size.
            guard let data = image.data else {
                throw OperationError(
                    .invalid,
                    code: "invalid_operation",
                    "operations[\(index)].image: send the PNG itself, base64, in \"image\" (image_sha256 only describes a stored one)"
                )
            }
            secrets.carriedFiles[image.sha256] = data
            image.data = nil
            mark.image = image
            spec.operations?[index] = .watermark(mark)
        }
        // An attached file's bytes wait beside the job's input; the row keeps its hash and size.
        // Without them (an answer's shape, well-formed) the create is 422.
        func carry(_ file: inout PDFAttachment, at field: String, in key: String) throws(OperationError) {
            guard let data = file.data else {
                throw OperationError(
                    .outOfRange,
                    code: "attachment_data_missing",
                    "\(field): send the file itself, base64, in \"\(key)\" (its sha256 only describes a stored one)"
                )
            }
            secrets.carriedFiles[file.sha256] = data
            file.data = nil
        }
        for (index, operation) in operations.enumerated() {
            switch operation {
            case .attach(var files):
                for number in files.indices { try carry(&files[number], at: "operations[\(index)].files[\(number)]", in: "data") }
                spec.operations?[index] = .attach(files)
            case .facturX(var invoice):
                try carry(&invoice.xml, at: "operations[\(index)].xml", in: "xml")
                spec.operations?[index] = .facturX(invoice)
            default: continue
            }
        }
        for (index, operation) in operations.enumerated() {
            guard case .encrypt(var encryption) = operation else { continue }
            secrets.userPassword = encryption.userPassword.flatMap { $0.isEmpty ? nil : $0 }
            secrets.ownerPassword = encryption.ownerPassword.flatMap { $0.isEmpty ? nil : $0 }
            guard secrets.userPassword != nil || secrets.ownerPassword != nil else {
                throw OperationError(
                    .invalid,
                    code: "invalid_operation",
                    "operations[\(index)].user_password: encrypt needs a user_password (to open) or an owner_password (to change permissions)"
                )
            }
            encryption.userPassword = nil
            encryption.ownerPassword = nil
            spec.operations?[index] = .encrypt(encryption)
        }
        // A language this node lacks is known now (the intake and the engine share the tools):
        // 422 at create rather than a failed job.
        for (index, operation) in operations.enumerated() {
            guard case .ocr(let ocr) = operation, let installed = await tools?.ocrLanguages() else { continue }
            if let problem = PDFOperation.OCR.unavailable(ocr.languages, installed: installed) {
                throw OperationError(.outOfRange, code: "ocr_language_unavailable", "operations[\(index)].languages: \(problem)")
            }
        }
        for password in [secrets.password, secrets.userPassword, secrets.ownerPassword].compactMap({ $0 }) + Array(secrets.passwords.values) {
            if password.contains("\n") {
                throw OperationError(.invalid, code: "invalid_password", "a password must be on one line")
            }
            // PDF counts a password's UTF-8 bytes; 127 characters may be more (422, not malformed).
            if password.utf8.count > 127 {
                throw OperationError(
                    .outOfRange,
                    code: "password_too_long",
                    "a password may have at most 127 bytes of UTF-8; this one has \(password.utf8.count)"
                )
            }
        }
        guard let ids = spec.documents, !ids.isEmpty else {
            if spec.replaceOriginal == true {
                throw OperationError(.outOfRange, code: "contradictory_options", "replace_original needs one library document in \"documents\"")
            }
            return (spec, secrets)
        }
        guard spec.type == .pdfToPDF else {
            throw OperationError(.invalid, code: "invalid_argument", "\"documents\" are the input of PDF_TO_PDF jobs, not \(spec.type.rawValue)")
        }
        guard ids.count <= 500 else {
            throw OperationError(.invalid, code: "invalid_argument", "a job merges at most 500 documents; this one names \(ids.count)")
        }
        // Read once per document, however often the merge names it.
        var stored: [UUID: (document: Document, path: String)] = [:]
        for id in ids where stored[id] == nil { stored[id] = try await filer.storedDocument(id: id, owner: owner) }
        let documents = ids.map { stored[$0]!.document }
        for (id, found) in stored where found.document.info.encrypted {
            try await checkPassword(secrets.password(for: id.lowercased), opening: found, tools: tools)
        }
        if spec.replaceOriginal == true {
            guard documents.count == 1, !operations.contains(where: { $0.name == "split" }) else {
                throw OperationError(
                    .outOfRange,
                    code: "contradictory_options",
                    "replace_original writes one result over one document: name exactly one document and do not split"
                )
            }
        }
        try operations.checkPages(pageCount: documents.reduce(0) { $0 + $1.info.pageCount })
        let first = documents[0]
        if spec.folder == nil, let folder = first.folderID { spec.folder = folder.lowercased }
        if spec.name == nil { spec.name = documents.count == 1 ? first.name : first.name + " (merged)" }
        spec.inputSize = documents.reduce(0) { $0 + $1.size }
        return (spec, secrets)
    }

    /// An encrypted document needs a password, and (with `tools`) one that opens it.
    private func checkPassword(_ password: String?, opening stored: (document: Document, path: String), tools: (any PDFOperator)?) async throws {
        let name = "'\(stored.document.name)' (\(stored.document.id.lowercased))"
        guard let password else {
            throw OperationError(
                .outOfRange,
                code: "password_required",
                "\(name) is encrypted: send its password in \"password\", or in \"passwords\" by document id"
            )
        }
        guard let tools,
            try await !tools.opens(stored.path, password: password, work: staging.incomingPath(), deadline: .now + .seconds(20))
        else { return }
        throw OperationError(
            .outOfRange,
            code: "wrong_password",
            "the password given for \(name) does not open it; send the right one in \"password\" or \"passwords\""
        )
    }
}
