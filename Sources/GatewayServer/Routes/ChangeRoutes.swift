import Foundation
import GatewayHTTPServing
import GatewayLibraryModel
import GatewayWire
import Hummingbird

/// `GET /v1/changes?since=<token>`: the library's change journal, for clients that keep a copy
/// (the phone app's backup, sync tools). Without `since`, the whole library; with it, every
/// document and folder created, changed, moved or deleted since, each once, oldest first.
struct ChangeController: Sendable {
    let library: any DocumentLibrary
    let links: APILinks

    /// Larger than a listing's: a client catching up wants few round trips.
    static let defaultLimit = 500

    func addRoutes(to group: RouterGroup<GatewayRequestContext>) {
        group.on("/v1/changes", method: .get) { request, context in try await self.changes(request, context) }
    }

    func changes(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let limit = try request.pageLimit(default: Self.defaultLimit, max: 1000)
        let since = request.query("since").flatMap { $0.isEmpty ? nil : $0 }
        let page = try await library.changes(owner: try context.requireOwner(), since: since, limit: limit)
        let base = links.baseURL(for: request)
        let next = page.more ? "\(base)/v1/changes?since=\(page.token)&limit=\(limit)" : nil
        var out = JSONOutput(capacity: 1200 * page.changes.count + 256)
        try ChangePageJSON.write(changes: page.changes, token: page.token, more: page.more, next: next, to: &out)
        return jsonResponse(bytes: out.bytes)
    }
}
