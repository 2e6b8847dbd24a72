import Foundation
import GatewayHTTPServing

/// A WebDAV write lock (RFC 4918 §6–7): what Finder and Windows take before they write.
struct DAVLock: Codable, Sendable, Equatable {
    var token: String
    var path: [String]
    var exclusive: Bool
    /// `Depth: infinity`: the lock covers everything under `path` too.
    var deep: Bool
    /// The client's `DAV:owner` element, given back as it came.
    var ownerXML: String?
    var seconds: Int
    var expires: Date

    /// Whether the lock covers `segments` (the resource itself, or one under a deep lock).
    func covers(_ segments: [String]) -> Bool {
        segments == path || (deep && segments.count > path.count && segments.starts(with: path))
    }

    var activeLockXML: String {
        "<D:activelock><D:locktype><D:write/></D:locktype><D:lockscope>\(exclusive ? "<D:exclusive/>" : "<D:shared/>")</D:lockscope>"
            + "<D:depth>\(deep ? "infinity" : "0")</D:depth>\(ownerXML.map { "<D:owner>\($0)</D:owner>" } ?? "")"
            + "<D:timeout>Second-\(max(0, Int(expires.timeIntervalSinceNow.rounded(.up))))</D:timeout>"
            + "<D:locktoken><D:href>\(token)</D:href></D:locktoken>"
            + "<D:lockroot><D:href>\(DAVMultistatus.escape(DAVPath(segments: path).href(collection: false)))</D:href></D:lockroot></D:activelock>"
    }
}

/// The caller's locks, in one JSON file per owner in the store's own directory, read and
/// rewritten under `flock`: every node sharing the store sees the same locks, and two requests
/// cannot both take an exclusive lock.
struct DAVLockStore: Sendable {
    let root: String

    /// The longest a lock lasts without a refresh, whatever the client asks (`Timeout: Infinite`
    /// included): a client that died does not hold a file forever.
    static let maxSeconds = 24 * 3600
    static let defaultSeconds = 3600
    static let maxLocksPerOwner = 10_000

    init(metaDirectory: String) {
        root = metaDirectory + "/dav-locks"
    }

    /// The owner's live locks, read under a shared lock; none when the owner never locked
    /// anything. What every listing and write asks, so it creates nothing and takes no turn.
    func current(owner: String) throws -> [DAVLock] {
        let descriptor = open(root + "/" + owner + ".json", O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            guard errno == ENOENT else { throw Self.failure("cannot open the lock file", errno) }
            return []
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_SH) != 0 {
            guard errno == EINTR else { throw Self.failure("cannot read the lock file", errno) }
        }
        let data = try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).readToEnd() ?? Data()
        let now = Date()
        return ((try? JSONDecoder().decode([DAVLock].self, from: data)) ?? []).filter { $0.expires > now }
    }

    /// Runs `body` on the owner's live locks (expired ones dropped) and keeps what it leaves.
    func withLocks<T>(owner: String, _ body: (inout [DAVLock]) throws -> T) throws -> T {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let path = root + "/" + owner + ".json"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure("cannot open the lock file", errno) }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw Self.failure("cannot take the lock file", errno) }
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        let data = try handle.readToEnd() ?? Data()
        let now = Date()
        let stored = (try? JSONDecoder().decode([DAVLock].self, from: data)) ?? []
        var locks = stored.filter { $0.expires > now }
        let result = try body(&locks)
        if locks != stored {
            guard locks.count <= Self.maxLocksPerOwner else {
                throw APIError(.insufficientStorage, "dav_too_many_locks", "more than \(Self.maxLocksPerOwner) locks are held; unlock some first")
            }
            let encoded = try JSONEncoder().encode(locks)
            try handle.seek(toOffset: 0)
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: encoded)
            fsync(descriptor)
        }
        return result
    }

    /// A `Timeout` header's ask, within `maxSeconds`.
    static func seconds(_ header: String?) -> Int {
        guard let header else { return defaultSeconds }
        for choice in header.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if choice.lowercased() == "infinite" { return maxSeconds }
            if choice.lowercased().hasPrefix("second-"), let value = Int(choice.dropFirst(7)), value > 0 { return min(value, maxSeconds) }
        }
        return defaultSeconds
    }

    private static func failure(_ what: String, _ code: Int32) -> APIError {
        APIError(.internalServerError, "storage_error", "\(what): \(String(cString: strerror(code)))")
    }
}

/// An `If` header (RFC 4918 §10.4): lists of conditions, each list optionally for another
/// resource; the header holds when any list does, a list when all its conditions do.
struct DAVIfHeader: Sendable {
    enum Condition: Sendable {
        case token(String, negated: Bool)
        case etag(String, negated: Bool)
    }

    struct List: Sendable {
        /// The resource the list is about (`<url> (...)`); nil for the request's own.
        var resource: DAVPath?
        var conditions: [Condition]
    }

    var lists: [List]

    /// Every lock token the header names (not under `Not`): the tokens the client submits.
    var submittedTokens: Set<String> {
        Set(
            lists.flatMap(\.conditions).compactMap { condition in
                if case .token(let token, false) = condition { return token }
                return nil
            }
        )
    }

    init(_ header: String) throws(APIError) {
        var lists: [List] = []
        var resource: DAVPath?
        var index = header.startIndex
        func fail() -> APIError {
            APIError(.badRequest, "invalid_if_header", "the If header is not one RFC 4918 §10.4 allows: \(header.prefix(200))")
        }
        func read(until end: Character) throws(APIError) -> String {
            let start = header.index(after: index)
            guard let close = header[start...].firstIndex(of: end) else { throw fail() }
            index = header.index(after: close)
            return String(header[start..<close])
        }
        while index < header.endIndex {
            let character = header[index]
            if character.isWhitespace {
                index = header.index(after: index)
            } else if character == "<" {
                let url = try read(until: ">")
                var target = Substring(url)
                if let scheme = target.range(of: "://") {
                    let rest = target[scheme.upperBound...]
                    target = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
                }
                resource = try? DAVPath(target: String(target))
            } else if character == "(" {
                index = header.index(after: index)
                var conditions: [Condition] = []
                var negated = false
                while index < header.endIndex, header[index] != ")" {
                    let next = header[index]
                    if next.isWhitespace {
                        index = header.index(after: index)
                    } else if header[index...].lowercased().hasPrefix("not") {
                        negated = true
                        index = header.index(index, offsetBy: 3)
                    } else if next == "<" {
                        conditions.append(.token(try read(until: ">"), negated: negated))
                        negated = false
                    } else if next == "[" {
                        conditions.append(.etag(try read(until: "]"), negated: negated))
                        negated = false
                    } else {
                        throw fail()
                    }
                }
                guard index < header.endIndex, !conditions.isEmpty else { throw fail() }
                index = header.index(after: index)
                lists.append(List(resource: resource, conditions: conditions))
            } else {
                throw fail()
            }
        }
        guard !lists.isEmpty else { throw fail() }
        self.lists = lists
    }
}
