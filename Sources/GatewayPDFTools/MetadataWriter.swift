import Foundation
import GatewayJobModel
import GatewaySandbox

/// Writes the document information dictionary (`QPDFJSON`): the current `/Info` read, the new
/// values merged in, and qpdf writes the file. A document without `/Info` gets a new object.
/// Tags beyond it (`MetadataUpdate.tags`) go through ExifTool after.
struct MetadataWriter {
    let step: Step

    func write(_ update: PDFOperation.MetadataUpdate, what: String) async throws {
        let pdf = QPDFJSON(step: step, file: step.inputName)
        var info = try await pdf.info(what: what)
        for (key, value) in Self.entries(update) { info.entries[key] = value }
        if let trapped = update.tags["Trapped"].flatMap(Self.trappedName) { info.entries["/Trapped"] = trapped }
        let informed = update.tags.isEmpty ? step.outputName : step.prefix + "-info.pdf"
        try await pdf.update(info.changes, maxObject: info.maxObject, into: informed, what: what)
        if !update.tags.isEmpty { try await writeTags(update.tags, of: informed, what: what) }
    }

    /// The other tags, with ExifTool (Gotenberg's own engine for them), into the step's output.
    /// A tag ExifTool does not know or cannot write fails the step by name: a client that asked
    /// for it learns it did not happen.
    private func writeTags(_ tags: [String: MetadataTag], of input: String, what: String) async throws {
        var arguments = ["-o", step.outputName]
        for (name, value) in tags.sorted(by: { $0.key < $1.key }) { arguments += value.arguments(for: name) }
        arguments.append(input)
        let finished = try await step.runner.run(.exiftool, arguments, in: step.work, what: what, deadline: step.deadline)
        let warnings = finished.log.split(separator: "\n").filter { $0.hasPrefix("Warning:") || $0.hasPrefix("Error:") }
        guard finished.status == 0, warnings.isEmpty, FileManager.default.fileExists(atPath: step.output) else {
            try? FileManager.default.removeItem(atPath: step.output)
            let said = warnings.isEmpty ? OutputCheck.lastLines(finished.log) : warnings.joined(separator: "; ")
            throw JobFailure(.rejected, code: "metadata_not_written", "ExifTool did not write the metadata tags of \(what): \(said)")
        }
    }

    /// `Trapped` as the document information's name (`/True`, `/False`, `/Unknown`), written by
    /// qpdf beside ExifTool's XMP `pdf:Trapped`: readers of either find it, and the name is a
    /// real name object, not ExifTool's "(/True)" string that strict parsers refuse.
    static func trappedName(_ value: MetadataTag) -> String? {
        switch value {
        case .flag(let flag): return flag ? "/True" : "/False"
        case .text(let text):
            return ["true": "/True", "false": "/False", "unknown": "/Unknown"][text.lowercased()]
        default: return nil
        }
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
