import Foundation
import GatewayLibraryModel
import Glibc

#if canImport(Glibc)
#endif

extension Library {
    /// Fills a folder with `count` documents in one transaction, each a hard link to a copy of `template`:
    /// how benchmarks and load tests build a 100,000-document library in seconds. The result
    /// is an ordinary, consistent library (fsck-clean); it is just not built one fsync at a time.
    public func seed(owner: String, folderPath: String, count: Int, template: String, info: PDFInfo) async throws {
        try LibraryNames.validateOwner(owner)
        let names = try LibraryNames.folderPath(folderPath)
        let (sha256, size) = try FileOps.digest(template)
        try await mutate { [self] in
            let folder = await names.isEmpty ? nil : try ensureFolder(owner: owner, names: names)
            let directory = absolute(LibraryLayout.folderPath(owner: owner, folderPath: folder?.path ?? ""))
            try FileOps.makeDirectories(directory)
            do {
                let start = Date()
                var records: [DocumentRecord] = []
                records.reserveCapacity(count)
                var linkSource = template
                for i in 0..<count {
                    let name = String(format: "Seeded %07d", i)
                    let path = directory + "/" + name + ".pdf"
                    // ext4 allows 65,000 links per inode: start a fresh copy every 50,000.
                    if i % 50_000 == 0 {
                        try FileOps.copy(from: template, to: path)
                        linkSource = path
                    } else if link(linkSource, path) != 0 {
                        throw FileOpsError(errno: errno, operation: "link", path: linkSource, other: path)
                    }
                    // Distinct creation times, so sorting by date is as selective as in real life.
                    var record = DocumentRecord(
                        id: UUID(),
                        owner: owner,
                        folderID: folder?.id ?? "",
                        name: name,
                        size: size,
                        sha256: sha256,
                        info: info,
                        state: .ready,
                        now: start.addingTimeInterval(Double(i) / 1000)
                    )
                    record.pageCount = 1 + i % 50
                    records.append(record)
                }
                try await catalog.insertAll(records)
            }
            try FileOps.fsync(directory, directory: true)
        }
    }
}
