/// The order rules of `pdfua`: LibreOffice writes the whole file anew, so it comes after every
/// change, as `pdfa` does, and what it declares (tags for assistive technology, a PDF/A part)
/// must survive what follows.
extension [PDFOperation] {
    /// The PDF/A part the operations make: `pdfa`'s, or the one `pdfua` exports with.
    public var declaredPDFAPart: PDFOperation.PDFAPart? {
        for operation in self {
            switch operation {
            case .pdfa(let part): return part
            case .pdfua(let part?): return part
            default: continue
            }
        }
        return nil
    }

    /// Operations that may follow `pdfua`: they keep the pages and their tags as they are (a
    /// split, metadata — ExifTool's incremental update —, an outline, files attached, an
    /// invoice, encryption that lets assistive technology read).
    static let afterPDFUA: Set = ["split", "metadata", "bookmarks", "attach", "facturx", "encrypt"]

    func checkPDFUAOrder(field: String) throws(OperationError) {
        guard let index = firstIndex(where: { $0.name == "pdfua" }), case .pdfua(let part) = self[index] else { return }
        func refuse(_ message: String) -> OperationError { OperationError(.outOfRange, code: "contradictory_operations", "\(field): \(message)") }
        if filter({ $0.name == "pdfua" }).count > 1 { throw refuse("pdfua twice; make PDF/UA once") }
        if contains(where: { $0.name == "pdfa" }) {
            throw refuse(
                "pdfa and pdfua each write the whole file, and Ghostscript's PDF/A would drop the tags: for both, give pdfua the part, as {\"op\": \"pdfua\", \"part\": \"2b\"}"
            )
        }
        if let later = self[(index + 1)...].first(where: { !Self.afterPDFUA.contains($0.name) }) {
            throw refuse(
                "pdfua must come after \(later.name) (or be followed only by split, metadata, bookmarks, attach, facturx and encrypt): LibreOffice writes the file anew, and a later change would drop its tags"
            )
        }
        for name in ["attach", "facturx"] where self[..<index].contains(where: { $0.name == name }) {
            throw refuse("\(name) must come after pdfua, whose export would drop the attached files")
        }
        if case .encrypt(let encryption) = last {
            if let part { throw refuse("PDF/A-\(part.rawValue) forbids encryption; drop pdfua's part or encrypt") }
            if !encryption.allow.contains(.accessibility) {
                throw refuse("PDF/UA lets assistive technology read an encrypted file: keep \"accessibility\" in encrypt's allow")
            }
        }
    }
}
