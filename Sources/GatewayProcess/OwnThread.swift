import Foundation

/// Runs `body`, which blocks, on a new thread of its own named `name`, and awaits it without
/// holding a cooperative thread. For blocking conversations with a child that cannot be made
/// asynchronous cheaply (Chromium's DevTools pipe, driven by hundreds of lines of synchronous
/// protocol code): the thread belongs to that one call of that one worker, so it never waits
/// behind, nor holds up, anybody else's work the way a shared pool's thread would. A thread
/// costs tens of microseconds to start, against the hundreds of milliseconds of a print.
package func onThreadOfItsOwn<T: Sendable>(named name: String, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.name = name
        thread.start()
    }
}
