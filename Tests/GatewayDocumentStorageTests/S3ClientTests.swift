import Crypto
import Foundation
import GatewayDocumentStorage
import GatewayLibraryModel
import GatewayTestSupport
import Testing

/// Our S3 client against a real Ceph RADOS Gateway, each result read back with boto3.
@Suite(.serialized) struct S3ClientTests {
    let server: TestS3.Server
    let bucket: String
    let client: S3Client

    init() throws {
        server = try TestS3.shared()
        bucket = try server.freshBucket()
        client = S3Client(location: try S3Location.parse("s3://\(bucket)/lib", environment: server.environment))
    }

    @Test func singleAndMultipartUploadsLandWhole() async throws {
        let directory = TemporaryDirectory("s3-client")
        for size in [200_000, 20 << 20 + 12345] {
            let path = directory.path + "/object-\(size)"
            let bytes = SeededRandom.bytes(count: size, seed: UInt64(size))
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            let sha = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
            let key = client.location.key("objects/\(size).pdf")
            try await client.upload(path, key: key, size: Int64(size), sha256: sha, contentType: "application/pdf")

            // What boto3 sees: the bytes, the content type and the SHA-256 beside them.
            let head = try JSONSerialization.jsonObject(with: Data(try server.peek(["head", bucket, key]).utf8)) as! [String: Any]
            #expect(head["content_type"] as? String == "application/pdf")
            #expect((head["metadata"] as? [String: String])?["sha256"] == sha)
            let copy = directory.path + "/boto3-\(size)"
            _ = try server.peek(["get", bucket, key, copy])
            #expect(FileManager.default.contents(atPath: copy) == Data(bytes))

            // And ours, whole and in part.
            let ours = directory.path + "/ours-\(size)"
            let info = try await client.download(key, to: ours)
            #expect(info.size == Int64(size))
            #expect(FileManager.default.contents(atPath: ours) == Data(bytes))
            let part = directory.path + "/part-\(size)"
            try await client.download(key, to: part, range: 100...199)
            #expect(FileManager.default.contents(atPath: part) == Data(bytes[100...199]))
        }
        let listed = try await client.listAll(prefix: client.location.key("objects/"))
        #expect(listed.map(\.size).sorted() == [200_000, 20 << 20 + 12345])
    }

    @Test func theServerRefusesBytesThatDoNotMatchTheirHash() async throws {
        let directory = TemporaryDirectory("s3-client")
        let path = directory.path + "/object"
        _ = FileManager.default.createFile(atPath: path, contents: Data("not what the hash says".utf8))
        let wrong = String(repeating: "ab", count: 32)
        await #expect(throws: S3Error.self) {
            try await client.upload(path, key: client.location.key("bad.pdf"), size: 22, sha256: wrong, contentType: "application/pdf")
        }
        #expect(try await client.head(client.location.key("bad.pdf")) == nil)
    }

    @Test func aPresignedURLFetchesWithoutKeysAndAnAlteredOneDoesNot() async throws {
        let directory = TemporaryDirectory("s3-client")
        let path = directory.path + "/object"
        let bytes = Array("%PDF-1.4 presigned".utf8)
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let sha = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        let key = client.location.key("presigned/ä b.pdf")
        try await client.upload(path, key: key, size: Int64(bytes.count), sha256: sha, contentType: "application/pdf")
        let url = client.presignedURL(key, expires: .seconds(60), contentDisposition: "inline; filename=\"x.pdf\"")
        let fetched = try await run("curl", ["-sS", "-D", "-", "-o", directory.path + "/fetched", url.absoluteString])
        #expect(fetched.stdout.contains(" 200"))
        #expect(fetched.stdout.lowercased().contains("content-disposition: inline; filename=\"x.pdf\""))
        #expect(FileManager.default.contents(atPath: directory.path + "/fetched") == Data(bytes))
        let altered = url.absoluteString.replacingOccurrences(of: "X-Amz-Expires=60", with: "X-Amz-Expires=600")
        let refused = try await run("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", altered])
        #expect(refused.stdout == "403")
    }

    @Test func aWrongKeyAndAMissingBucketSayWhatToFix() async throws {
        var wrongKey = server.environment
        wrongKey["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
        let denied = await #expect(throws: S3Error.self) {
            try await S3Client(location: try S3Location.parse("s3://\(bucket)", environment: wrongKey)).checkAccess()
        }
        #expect(denied?.kind == .denied)
        #expect(denied?.message.contains("AWS_SECRET_ACCESS_KEY") == true)
        let missing = await #expect(throws: S3Error.self) {
            try await S3Client(location: try S3Location.parse("s3://no-such-bucket-here", environment: server.environment)).checkAccess()
        }
        #expect(missing?.kind == .noSuchBucket)
        #expect(missing?.message.contains("--documents") == true)
    }
}
