import Foundation
import GatewayHTTPServing
import HTTPTypes
import Hummingbird
import ZIPFoundation

/// The answer of a Gotenberg route that made files: one as itself (a PDF, a screenshot), several PDFs as one zip, named
/// Gotenberg's way (`Gotenberg-Output-Filename` plus the real extension, else the outputs' own
/// names). Streamed from disk; the documents leave the library once it is written, unless the
/// caller asked to keep them (`Pdfgate-Folder`).
struct GotenbergAnswer {
    let jobs: GotenbergJobs

    /// What the outputs make: one file as itself, several PDFs as one zip (written to a
    /// `temporary` file the caller removes), with its type and Gotenberg's name for it.
    struct File: Sendable {
        var path: String
        var size: Int64
        var temporary: Bool
        var contentType: String
        var filename: String
    }

    /// Gotenberg's name from a `Gotenberg-Output-Filename` header: its last path segment,
    /// control characters out; nil when nothing is left.
    static func outputName(_ header: String?) -> String? {
        header
            .map { $0.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? "" }
            .map { String($0.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }).trimmingCharacters(in: .whitespaces) }
            .flatMap { $0.isEmpty ? nil : $0 }
    }

    func file(_ outputs: [GotenbergJobs.Output], named: String?) throws -> File {
        let files = outputs.flatMap { output in
            Swift.zip(output.documents, output.filenames).map { (path: $0.path, name: $1, size: $0.document.size) }
        }
        guard let job = outputs.first?.job else { throw GotenbergError(.internalServerError) }
        if let image = outputs.first?.image {
            let bytes = (try? FileManager.default.attributesOfItem(atPath: image.path)[.size] as? NSNumber)?.int64Value ?? 0
            let name = (named ?? job.id.lowercased) + "." + image.format.rawValue
            return File(path: image.path, size: bytes, temporary: false, contentType: image.format.mediaType, filename: name)
        }
        if files.count == 1, let first = files.first {
            return File(
                path: first.path,
                size: first.size,
                temporary: false,
                contentType: "application/pdf",
                filename: named.map { $0 + ".pdf" } ?? first.name
            )
        }
        let archive = jobs.intake.staging.incomingPath()
        do {
            try Self.archive(files.map { ($0.path, $0.name) }, to: archive)
        } catch {
            jobs.intake.staging.discardIncoming(archive)
            throw error
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: archive)[.size] as? NSNumber)?.int64Value ?? 0
        return File(path: archive, size: bytes, temporary: true, contentType: "application/zip", filename: (named ?? job.id.lowercased) + ".zip")
    }

    func response(_ outputs: [GotenbergJobs.Output], request: Request, context: GatewayRequestContext) async throws -> Response {
        let keep = request.headers[.pdfgateFolder] != nil
        let answer = try file(outputs, named: Self.outputName(request.headers[.gotenbergOutputFilename]))
        var headers = HTTPFields()
        headers[.pdfgateJobID] = outputs.map(\.job.id.lowercased).joined(separator: ", ")
        if keep { headers[.pdfgateDocumentID] = outputs.flatMap { $0.documents.map(\.document.id.lowercased) }.joined(separator: ", ") }
        headers[.contentType] = answer.contentType
        headers[.contentDisposition] = FileResponse.disposition("attachment", filename: answer.filename)
        headers[.contentLength] = String(answer.size)
        for warning in GotenbergWarnings.current?.all(after: outputs) ?? [] { headers.append(HTTPField(name: .pdfgateWarning, value: warning)) }
        let (jobs, finished) = (jobs, outputs.map(\.job))
        let done: @Sendable () async -> Void = {
            if answer.temporary { jobs.intake.staging.discardIncoming(answer.path) }
            if !keep { await jobs.discard(finished) }
        }
        let file: ResponseBody
        do {
            file = try await FileIO().loadFile(path: answer.path, context: context)
        } catch {
            await done()
            throw error
        }
        let body = ResponseBody { writer in
            do {
                try await file.write(writer)
            } catch {
                await done()
                throw error
            }
            await done()
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The PDFs stored as they are: their streams are compressed already, so deflating again
    /// would cost time for next to nothing.
    static func archive(_ files: [(path: String, name: String)], to path: String) throws {
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
        var used: Set<String> = []
        for file in files {
            // Two outputs of one name (two inputs called alike) both arrive: the second is renamed.
            var name = file.name
            var number = 2
            while !used.insert(name).inserted {
                name = ((file.name as NSString).deletingPathExtension) + " (\(number))." + (file.name as NSString).pathExtension
                number += 1
            }
            try archive.addEntry(with: name, fileURL: URL(fileURLWithPath: file.path), compressionMethod: .none)
        }
    }
}
