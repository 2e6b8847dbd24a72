import Foundation
import GatewayEngine
import GatewaySettings
import Synchronization

/// Gotenberg's queue on our limits: where `/v1` answers an owner over its limits (unfinished
/// jobs, creations a minute) with 429 at once, a Gotenberg request waits for room, as requests
/// wait in Gotenberg's queue, until its time (`--api-timeout`, else Gotenberg's 30 s) is up,
/// then answers Gotenberg's 503. A module's `--…-max-queue-size` bounds how many wait: past it,
/// 429, as Gotenberg answers. An operator who set the owners' limits themselves meant them as
/// answers: then they stay 429, as on `/v1`.
package final class GotenbergAdmission: Sendable {
    /// The request being answered's deadline and module (`GotenbergController.receiving`).
    @TaskLocal static var current: (deadline: ContinuousClock.Instant, module: GotenbergModule)?

    let settings: GotenbergRouteSettings
    private let waiting = Mutex<[GotenbergModule: Int]>([:])

    package init(settings: GotenbergRouteSettings) {
        self.settings = settings
    }

    /// Gotenberg's default `--api-timeout`.
    static let defaultTimeout = Duration.seconds(30)

    /// Runs `attempt` (an admission or a job's creation, which change nothing when they refuse)
    /// until it passes the owner's limits or the request's time is up.
    func admitting<T>(_ attempt: () async throws -> T) async throws -> T {
        guard let (deadline, module) = Self.current, settings.waitsForRoom else { return try await attempt() }
        var delay = Duration.milliseconds(20)
        var counted = false
        defer { if counted { waiting.withLock { $0[module, default: 1] -= 1 } } }
        while true {
            do {
                return try await attempt()
            } catch let refusal as IntakeError where refusal.isOwnersLimit {
                if !counted {
                    let size = settings.queueSizes[module] ?? 0
                    let admitted = waiting.withLock { waiting in
                        guard size == 0 || waiting[module, default: 0] < size else { return false }
                        waiting[module, default: 0] += 1
                        return true
                    }
                    guard admitted else { throw GotenbergError(.tooManyRequests) }
                    counted = true
                }
                guard ContinuousClock.now + delay < deadline else { throw GotenbergError.timedOut }
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .milliseconds(250))
            }
        }
    }

    /// Requests of `module` waiting for room now.
    func waitingCount(_ module: GotenbergModule) -> Int { waiting.withLock { $0[module, default: 0] } }
}

extension IntakeError {
    /// Over the owner's unfinished jobs or creations a minute: room comes with time.
    var isOwnersLimit: Bool {
        switch kind {
        case .tooManyJobs, .rateLimited: true
        default: false
        }
    }
}
