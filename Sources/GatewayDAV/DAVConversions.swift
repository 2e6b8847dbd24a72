import Foundation
import GatewayEngine
import GatewayJobModel

/// Office files, ebooks, HTML pages and images dropped into the drive become conversion jobs.
///
/// A file manager checks the file it just wrote, so the dropped file stays where it was put
/// while its job runs. When the job has succeeded, the PDF (`<name>.pdf`, numbered if the name
/// is taken) has taken its place: the original goes. When it failed, the original stays and a
/// short note, `<name>.failed.txt`, says why. A marker beside the original names its job; the
/// folder's next listing settles it, on whichever node, after any restart.
struct DAVConversions: Sendable {
    let files: DAVFileStore
    let intake: JobIntake
    let engine: JobEngine

    private struct Marker: Codable {
        var job: UUID
        /// The original as it was converted: a newer write of it is not removed.
        var etag: String
    }

    /// Whether a dropped file named `name` is converted: documents people read (office files,
    /// ebooks, HTML pages, photos and scans), not the data files a backup carries along (plain
    /// text, CSV, XML, ZIP, SVG), which stay as they are.
    static func converts(_ name: String) -> Bool {
        let ext = (name as NSString).pathExtension.lowercased()
        guard !name.hasPrefix("."), !keptAsTheyAre.contains(ext) else { return false }
        return SourceFormats.ebook.contains(ext) || SourceFormats.image.contains(ext) || SourceFormats.document.contains(ext)
    }

    static let keptAsTheyAre: Set<String> = ["", "pdf", "txt", "text", "xml", "csv", "tsv", "zip", "svg", "dbf", "wk1", "123", "gif", "bmp"]

    /// Starts the job for `file`, just written; a refusal is written as the note at once.
    func start(_ file: DAVFile, owner: String) async {
        let folder = file.folderID?.lowercased
        let spec = JobSpec(
            type: JobType.forFilename(file.name),
            originalFilename: file.name,
            folder: folder,
            name: (file.name as NSString).deletingPathExtension,
            onConflict: .rename
        )
        do {
            let (job, _) = try await intake.create(spec, owner: owner, inputs: [.copying(file.path)])
            let marker = try JSONEncoder().encode(Marker(job: job.id, etag: file.etag))
            let directory = markers(owner: owner, folderID: file.folderID)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try marker.write(to: URL(fileURLWithPath: directory + "/" + file.name + ".job"), options: .atomic)
        } catch {
            note(file, owner: owner, saying: "\(error)", job: nil)
        }
    }

    /// Settles the folder's finished conversions: see the type's comment.
    func settle(owner: String, folderID: UUID?) async {
        let directory = markers(owner: owner, folderID: folderID)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for markerName in names where markerName.hasSuffix(".job") {
            let path = directory + "/" + markerName
            guard let data = FileManager.default.contents(atPath: path), let marker = try? JSONDecoder().decode(Marker.self, from: data),
                let job = try? await engine.job(marker.job)
            else { continue }
            let original = String(markerName.dropLast(4))
            let file = files.file(owner: owner, folderID: folderID, name: original)
            switch job.state.status {
            case .succeeded:
                if let file, file.etag == marker.etag { try? files.delete(owner: owner, folderID: folderID, name: original) }
            case .failed, .cancelled:
                if let file {
                    let failure = job.state.failure.map { "\($0.message) (\($0.code))" } ?? "the job ended without a PDF"
                    note(file, owner: owner, saying: failure, job: job.id)
                }
            default:
                continue
            }
            unlink(path)
        }
    }

    private func markers(owner: String, folderID: UUID?) -> String {
        files.directory(owner: owner, folderID: folderID) + "/.pdfgate-jobs"
    }

    /// Writes `<name>.failed.txt` beside the original (atomically: written beside, renamed).
    private func note(_ file: DAVFile, owner: String, saying reason: String, job: UUID?) {
        var text = "PDF Gateway could not convert \(file.name) to PDF: \(reason)\n\n"
        text += "The original is kept. Fix it and drop it again, or convert it another way.\n"
        if let job { text += "The job: /v1/jobs/\(job.lowercased)\n" }
        let path = files.directory(owner: owner, folderID: file.folderID) + "/" + file.name + ".failed.txt"
        try? Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
