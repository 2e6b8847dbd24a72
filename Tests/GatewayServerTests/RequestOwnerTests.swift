import Logging
import Testing

@testable import GatewayHTTPServing
@testable import GatewayServer

@Suite("A request's owner in its log lines")
struct RequestOwnerTests {
    @Test("the provider gives the owner inside a request's scope, and nothing outside it")
    func ownerOnlyWithinTheRequest() async {
        #expect(RequestOwner.metadataProvider.get().isEmpty)
        let inside = await RequestOwner.$current.withValue("alice") {
            // A child task (a handler's `async let`, a task group) logs for the same owner.
            await Task { RequestOwner.metadataProvider.get() }.value
        }
        #expect(inside["owner"] == .string("alice"))
        #expect(RequestOwner.metadataProvider.get()["owner"] == nil)
    }
}
