import Foundation
import GatewayDocumentStorage
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The test run's S3 server: a one-node Ceph RADOS Gateway this process starts on first use
/// (`scripts/s3-scratch.sh`: a monitor, a memstore OSD and radosgw on loopback, in a temporary
/// directory) and stops when it exits. Every test gets a bucket of its own.
public enum TestS3 {
    /// A running S3 server and the keys of its one user.
    public struct Server: Sendable {
        public let endpoint: String
        public let accessKey: String
        public let secretKey: String
        let directory: String

        /// The AWS variables every S3 tool (ours, boto3, rclone) reads, for `bucket`.
        public var environment: [String: String] {
            ["AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": accessKey, "AWS_SECRET_ACCESS_KEY": secretKey, "AWS_REGION": "us-east-1"]
        }

        /// Creates a new, empty bucket; its name.
        public func freshBucket() throws -> String {
            let name = "t-" + UUID().uuidString.lowercased().prefix(18)
            _ = try TestS3.scratch("make-bucket '\(directory)' \(name)")
            return String(name)
        }

        /// Stops the S3 gateway (the cluster under it stays), as in an outage.
        public func stopGateway() throws { _ = try TestS3.scratch("stop-gateway '\(directory)'") }

        /// Starts it again on the same port and waits until it answers.
        public func startGateway() throws { _ = try TestS3.scratch("start-gateway '\(directory)'") }

        public func stop() { _ = try? TestS3.scratch("stop '\(directory)'") }

        /// Runs `scripts/s3_peek.py` (boto3) against this server: what another S3 client sees.
        public func peek(_ arguments: [String]) throws -> String {
            let script = URL(fileURLWithPath: Fixtures.root).deletingLastPathComponent().appendingPathComponent("scripts/s3_peek.py").path
            let result = try runBlocking("/usr/bin/python3", [script] + arguments, environment: environment, stdin: nil)
            guard result.status == 0 else { throw TestS3Error(message: "s3_peek.py \(arguments) failed: \(result.stderr)") }
            return result.stdout
        }
    }

    private static let started = Mutex<Server?>(nil)

    /// The shared server of this test process, started on first use.
    public static func shared() throws -> Server {
        try started.withLock { started in
            if let started { return started }
            let server = try start()
            started = server
            atexit { TestS3.stopShared() }
            return server
        }
    }

    /// A server of its own, for a test that stops its gateway; not shared with other tests.
    /// A start can lose a port it chose to a server of a test running beside it; it is tried
    /// again then, on other ports.
    public static func start() throws -> Server {
        var failure: (any Error)?
        for _ in 0..<3 {
            do {
                let lines = try scratch("start").split(separator: "\n").map(String.init)
                guard lines.count == 4 else { throw TestS3Error(message: "s3-scratch.sh start printed \(lines)") }
                return Server(endpoint: lines[1], accessKey: lines[2], secretKey: lines[3], directory: lines[0])
            } catch {
                failure = error
            }
        }
        throw failure!
    }

    /// `PDFGATE_TEST_KEEP_S3=1` leaves it running, its logs in its directory, to look into a failure.
    static func stopShared() {
        guard ProcessInfo.processInfo.environment["PDFGATE_TEST_KEEP_S3"] == nil else { return }
        started.withLock { $0 }?.stop()
    }

    fileprivate static func scratch(_ arguments: String) throws -> String { try runScratchScript("s3-scratch.sh", arguments) }
}

public struct TestS3Error: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

extension TestS3 {
    /// A library's objects in a fresh bucket of the shared server, cached under `root`.
    public static func freshBucketDocuments(root: String, grace: Duration = .seconds(900)) throws -> BucketDocuments {
        let server = try shared()
        let location = try S3Location.parse("s3://\(try server.freshBucket())/library", environment: server.environment)
        return try BucketDocuments(
            client: S3Client(location: location),
            cacheDirectory: root + "/.pdfgate/cache/objects",
            cacheBytes: 1 << 30,
            grace: grace
        )
    }
}
