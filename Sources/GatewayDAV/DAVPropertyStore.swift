import Foundation
import GatewayHTTPServing

/// Dead properties (RFC 4918 §4): what clients set with PROPPATCH and expect back as they
/// wrote them, kept per resource as JSON in the store's own directory. A document's and a
/// folder's are kept by id, so they follow it through renames and moves; a plain file's by its
/// folder and name.
struct DAVPropertyStore: Sendable {
    let root: String

    /// At most this many properties per resource, and this many bytes of them.
    static let maxProperties = 256
    static let maxBytes = 256 * 1024

    init(metaDirectory: String) {
        root = metaDirectory + "/dav-props"
    }

    /// Where `resource`'s properties are kept.
    func key(_ resource: DAVResource, owner: String) -> String {
        let name: String
        switch resource {
        case .root: name = "root"
        case .folder(let folder): name = "folder-" + folder.id.lowercased
        case .document(let document): name = "document-" + document.id.lowercased
        case .file(let file):
            let hex = file.name.utf8.map { String(format: "%02x", $0) }.joined()
            name = "file-" + (file.folderID?.lowercased ?? "root") + "-" + hex
        }
        return root + "/" + owner + "/" + String(name.prefix(240)) + ".json"
    }

    /// The keys of the owner's resources that have properties: a listing of thousands reads
    /// only those, instead of trying a file per resource.
    func keys(owner: String) -> Set<String> {
        let directory = root + "/" + owner
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(names.map { directory + "/" + $0 })
    }

    /// The properties, by `{namespace}name`, each as the XML element the client sent.
    func properties(at key: String) -> [String: String] {
        guard let data = FileManager.default.contents(atPath: key),
            let stored = try? JSONDecoder().decode([String: String].self, from: data)
        else { return [:] }
        return stored
    }

    func save(_ properties: [String: String], at key: String) throws {
        if properties.isEmpty {
            unlink(key)
            return
        }
        let data = try JSONEncoder().encode(properties)
        guard properties.count <= Self.maxProperties, data.count <= Self.maxBytes else {
            throw APIError(
                .insufficientStorage,
                "dav_too_many_properties",
                "a resource keeps at most \(Self.maxProperties) properties of \(Self.maxBytes / 1024) KiB in all; remove some first"
            )
        }
        try FileManager.default.createDirectory(atPath: (key as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: key), options: .atomic)
    }

    func remove(at key: String) { unlink(key) }

    func copy(from source: String, to destination: String) throws {
        try save(properties(at: source), at: destination)
    }

    static func name(_ namespace: String, _ local: String) -> String { "{\(namespace)}\(local)" }
}
