import Foundation
import GatewayLibraryModel
import PostgresNIO
import Synchronization

/// The library's mutation lock for every node sharing one PostgreSQL database: a session-level
/// advisory lock, taken on a connection of its own.
///
/// PostgreSQL releases a session's advisory locks when the session ends, so a node that dies
/// mid-mutation (SIGKILL, power) frees the lock as soon as its connection drops; the next
/// holder finds that mutation's rows unfinished and completes or undoes it.
package struct PostgresAdvisoryLock: StoreWideLock {
    let database: PostgresDatabase
    /// Which lock: one per library, apart from the migration and owner locks.
    let key: Int64

    package init(database: PostgresDatabase, key: Int64 = 0x7064_6667_6C69_62) {  // "pdfglib"
        self.database = database
        self.key = key
    }

    package func makeHolder() throws -> Holder { Holder(database: database, key: key) }

    /// A dedicated connection, opened on first use and again if it broke: a lock taken through
    /// a pooled connection would be another caller's after the connection went back.
    /// `LibraryLock` lets one task of the process at a time take and give back the lock, so
    /// the session is never used by two at once.
    package final class Holder: StoreWideLockHolder {
        let database: PostgresDatabase
        let key: Int64
        private let session = Mutex<PostgresSession?>(nil)

        init(database: PostgresDatabase, key: Int64) {
            self.database = database
            self.key = key
        }

        deinit {
            // Not awaited: a deinit cannot wait, and closing a connection ends on its own.
            if let session = session.withLock({ $0 }) { Task { await session.close() } }
        }

        package func lock() async throws {
            // Another node may hold the lock through a long fsck --repair: the wait is taken
            // in 5-second turns (the server's lock_timeout), each answered quickly, so a
            // connection that died silently is noticed and replaced within one turn.
            let deadline = Date().addingTimeInterval(600)
            var reconnected = false
            while true {
                var current = session.withLock { $0 }
                do {
                    if current == nil || current?.isClosed == true {
                        await current?.close()
                        let opened = try await database.dedicatedSession()
                        session.withLock { $0 = opened }
                        current = opened
                        try await database.answered { try await opened.execute("SET lock_timeout = '5s'") }
                    }
                    guard let current else { continue }
                    let key = key
                    try await database.answered { try await current.query("SELECT pg_advisory_lock(\(key))") }
                    return
                } catch let error as PostgresStoreError where error.sqlState == "55P03" && Date() < deadline {
                    continue  // still held elsewhere: wait another turn
                } catch {
                    await current?.close()
                    session.withLock { $0 = nil }
                    // One fresh connection: the old one may have died with a database restart.
                    if !reconnected && PostgresDatabase.breaksConnection(error) {
                        reconnected = true
                        continue
                    }
                    throw PostgresDatabase.translate(error, location: database.location)
                }
            }
        }

        package func unlock() async {
            guard let current = session.withLock({ $0 }) else { return }
            // A session that broke held nothing any more: PostgreSQL released it. Bounded: after a
            // server restart the statement may never be answered on the old connection, and
            // every mutation of this process would wait behind it.
            let key = key
            if (try? await database.answered({ try await current.query("SELECT pg_advisory_unlock(\(key))") })) == nil {
                await current.close()
                session.withLock { $0 = nil }
            }
        }
    }
}
