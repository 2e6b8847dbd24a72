import Foundation
import GatewayLibraryModel
import Glibc

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
            let name: @Sendable (Int) -> String = { String(format: "Seeded %07d", $0) }
            var linkSource = template
            for i in 0..<count {
                let path = directory + "/" + name(i) + ".pdf"
                // ext4 allows 65,000 links per inode: start a fresh copy every 50,000.
                if i % 50_000 == 0 {
                    try FileOps.copy(from: template, to: path)
                    linkSource = path
                } else if link(linkSource, path) != 0 {
                    throw FileOpsError(errno: errno, operation: "link", path: linkSource, other: path)
                }
            }
            // Random ids, as filing gives, handed out in order: rows then arrive in the order of
            // every index they go into (id, name, date), and each insert appends to a page that is
            // already in the cache. Bulk loads are fastest in key order.
            let ids = (0..<count).map { _ in UUID() }.sorted { a, b in
                withUnsafeBytes(of: a.uuid) { a in withUnsafeBytes(of: b.uuid) { b in a.lexicographicallyPrecedes(b) } }
            }  // byte order is the order of the lowercase text the catalog keeps
            let start = Date()
            let folderID = folder?.id ?? ""
            // Rows are made as the catalog writes them, not all first: 100,000 of them are 40 MiB.
            try await catalog.insertAll(count: count) { i in
                // Distinct creation times, so sorting by date is as selective as in real life.
                var record = DocumentRecord(
                    id: ids[i],
                    owner: owner,
                    folderID: folderID,
                    name: name(i),
                    size: size,
                    sha256: sha256,
                    info: info,
                    state: .ready,
                    now: start.addingTimeInterval(Double(i) / 1000)
                )
                record.pageCount = 1 + i % 50
                return record
            }
            try FileOps.fsync(directory, directory: true)
        }
    }
}
