import Foundation

/// Local copies of objects, bounded in size, the least recently used dropped first: every read
/// of a library document in a bucket (downloads, WebDAV, thumbnails, indexing, operations) goes
/// through it, so a document read twice is fetched once.
///
/// Several readers wanting the same object share one fetch. An entry is written under a
/// temporary name and renamed in whole, so a reader never sees half an object; one used in the
/// last `minimumAge` is never evicted, so a download that was just handed its path can still
/// open it (and once open, Linux keeps an unlinked file readable to the end).
actor ObjectCache {
    let directory: String
    let maxBytes: Int64
    let minimumAge: Duration
    private var fetching: [String: Task<String, any Error>] = [:]
    /// The entries' bytes as of the last scan plus what was added since: the directory is only
    /// scanned (every entry stat'ed) once this passes `maxBytes`, not at every addition, which
    /// with ten thousand entries cost more than the upload.
    private var bytes: Int64
    /// The total past which the next scan runs: `maxBytes`, or more while every entry over it
    /// is too recent to go (a burst of filings), so a burst does not scan at every addition.
    private var scanAbove: Int64

    init(directory: String, maxBytes: Int64, minimumAge: Duration = .seconds(120)) throws {
        self.directory = directory
        self.maxBytes = maxBytes
        self.minimumAge = minimumAge
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Partial fetches a killed process left behind.
        var total: Int64 = 0
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            if entry.hasPrefix(".") { unlink(directory + "/" + entry) } else { total += Self.size(of: directory + "/" + entry) ?? 0 }
        }
        bytes = total
        scanAbove = maxBytes
    }

    /// The path of entry `name` holding `size` bytes, fetched by `fetch(temporaryPath)` unless
    /// it is cached already.
    func file(_ name: String, size: Int64, fetch: @escaping @Sendable (String) async throws -> Void) async throws -> String {
        let path = directory + "/" + name
        if Self.size(of: path) == size {
            Self.touch(path)
            return path
        }
        if let running = fetching[name] { return try await running.value }
        let directory = directory
        let task = Task<String, any Error> {
            let partial = directory + "/.\(name).\(UUID().uuidString)"
            do {
                try await fetch(partial)
                guard Self.size(of: partial) == size else {
                    throw CacheError(
                        description: "the object fetched for \(name) has \(Self.size(of: partial) ?? 0) bytes, not the \(size) the catalog records"
                    )
                }
                guard rename(partial, path) == 0 else {
                    throw CacheError(description: "cannot keep \(name) in \(directory): \(String(cString: strerror(errno)))")
                }
                return path
            } catch {
                unlink(partial)
                throw error
            }
        }
        fetching[name] = task
        defer { fetching[name] = nil }
        let result = try await task.value
        added(size)
        return result
    }

    /// Makes the file at `path` entry `name` too (a hard link: no bytes copied), so what was just
    /// uploaded is read again from here, not fetched back. Only a file of the store's own (a
    /// staged upload, a converter's output), which nobody changes afterwards: a user's file
    /// linked in could change under the entry. Nothing happens across file systems, or when the
    /// entry exists.
    func adopt(_ path: String, as name: String, size: Int64) {
        let target = directory + "/" + name
        let store = ((directory as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
        guard path.hasPrefix(store + "/"), !path.contains("/../"), Self.size(of: target) != size, link(path, target) == 0 else { return }
        added(size)
    }

    /// Drops entry `name` (its object was retired).
    func remove(_ name: String) {
        let path = directory + "/" + name
        bytes -= Self.size(of: path) ?? 0
        unlink(path)
    }

    private func added(_ size: Int64) {
        bytes += size
        if bytes > scanAbove { evict() }
    }

    /// Removes the least recently used entries until the cache fits in `maxBytes`.
    private func evict() {
        let fm = FileManager.default
        let entries = ((try? fm.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.hasPrefix(".") }.compactMap {
            name -> (String, Int64, Date)? in
            let path = directory + "/" + name
            guard let attributes = try? fm.attributesOfItem(atPath: path), let size = (attributes[.size] as? NSNumber)?.int64Value,
                let used = attributes[.modificationDate] as? Date
            else { return nil }
            return (path, size, used)
        }
        var total = entries.reduce(0) { $0 + $1.1 }
        let keepAfter = Date().addingTimeInterval(-Double(minimumAge.components.seconds))
        for (path, size, used) in entries.sorted(by: { $0.2 < $1.2 }) where total > maxBytes && used < keepAfter {
            unlink(path)
            total -= size
        }
        bytes = total
        scanAbove = max(maxBytes, total + maxBytes / 8)
    }

    static func size(of path: String) -> Int64? {
        var st = stat()
        return stat(path, &st) == 0 ? Int64(st.st_size) : nil
    }

    /// Marks an entry used now (its modification time is the cache's clock).
    private static func touch(_ path: String) { utimes(path, nil) }
}

struct CacheError: Error, CustomStringConvertible {
    var description: String
}
