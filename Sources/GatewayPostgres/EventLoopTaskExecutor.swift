import NIOCore
import Synchronization

/// Runs a task's jobs on one NIO event loop. PostgresNIO's prepared statements are only
/// reachable through `async` calls; a task that awaits one while it holds a pooled connection
/// must not need a thread of the cooperative pool to resume, since those threads may all be
/// blocked in synchronous store calls waiting for a connection. With this executor preferred,
/// the task starts and resumes on the connection's own event loop.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    private init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// One executor per event loop, for the life of the process (the loops are the shared ones).
    private static let executors = Mutex<[ObjectIdentifier: EventLoopTaskExecutor]>([:])

    static func on(_ eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        executors.withLock { executors in
            if let executor = executors[ObjectIdentifier(eventLoop)] { return executor }
            let executor = EventLoopTaskExecutor(eventLoop)
            executors[ObjectIdentifier(eventLoop)] = executor
            return executor
        }
    }
}
