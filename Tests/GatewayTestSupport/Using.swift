/// Something a test starts and must stop before the test ends: a server process, a cluster.
public protocol StoppedAfterUse: Sendable {
    func stop() async
}

/// Hands `thing` to `body` and stops it when `body` ends, returned or thrown: structured cleanup.
/// A deferred `Task { await thing.stop() }` instead runs whenever the scheduler gets to it, after
/// the test (its servers still running into the next one) or never, if the process exits first.
public func using<Thing: StoppedAfterUse, Result>(_ thing: Thing, _ body: (Thing) async throws -> Result) async throws -> Result {
    let result: Result
    do {
        result = try await body(thing)
    } catch {
        await thing.stop()
        throw error
    }
    await thing.stop()
    return result
}
