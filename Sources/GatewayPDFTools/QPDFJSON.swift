import Foundation
import GatewayJobModel

/// One PDF's objects read and changed through qpdf's JSON (version 2): `--json-object` to read,
/// `--update-from-json` to write, so no PDF syntax is ours. Text strings are `u:`-prefixed
/// UTF-8 there; qpdf encodes them as PDFDocEncoding or UTF-16 when it writes.
struct QPDFJSON {
    let step: Step
    /// The PDF's name in the step's directory.
    let file: String

    /// The document information dictionary, where it is (or will be) and what the trailer says.
    struct Info {
        var entries: [String: Any]
        /// `17 0 R`; a new object's when the document has none.
        var reference: String
        /// The trailer, with `/Info` pointing at `reference`.
        var trailer: [String: Any]
        /// Whether `/Info` is new, so the trailer must be written too.
        var isNew: Bool
        var maxObject: Int

        /// The qpdf JSON update that writes `entries` (and the trailer, for a new `/Info`).
        var changes: [String: Any] {
            var changes: [String: Any] = ["obj:" + reference: ["value": entries]]
            if isNew { changes["trailer"] = ["value": trailer] }
            return changes
        }
    }

    func info(what: String) async throws -> Info {
        let trailer = try await object("trailer", what: what)
        let maxObject = trailer.header["maxobjectid"] as? Int ?? 0
        if let reference = trailer.value["/Info"] as? String {
            let entries = try await object(reference, what: what).value
            return Info(entries: entries, reference: reference, trailer: trailer.value, isNew: false, maxObject: maxObject)
        }
        var value = trailer.value
        let reference = "\(maxObject + 1) 0 R"
        value["/Info"] = reference
        return Info(entries: [:], reference: reference, trailer: value, isNew: true, maxObject: maxObject)
    }

    /// One object (`trailer`, or a reference such as `17 0 R`): the header (with
    /// `maxobjectid`), its value, and for a stream its dictionary and base64 data.
    func object(
        _ which: String,
        streamData: Bool = false,
        what: String
    ) async throws -> (header: [String: Any], value: [String: Any], stream: [String: Any]?) {
        let json = try await read(
            ["--json-key=qpdf", "--json-object=" + Self.selector(which)] + (streamData ? ["--json-stream-data=inline"] : []),
            what: what
        )
        guard let sections = json["qpdf"] as? [[String: Any]], sections.count == 2 else {
            throw JobFailure(.rejected, code: "operation_failed", "qpdf's JSON of \(what) has no objects section")
        }
        let entry = sections[1][which == "trailer" ? "trailer" : "obj:" + which] as? [String: Any] ?? [:]
        let stream = entry["stream"] as? [String: Any]
        return (sections[0], (entry["value"] ?? stream?["dict"]) as? [String: Any] ?? [:], stream)
    }

    /// The update entry that rewrites the XMP packet of the metadata stream `reference` with
    /// `edit`; nil when the stream holds no text packet or `edit` gives none back. The data
    /// given is decoded: no filter, and qpdf writes the length (PDF/A wants the metadata stream
    /// unfiltered anyway).
    func rewrittenMetadata(_ reference: String, what: String, edit: (String) -> String?) async throws -> [String: Any]? {
        let stream = try await object(reference, streamData: true, what: what).stream
        guard let data = (stream?["data"] as? String).flatMap({ Data(base64Encoded: $0) }), let packet = String(data: data, encoding: .utf8),
            let edited = edit(packet)
        else { return nil }
        var dictionary = stream?["dict"] as? [String: Any] ?? [:]
        for key in ["/Length", "/Filter", "/DecodeParms"] { dictionary.removeValue(forKey: key) }
        return ["stream": ["dict": dictionary, "data": Data(edited.utf8).base64EncodedString()]]
    }

    /// An array object's items (`/AF` kept as an object of its own, say).
    func array(_ reference: String, what: String) async throws -> [Any] {
        let json = try await read(["--json-key=qpdf", "--json-object=" + Self.selector(reference)], what: what)
        let sections = json["qpdf"] as? [[String: Any]] ?? []
        let entry = sections.count == 2 ? sections[1]["obj:" + reference] as? [String: Any] : nil
        return entry?["value"] as? [Any] ?? []
    }

    /// One top-level section of qpdf's JSON, such as `pages`.
    func section(_ key: String, what: String) async throws -> Any? {
        try await read(["--json-key=" + key], what: what)[key]
    }

    /// qpdf's JSON (version 2) of the file, limited by `selection`, parsed.
    private func read(_ selection: [String], what: String) async throws -> [String: Any] {
        let output = step.work + "/" + step.prefix + "-json-\(UUID().uuidString.prefix(8)).json"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let finished = try await step.runner.run(
            .qpdf,
            ["--json=2"] + selection + [file],
            in: step.work,
            what: what,
            deadline: step.deadline,
            stdout: output
        )
        guard finished.status == 0 || finished.status == 3, let data = FileManager.default.contents(atPath: output),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw PDFToolRunner.refused(.qpdf, what, finished.log) }
        return json
    }

    /// Writes the PDF with `changes` (qpdf JSON update entries) as `output` in the step's directory.
    func update(_ changes: [String: Any], maxObject: Int, into output: String, what: String) async throws {
        let document: [String: Any] = [
            "qpdf": [
                ["jsonversion": 2, "pushedinheritedpageresources": false, "calledgetallpages": false, "maxobjectid": maxObject],
                changes,
            ]
        ]
        let name = step.prefix + "-update-\(UUID().uuidString.prefix(8)).json"
        try JSONSerialization.data(withJSONObject: document, options: .withoutEscapingSlashes).write(to: URL(fileURLWithPath: step.work + "/" + name))
        defer { try? FileManager.default.removeItem(atPath: step.work + "/" + name) }
        try await step.qpdf([file, "--update-from-json=" + name, output], what)
    }

    /// qpdf's `--json-object` form of a reference: `17 0 R` → `17,0`.
    static func selector(_ reference: String) -> String {
        guard reference != "trailer" else { return reference }
        return reference.split(separator: " ").prefix(2).joined(separator: ",")
    }
}
