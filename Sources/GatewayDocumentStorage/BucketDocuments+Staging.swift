import Foundation
import GatewayLibraryModel

/// Staged job inputs under `PREFIX/staging/`, beside the documents, so every node reaches them.
extension BucketDocuments: StagedObjects {
    func stagedKey(_ name: String) -> String { client.location.key("staging/" + name) }

    public func stage(_ path: String, as name: String) async throws(LibraryError) -> Bool {
        let key = stagedKey(name)
        // Checked first, so a second upload racing on another node does not replace the first's
        // bytes (the job's row then refuses it); S3 has no no-replace write to close the window.
        if try await retrying("look up \(key)", patience: writePatience, { try await client.head(key) }) != nil { return false }
        let digest: (sha256: String, size: Int64)
        do {
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
            digest = (try S3Client.sha256(of: path, offset: 0, length: size), size)
        } catch {
            throw LibraryError(.storage, "cannot read \(path) to stage it: \(error)")
        }
        try await retrying("stage \(key)", patience: writePatience) {
            try await client.upload(path, key: key, size: digest.size, sha256: digest.sha256, contentType: "application/octet-stream")
        }
        return true
    }

    public func fetchStaged(_ name: String, to path: String) async throws(LibraryError) -> Bool {
        let key = stagedKey(name)
        // Told apart by S3's own error kind, inside the retries: a missing key is an answer, not an outage.
        return try await retrying("read \(key)", patience: writePatience) {
            do {
                try await client.download(key, to: path)
                return true
            } catch let error as S3Error where error.kind == .noSuchKey {
                return false
            }
        }
    }

    public func listStaged(_ prefix: String) async throws(LibraryError) -> [(name: String, staged: Date?)] {
        let root = stagedKey("")
        // A job's attempt asks before it converts: it waits out an outage as writes do.
        let objects = try await retrying("list \(root + prefix)", patience: writePatience) { try await client.listAll(prefix: root + prefix) }
        return objects.map { (String($0.key.dropFirst(root.count)), $0.lastModified) }
    }

    public func removeStaged(_ name: String) async throws(LibraryError) {
        let key = stagedKey(name)
        try await retrying("remove \(key)", patience: readPatience) { try await client.delete(key) }
    }
}
