import Foundation
import GatewayCore

/// Writes the document information dictionary (`QPDFJSON`): the current `/Info` read, the new
/// values merged in, and qpdf writes the file. A document without `/Info` gets a new object.
struct MetadataWriter {
    let step: Step

    func write(_ update: PDFOperation.MetadataUpdate, what: String) async throws {
        let pdf = QPDFJSON(step: step, file: step.inputName)
        var info = try await pdf.info(what: what)
        for (key, value) in Self.entries(update) { info.entries[key] = value }
        try await pdf.update(info.changes, maxObject: info.maxObject, into: step.outputName, what: what)
    }

    /// qpdf JSON values: `u:` marks a text string.
    static func entries(_ update: PDFOperation.MetadataUpdate) -> [String: String] {
        var entries: [String: String] = [:]
        let texts: [(String, String?)] = [
            ("/Title", update.title), ("/Author", update.author), ("/Subject", update.subject),
            ("/Keywords", update.keywords), ("/Creator", update.creator),
        ]
        for (key, value) in texts { if let value { entries[key] = "u:" + value } }
        if let date = update.creationDate { entries["/CreationDate"] = "u:" + pdfDate(date) }
        // A write is a modification: its date is now unless the client set one.
        entries["/ModDate"] = "u:" + pdfDate(update.modificationDate ?? Date())
        return entries
    }

    /// `D:YYYYMMDDHHmmSSZ`, the PDF date form, in UTC.
    static func pdfDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "D:%04d%02d%02d%02d%02d%02dZ", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!)
    }
}
