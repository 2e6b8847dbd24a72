import Foundation
import GatewayTestSupport
import Testing

/// `pdfgate migrate`: a folder store's documents into a Ceph bucket and back, checked with boto3.
@Suite("pdfgate migrate")
struct MigrateCLITests {
    @Test("a folder store moves into a bucket and back: ids and names kept, bytes checked, a second run copies nothing")
    func intoABucketAndBack() async throws {
        let s3 = try TestS3.shared()
        let bucket = try s3.freshBucket()
        let cli = CLI(extra: s3.environment)
        let added = try #require(
            try await cli.json(
                "add",
                Fixtures.pdf("one-page.pdf"),
                Fixtures.pdf("many-pages.pdf"),
                Fixtures.pdf("encrypted.pdf"),
                "--folder",
                "Bank/2026"
            )
                as? [[String: Any]]
        )
        #expect(added.count == 3)
        let uri = "s3://\(bucket)/library"

        let first = try #require(try await cli.json("migrate", "--to", uri) as? [String: Any])
        #expect(first["copied"] as? Int == 3 && (first["failures"] as? [Any])?.isEmpty == true, "\(first)")
        let listed = try s3.peek(["list", bucket, "library/documents/"])
        for document in added {
            let key = "library/documents/\(document["id"] as! String)/\(document["sha256"] as! String).pdf"
            #expect(listed.contains(key), "\(key) in \(listed)")
        }
        let again = try #require(try await cli.json("migrate", "--to", uri) as? [String: Any])
        #expect(again["copied"] as? Int == 0 && again["already_there"] as? Int == 3, "\(again)")

        // The store on its bucket: the same documents, the tree's files no longer needed.
        try FileManager.default.removeItem(atPath: cli.store.path + "/data/default")
        let onBucket = try #require((try await cli.json("ls", "--recursive", "--documents", uri) as? [String: Any])?["documents"] as? [[String: Any]])
        #expect(Set(onBucket.compactMap { $0["id"] as? String }) == Set(added.compactMap { $0["id"] as? String }))
        let fsck = try await cli("fsck", "--documents", uri)
        #expect(fsck.status == 0, "\(fsck.stdout) \(fsck.stderr)")

        // And back into the folder tree, byte for byte.
        let back = try #require(try await cli.json("migrate", "--to", "tree", "--documents", uri) as? [String: Any])
        #expect(back["copied"] as? Int == 3, "\(back)")
        for (document, fixture) in zip(added, ["one-page.pdf", "many-pages.pdf", "encrypted.pdf"]) {
            let path = cli.store.path + "/data/" + (document["path"] as! String)
            #expect(FileManager.default.contentsEqual(atPath: path, andPath: Fixtures.pdf(fixture)), "\(path)")
        }
        let treeFsck = try await cli("fsck")
        #expect(treeFsck.status == 0, "\(treeFsck.stdout) \(treeFsck.stderr)")
    }

    @Test("a bucket that does not exist stops the migration before it copies anything, naming the setting")
    func aMissingBucketIsNamed() async throws {
        let s3 = try TestS3.shared()
        let cli = CLI(extra: s3.environment)
        try await cli("add", Fixtures.pdf("one-page.pdf"))
        let refused = try await cli("migrate", "--to", "s3://no-such-bucket-\(UUID().uuidString.prefix(8).lowercased())/x")
        #expect(refused.status != 0)
        // Names the setting that is wrong and what the S3 server said, not just "bucket".
        #expect(refused.stderr.contains("--to s3://no-such-bucket-") && refused.stderr.contains("NoSuchBucket"), "\(refused.stderr)")
    }
}
