import GatewayFonts
import GatewayHTTPServing
import Hummingbird

/// `GET /v1/fonts`: the families the local converters draw with (the operator's folder
/// included), the scripts each covers, and which families documents ask for are drawn with
/// another — what a user checks before sending a document in Thai or set in Calibri.
struct FontController: Sendable {
    let catalog: FontCatalog

    func addRoutes(to group: RouterGroup<GatewayRequestContext>) {
        group.on("/v1/fonts", method: .get) { _, _ in try await self.fonts() }
    }

    func fonts() async throws -> Response {
        let list: FontList
        do { list = try await catalog.list() } catch { throw APIError.unavailable(error.code, error.message) }
        return try jsonResponse(list)
    }
}
