import Foundation
import GatewayHTTPServing
import HTTPTypes
import Hummingbird
import NIOCore

extension DAVController {
    /// Refuses a write that would change a locked resource (or the membership of a locked
    /// folder) unless the request submits the lock's token in its `If` header, and any write
    /// whose `If` header does not hold (412).
    ///
    /// - Parameters:
    ///   - targets: what the write changes; with `deep`, everything under them too (a DELETE or
    ///     MOVE of a folder).
    ///   - members: folders that gain or lose a member (the parent of what is created or removed).
    func checkWritable(_ request: Request, owner: String, path: DAVPath, targets: [DAVPath], deep: Bool, members: [DAVPath]) async throws {
        let current = try locks.current(owner: owner)
        var submitted: Set<String> = []
        if let header = request.headers[Self.ifHeader] {
            let parsed = try DAVIfHeader(header)
            guard try await holds(parsed, path: path, owner: owner, locks: current) else {
                throw APIError(
                    .preconditionFailed,
                    "dav_if_failed",
                    "the If header's conditions do not hold for \(path); read its lock token and ETag again"
                )
            }
            submitted = parsed.submittedTokens
        }
        let applicable = current.filter { lock in
            targets.contains { lock.covers($0.segments) || (deep && lock.path.count > $0.segments.count && lock.path.starts(with: $0.segments)) }
                || members.contains { lock.covers($0.segments) }
        }
        let exclusiveHeld = applicable.filter(\.exclusive).contains { !submitted.contains($0.token) }
        let shared = applicable.filter { !$0.exclusive }
        if exclusiveHeld || (!shared.isEmpty && !shared.contains { submitted.contains($0.token) }) {
            throw APIError(Self.locked, "dav_locked", "\(path) is locked; send the lock's token in an If header, or wait for it to be unlocked")
        }
    }

    /// Whether any list of the header holds: each state token a lock on its resource, each
    /// entity tag its resource's current one.
    private func holds(_ header: DAVIfHeader, path: DAVPath, owner: String, locks: [DAVLock]) async throws -> Bool {
        for list in header.lists {
            let resourcePath = list.resource ?? path
            var etag: String??
            var all = true
            for condition in list.conditions {
                let matched: Bool
                switch condition {
                case .token(let token, let negated):
                    matched = locks.contains { $0.token == token && $0.covers(resourcePath.segments) } != negated
                case .etag(let tag, let negated):
                    if etag == nil { etag = try await currentETag(resourcePath, owner: owner) }
                    matched = ((etag ?? nil) == tag) != negated
                }
                if !matched {
                    all = false
                    break
                }
            }
            if all { return true }
        }
        return false
    }

    private func currentETag(_ path: DAVPath, owner: String) async throws -> String? {
        switch try await resolve(path, owner: owner) {
        case .document(let document)?: "\"\(document.sha256)\""
        case .file(let file)?: file.etag
        default: nil
        }
    }

    /// Takes a new lock (with a `lockinfo` body) or refreshes one (without, naming it in `If`).
    func lock(_ path: DAVPath, owner: String, _ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let seconds = DAVLockStore.seconds(request.headers[HTTPField.Name("Timeout")!])
        let expires = Date().addingTimeInterval(Double(seconds))
        guard let body = try await Self.xmlBody(request, context) else {
            let tokens = try request.headers[Self.ifHeader].map { header throws(APIError) in try DAVIfHeader(header).submittedTokens } ?? []
            let refreshed = try locks.withLocks(owner: owner) { locks -> DAVLock? in
                guard let index = locks.firstIndex(where: { tokens.contains($0.token) && $0.covers(path.segments) }) else { return nil }
                locks[index].seconds = seconds
                locks[index].expires = expires
                return locks[index]
            }
            guard let refreshed else {
                throw APIError(.preconditionFailed, "dav_lock_token_unknown", "no lock named in the If header covers \(path); take a new lock")
            }
            return Self.lockAnswer(refreshed, status: .ok)
        }
        guard body.name == "lockinfo", body.namespace == DAVElement.dav else {
            throw APIError(.badRequest, "invalid_xml", "a LOCK body is a DAV:lockinfo element")
        }
        let exclusive = body.child("lockscope")?.child("exclusive") != nil
        let ownerXML = body.child("owner").map { owner in
            owner.children.isEmpty ? DAVMultistatus.escape(owner.text) : owner.children.map(\.xml).joined()
        }
        let depth = request.headers[HTTPField.Name("Depth")!]?.trimmingCharacters(in: .whitespaces).lowercased() ?? "infinity"
        guard depth == "0" || depth == "infinity" else {
            throw APIError(.badRequest, "invalid_depth", "a LOCK takes Depth: 0 or infinity")
        }
        let existing = try await resolve(path, owner: owner)
        if existing == nil { _ = try await existingParentFolderID(of: path, owner: owner) }
        try await checkWritable(request, owner: owner, path: path, targets: [], deep: false, members: existing == nil ? [path.parent] : [])
        let lock = DAVLock(
            token: "opaquelocktoken:" + UUID().lowercased,
            path: path.segments,
            exclusive: exclusive,
            deep: depth == "infinity",
            ownerXML: ownerXML,
            seconds: seconds,
            expires: expires
        )
        try locks.withLocks(owner: owner) { locks in
            let conflict = locks.contains { held in
                (held.covers(path.segments) || (lock.deep && held.path.starts(with: path.segments))) && (held.exclusive || lock.exclusive)
            }
            guard !conflict else {
                throw APIError(Self.locked, "dav_locked", "\(path) is already locked; wait for it to be unlocked or ask for a shared lock")
            }
            locks.append(lock)
        }
        // Locking an unmapped name makes an empty resource (RFC 4918 §7.3) where one can be
        // empty; a `.pdf` name stays unmapped until its PDF is written.
        if existing == nil, let name = path.name, DAVNames.documentName(name) == nil {
            let folderID = try await existingParentFolderID(of: path, owner: owner)
            let empty = AsyncThrowingStream<ByteBuffer, any Error> { $0.finish() }
            _ = try await files.write(empty, owner: owner, folderID: folderID, name: name, maxBytes: maxUploadBytes)
        }
        return Self.lockAnswer(lock, status: existing == nil ? .created : .ok)
    }

    func unlock(_ path: DAVPath, owner: String, _ request: Request) throws -> Response {
        guard var token = request.headers[HTTPField.Name("Lock-Token")!]?.trimmingCharacters(in: .whitespaces), !token.isEmpty else {
            throw APIError(.badRequest, "dav_lock_token_required", "UNLOCK needs the Lock-Token header the LOCK answered with")
        }
        if token.hasPrefix("<") && token.hasSuffix(">") { token = String(token.dropFirst().dropLast()) }
        let removed = try locks.withLocks(owner: owner) { locks -> Bool in
            guard let index = locks.firstIndex(where: { $0.token == token && $0.covers(path.segments) }) else { return false }
            locks.remove(at: index)
            return true
        }
        guard removed else {
            throw APIError(.conflict, "dav_lock_token_unknown", "no lock with that token covers \(path); it may have expired")
        }
        return Response(status: .noContent)
    }

    /// Forgets the locks on `path` and under it: what was locked is gone or elsewhere now.
    func dropLocks(under path: DAVPath, owner: String) throws {
        // Most deletes and moves touch nothing locked: a read, no rewrite.
        guard try locks.current(owner: owner).contains(where: { $0.path.starts(with: path.segments) }) else { return }
        try locks.withLocks(owner: owner) { locks in locks.removeAll { $0.path.starts(with: path.segments) } }
    }

    static let ifHeader = HTTPField.Name("If")!
    static let locked = HTTPResponse.Status(code: 423, reasonPhrase: "Locked")

    private static func lockAnswer(_ lock: DAVLock, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/xml; charset=utf-8"
        headers[HTTPField.Name("Lock-Token")!] = "<\(lock.token)>"
        let body =
            #"<?xml version="1.0" encoding="utf-8"?>"# + "\n"
            + #"<D:prop xmlns:D="DAV:"><D:lockdiscovery>"# + lock.activeLockXML + "</D:lockdiscovery></D:prop>"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
