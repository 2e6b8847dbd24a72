import Foundation
import GatewayJobModel
import GatewayTestSupport
import Testing
import ZIPFoundation

@testable import GatewayConversionFormats
@testable import GatewayLocalConverters

extension LocalConverterTests {
    /// A page with its files as one `.zip` (`HTMLBundle`): printed with its stylesheet and image,
    /// and no archive reaches outside its directory or past its bounds.
    @Suite(.serialized) struct HTMLBundles {
        /// A zip at `path` holding `entries` (name → bytes), stored.
        static func zip(_ path: String, _ entries: [(String, [UInt8])]) throws {
            let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
            for (name, bytes) in entries {
                try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .none) { position, size in
                    Data(bytes[Int(position)..<Int(position) + size])
                }
            }
        }

        @Test func aBundledPageIsPrintedWithItsStylesheetAndImage() async throws {
            let job = JobFixture()
            let site = job.directory.file("site.zip")
            let logo = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.root + "/web-set/logo.png")))
            try Self.zip(
                site,
                [
                    (
                        "index.html",
                        Array(
                            #"<html><head><link rel="stylesheet" href="css/site.css"></head><body><h1>Bundle</h1><img src="img/logo%20one.png"></body></html>"#
                                .utf8
                        )
                    ),
                    ("css/site.css", Array(#"h1::after { content: " from the sheet"; }"#.utf8)),
                    ("img/logo one.png", logo),
                ]
            )
            try await withConverter { converter in
                let request = job.request(.docToPDF, .file(path: site, originalFilename: "site.zip"))
                #expect(converter.backend(for: request) is ChromiumConverter)
                try await converter.convert(request, events: { _ in })
                #expect(try await run("pdftotext", [job.output, "-"]).stdout.contains("Bundle from the sheet"))
                let images = try await run("pdfimages", ["-list", job.output]).stdout
                #expect(images.split(separator: "\n").count == 3, "one image: \(images)")
            }
        }

        @Test func hostileArchivesAreRefusedByName() throws {
            let job = JobFixture()
            let cases: [(String, [(String, [UInt8])], String)] = [
                ("escape.zip", [("index.html", Array("<p>x</p>".utf8)), ("../../evil.txt", Array("x".utf8))], "outside the bundle"),
                ("absolute.zip", [("index.html", Array("<p>x</p>".utf8)), ("/etc/evil", Array("x".utf8))], "outside the bundle"),
                ("noindex.zip", [("page.html", Array("<p>x</p>".utf8))], "no index.html"),
            ]
            for (name, entries, problem) in cases {
                let path = job.directory.file(name)
                try Self.zip(path, entries)
                do {
                    _ = try HTMLBundle.unpack(path, into: job.directory.file(name + ".d"))
                    Issue.record("\(name) unpacked")
                } catch {
                    #expect(error.code == "invalid_html_bundle" && error.message.contains(problem), "\(name): \(error.message)")
                }
            }
            #expect(!FileManager.default.fileExists(atPath: job.directory.path + "/evil.txt"))
            let notZip = job.directory.file("not.zip")
            try Data("plain text".utf8).write(to: URL(fileURLWithPath: notZip))
            #expect(throws: JobFailure.self) { try HTMLBundle.unpack(notZip, into: job.directory.file("not.d")) }
        }
    }
}
