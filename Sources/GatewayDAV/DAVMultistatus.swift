import Foundation
import GatewayLibraryModel

/// A resource as PROPFIND describes it: the root, a folder or a document.
enum DAVResource: Sendable {
    case root
    case folder(Folder)
    case document(Document)
    case file(DAVFile)

    var isCollection: Bool {
        switch self {
        case .root, .folder: true
        case .document, .file: false
        }
    }
}

/// Writes a `207 Multi-Status` body: one `response` per resource, the properties asked for
/// (or all live ones for `allprop`), each found one under 200 and each unknown one under 404.
struct DAVMultistatus {
    /// Our own properties' namespace: a document's id, page count, title and version.
    static let pdfgate = "https://pdfgate.dev/ns/dav"

    /// Which properties a PROPFIND asks for.
    enum Request: Sendable {
        case all
        case names
        case only([(namespace: String, name: String)])

        var isAll: Bool {
            if case .all = self { true } else { false }
        }

        func names(_ namespace: String, _ name: String) -> Bool {
            if case .only(let names) = self { names.contains { $0.namespace == namespace && $0.name == name } } else { false }
        }
    }

    private(set) var xml = #"<?xml version="1.0" encoding="utf-8"?>"# + "\n" + #"<D:multistatus xmlns:D="DAV:" xmlns:P="\#(pdfgate)">"#

    /// Room for about `responses` responses, so a large listing is not copied as it grows.
    mutating func reserve(responses: Int) { xml.reserveCapacity(xml.utf8.count + responses * 1024) }

    mutating func add(
        _ resource: DAVResource,
        at path: DAVPath,
        version: ItemVersion?,
        asked: Request,
        dead: [String: String] = [:],
        locks: [DAVLock] = [],
        syncToken: String? = nil
    ) {
        let held = locks.filter { $0.covers(path.segments) }
        var live =
            Self.liveProperties(resource, version: version)
            + [
                Property(
                    namespace: "DAV:",
                    prefix: "D",
                    name: "lockdiscovery",
                    xml: "<D:lockdiscovery>" + held.map(\.activeLockXML).joined() + "</D:lockdiscovery>"
                )
            ]
            + dead.sorted { $0.key < $1.key }.map { key, xml in
                let (namespace, name) = Self.split(key)
                return Property(namespace: namespace, prefix: "", name: name, xml: xml)
            }
        // RFC 6578's properties of a collection, given only when named (not for allprop).
        if resource.isCollection, !asked.isAll {
            live.append(
                Property(
                    namespace: "DAV:",
                    prefix: "D",
                    name: "supported-report-set",
                    xml:
                        "<D:supported-report-set><D:supported-report><D:report><D:sync-collection/></D:report></D:supported-report></D:supported-report-set>"
                )
            )
            if let syncToken {
                live.append(
                    Property(namespace: "DAV:", prefix: "D", name: "sync-token", xml: "<D:sync-token>\(Self.escape(syncToken))</D:sync-token>")
                )
            }
        }
        xml += "<D:response><D:href>\(Self.escape(path.href(collection: resource.isCollection)))</D:href>"
        switch asked {
        case .all:
            xml += "<D:propstat><D:prop>"
            for property in live { xml += property.xml }
            xml += "</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>"
        case .names:
            xml +=
                "<D:propstat><D:prop>"
                + live.map { $0.prefix.isEmpty ? "<\(Self.escape($0.name)) xmlns=\"\(Self.escape($0.namespace))\"/>" : "<\($0.prefix):\($0.name)/>" }
                .joined()
                + "</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>"
        case .only(let names):
            var found: [String] = []
            var missing: [String] = []
            for asked in names {
                if let property = live.first(where: { $0.namespace == asked.namespace && $0.name == asked.name }) {
                    found.append(property.xml)
                } else {
                    missing.append("<\(Self.escape(asked.name)) xmlns=\"\(Self.escape(asked.namespace))\"/>")
                }
            }
            if !found.isEmpty {
                xml += "<D:propstat><D:prop>" + found.joined() + "</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>"
            }
            if !missing.isEmpty {
                xml += "<D:propstat><D:prop>" + missing.joined() + "</D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>"
            }
        }
        xml += "</D:response>"
    }

    var body: String { xml + "</D:multistatus>" }

    /// The body of a `sync-collection` report: its responses, then the token to ask from next.
    func body(syncToken: String) -> String {
        xml + "<D:sync-token>\(Self.escape(syncToken))</D:sync-token></D:multistatus>"
    }

    /// A response with a status and no properties: a member gone since the sync token (404),
    /// or the report's own href when it was cut at the client's limit (507).
    mutating func add(_ path: DAVPath, collection: Bool, status: String) {
        xml += "<D:response><D:href>\(Self.escape(path.href(collection: collection)))</D:href><D:status>HTTP/1.1 \(status)</D:status></D:response>"
    }

    /// One resource's PROPPATCH outcome: each property named with its status.
    mutating func add(_ path: DAVPath, collection: Bool, statuses: [(namespace: String, name: String, status: String)]) {
        xml += "<D:response><D:href>\(Self.escape(path.href(collection: collection)))</D:href>"
        var order: [String] = []
        var grouped: [String: [String]] = [:]
        for entry in statuses {
            if grouped[entry.status] == nil { order.append(entry.status) }
            grouped[entry.status, default: []].append("<\(Self.escape(entry.name)) xmlns=\"\(Self.escape(entry.namespace))\"/>")
        }
        for status in order {
            xml += "<D:propstat><D:prop>" + (grouped[status] ?? []).joined() + "</D:prop><D:status>HTTP/1.1 \(status)</D:status></D:propstat>"
        }
        xml += "</D:response>"
    }

    /// `{namespace}name` back into its parts.
    static func split(_ key: String) -> (namespace: String, name: String) {
        guard key.hasPrefix("{"), let close = key.firstIndex(of: "}") else { return ("", key) }
        return (String(key[key.index(after: key.startIndex)..<close]), String(key[key.index(after: close)...]))
    }

    private struct Property {
        var namespace: String
        var prefix: String
        var name: String
        var xml: String
    }

    private static func liveProperties(_ resource: DAVResource, version: ItemVersion?) -> [Property] {
        func dav(_ name: String, _ value: String?) -> Property {
            Property(namespace: "DAV:", prefix: "D", name: name, xml: value.map { "<D:\(name)>\($0)</D:\(name)>" } ?? "<D:\(name)/>")
        }
        func ours(_ name: String, _ value: String) -> Property {
            Property(namespace: pdfgate, prefix: "P", name: name, xml: "<P:\(name)>\(escape(value))</P:\(name)>")
        }
        var properties: [Property] = []
        switch resource {
        case .root:
            properties = [dav("resourcetype", "<D:collection/>"), dav("displayname", "")]
        case .folder(let folder):
            properties = [
                dav("resourcetype", "<D:collection/>"), dav("displayname", escape(folder.name)),
                dav("creationdate", iso(folder.createdAt)), dav("getlastmodified", httpDate(folder.updatedAt)),
                ours("id", folder.id.lowercased),
            ]
        case .document(let document):
            properties = [
                dav("resourcetype", nil), dav("displayname", escape(DAVNames.fileName(document))),
                dav("getcontentlength", String(document.size)), dav("getcontenttype", "application/pdf"),
                dav("getetag", escape("\"\(document.sha256)\"")), dav("creationdate", iso(document.createdAt)),
                dav("getlastmodified", httpDate(document.updatedAt)), ours("id", document.id.lowercased),
                ours("page-count", String(document.info.pageCount)),
            ]
            if let title = document.info.title { properties.append(ours("title", title)) }
        case .file(let file):
            properties = [
                dav("resourcetype", nil), dav("displayname", escape(file.name)), dav("getcontentlength", String(file.size)),
                dav("getcontenttype", "application/octet-stream"), dav("getetag", escape(file.etag)),
                dav("getlastmodified", httpDate(file.modified)),
            ]
        }
        if let version { properties.append(ours("version", version.description)) }
        properties.append(dav("supportedlock", Self.supportedLocks))
        return properties
    }

    private static let supportedLocks =
        "<D:lockentry><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>"
        + "<D:lockentry><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>"

    /// `text` with `&`, `<`, `>` and `"` as entities. Byte by byte (all four are ASCII, so a
    /// byte never splits a character), and untouched when none is there, as in most names.
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 }) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case 0x26: bytes += Array("&amp;".utf8)
            case 0x3C: bytes += Array("&lt;".utf8)
            case 0x3E: bytes += Array("&gt;".utf8)
            case 0x22: bytes += Array("&quot;".utf8)
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// RFC 3339, as `creationdate` takes it; by hand like `httpDate`.
    static func iso(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// RFC 9110's IMF-fixdate, as `getlastmodified` and `Last-Modified` take it. By hand: a
    /// depth-1 PROPFIND of a large folder writes one per document.
    static func httpDate(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
        let day = weekdays[Int(parts.tm_wday)]
        let month = months[Int(parts.tm_mon)]
        return "\(day), \(two(parts.tm_mday)) \(month) \(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
