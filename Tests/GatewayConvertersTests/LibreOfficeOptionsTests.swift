import Foundation
import GatewayJobModel
import GatewayTestSupport
import Testing

@testable import GatewayConversionFormats
@testable import GatewayLocalConverters

/// Gotenberg 8's LibreOffice options on the local backend, each judged on the PDF a real
/// LibreOffice makes with it and without it.
extension LocalConverterTests {
    /// One warm LibreOffice converts every test's documents, as the gateway's would: one
    /// job's options must not reach the next. The password and cold-fallback tests start
    /// their own.
    @Suite(.serialized, .oneConverter(.init(libreOfficeSlots: 1))) struct LibreOfficeOptions {
        // MARK: - Pages

        @Test func pageRangesKeepThePagesAsked() async throws {
            var options = ConversionOptions()
            options.browser.pageRanges = "2-3"
            let pdf = try await convert(Fixtures.officeSet("handbook.odt"), options)
            #expect(try await pdfinfoPageCount(pdf) == 2)
        }

        @Test func pageRangesBeyondTheDocumentFailTheJob() async throws {
            var options = ConversionOptions()
            options.browser.pageRanges = "2-9"
            let failure = try await failure(converting: Fixtures.office("sample.docx"), options)
            #expect(failure.kind == .rejected)
            #expect(failure.code == "page_ranges_beyond_document")
            #expect(failure.message.contains("2-9") && failure.message.contains("2 pages"), "\(failure.message)")
        }

        @Test func landscapeTurnsEveryPage() async throws {
            let portrait = try await pageSize(try await convert(Fixtures.office("sample.docx")))
            #expect(portrait.width < portrait.height)
            for name in ["sample.docx", "sample.ods"] {
                let size = try await pageSize(try await convert(Fixtures.office(name), ConversionOptions(landscape: true)))
                #expect(size.width > size.height, "\(name): \(size)")
            }
        }

        @Test func singlePageSheetsPutsEachSheetOnOnePage() async throws {
            // budget.xls: 7 sheets on 13 pages.
            #expect(try await pdfinfoPageCount(try await convert(Fixtures.officeSet("budget.xls"))) == 13)
            var options = ConversionOptions()
            options.office.singlePageSheets = true
            #expect(try await pdfinfoPageCount(try await convert(Fixtures.officeSet("budget.xls"), options)) == 7)
        }

        // MARK: - What goes into the PDF

        @Test func exportBookmarksControlsTheOutline() async throws {
            let document = try writeFlatODT(Self.headings)
            #expect(try await outlineTitles(try await convert(document.path)).contains("Chapter One"))
            var options = ConversionOptions()
            options.office.exportBookmarks = false
            #expect(try await outlineTitles(try await convert(document.path, options)).isEmpty)
        }

        @Test func exportFormFieldsControlsTheAcroForm() async throws {
            let document = try writeFlatODT(Self.formControl)
            let fields = try await formFieldNames(try await convert(document.path))
            #expect(fields == ["CustomerName"], "\(fields)")
            var options = ConversionOptions()
            options.office.exportFormFields = false
            let none = try await formFieldNames(try await convert(document.path, options))
            #expect(none.isEmpty, "\(none)")
        }

        @Test func exportNotesTurnsCommentsIntoAnnotations() async throws {
            let document = try writeFlatODT(Self.comment)
            #expect(try await textAnnotations(try await convert(document.path)) == 0)
            var options = ConversionOptions()
            options.office.exportNotes = true
            #expect(try await textAnnotations(try await convert(document.path, options)) == 1)
        }

        // MARK: - Images

        @Test func exportNotesPagesAddsEachSlidesNotesPage() async throws {
            let slides = try #require(try await pdfinfoPageCount(try await convert(Fixtures.office("sample.odp"))))
            var options = ConversionOptions()
            options.office.exportNotesPages = true
            let pdf = try await convert(Fixtures.office("sample.odp"), options)
            // Every slide, then every slide's notes page.
            #expect(try await pdfinfoPageCount(pdf) == 2 * slides)
        }

        @Test func qualityChangesTheJPEGs() async throws {
            var best = ConversionOptions()
            best.office.quality = 100
            var worst = ConversionOptions()
            worst.office.quality = 5
            let large = try size(of: try await convert(Fixtures.officeSet("report.docx"), best))
            let small = try size(of: try await convert(Fixtures.officeSet("report.docx"), worst))
            #expect(small < large * 3 / 4, "quality 5: \(small) bytes, 100: \(large)")
        }

        @Test func losslessImageCompressionKeepsImagesOutOfJPEG() async throws {
            let lossy = try await imageEncodings(try await convert(Fixtures.officeSet("report.docx")))
            var options = ConversionOptions()
            options.office.losslessImageCompression = true
            let lossless = try await imageEncodings(try await convert(Fixtures.officeSet("report.docx"), options))
            #expect(lossless.count == lossy.count)
            #expect(lossless.filter { $0 == "jpeg" }.count < lossy.filter { $0 == "jpeg" }.count, "lossy \(lossy), lossless \(lossless)")
        }

        @Test func maxImageResolutionDownsamples() async throws {
            let full = try await imageResolutions(try await convert(Fixtures.officeSet("report.docx")))
            var options = ConversionOptions()
            options.office.maxImageResolution = 75
            let reduced = try await imageResolutions(try await convert(Fixtures.officeSet("report.docx"), options))
            #expect(full.contains { $0 > 100 }, "\(full)")
            #expect(!reduced.isEmpty && reduced.allSatisfy { $0 <= 80 }, "\(reduced)")
        }

        // MARK: - Standards

        @Test func pdfaAndPDFUAComeStraightFromLibreOffice() async throws {
            let plainPDF = try await convert(Fixtures.office("sample.docx"))
            let plain = try await run("pdfinfo", ["-meta", plainPDF.path]).stdout
            // LibreOffice writes no XMP at all into a plain PDF.
            #expect(!plain.contains("pdfaid:part") && !plain.contains("pdfuaid:part"), "\(plain)")
            var options = ConversionOptions()
            options.office.pdfa = .a2b
            options.office.pdfua = true
            let archival = try await convert(Fixtures.office("sample.docx"), options)
            let meta = try await run("pdfinfo", ["-meta", archival.path]).stdout
            #expect(meta.contains("<pdfaid:part>2</pdfaid:part>") || meta.contains(#"pdfaid:part="2""#), "\(meta)")
            #expect(meta.contains("<pdfuaid:part>1</pdfuaid:part>") || meta.contains(#"pdfuaid:part="1""#), "\(meta)")
        }

        // MARK: - Passwords

        @Test func aProtectedDocumentConvertsWithItsPasswordAndTheWrongOneFailsUnsaid() async throws {
            let password = "secret"  // scripts/make-fixtures.sh
            let wrong = "not-the-pass-4711"
            try await withConverter(.init(libreOfficeSlots: 1)) { converter in
                let right = JobFixture()
                var request = right.request(.docToPDF, right.file(Fixtures.office("protected.docx")))
                request.secrets = JobSecrets(password: password)
                try await converter.convert(request, events: { _ in })
                #expect(try await pdfinfoPageCount(right.output) == 2)

                let job = JobFixture()
                request = job.request(.docToPDF, job.file(Fixtures.office("protected.docx")))
                request.secrets = JobSecrets(password: wrong)
                let failure = try #require(await conversionError { try await converter.convert(request, events: { _ in }) } as? JobFailure)
                #expect(failure.kind == .rejected)
                #expect(failure.code == "wrong_password")
                #expect(failure.message.contains("protected.docx") && !failure.message.contains(wrong), "\(failure.message)")

                // No log, profile or scratch file of the converter's or the jobs' holds either password.
                for directory in [converter.directory, right.directory.path, job.directory.path] {
                    for file in try filesHolding([password, wrong], under: directory) { Issue.record("\(file) holds a password") }
                }
            }
        }

        /// LibreOffice 24.2's whole-package encryption (Argon2id, AES-256-GCM), which LibreOffice
        /// 7.4 cannot read: the UNO worker unseals it, so the right password converts it.
        @Test func aWholePackageEncryptedODFConvertsWithItsPasswordAndTheWrongOneFails() async throws {
            let password = "password"  // Fixtures/README.md: gotenberg-client's sample
            let wrong = "not-the-pass-4711"
            try await withConverter(.init(libreOfficeSlots: 1)) { converter in
                let right = JobFixture()
                var request = right.request(.docToPDF, right.file(Fixtures.office("sample-password.odt")))
                request.secrets = JobSecrets(password: password)
                try await converter.convert(request, events: { _ in })
                let text = try await run("pdftotext", [right.output, "-"]).stdout
                #expect(text.contains("This file has a password of"), "\(text)")

                for (given, code) in [(wrong, "wrong_password"), (nil, "password_protected")] {
                    let job = JobFixture()
                    request = job.request(.docToPDF, job.file(Fixtures.office("sample-password.odt")))
                    request.secrets = JobSecrets(password: given)
                    let failure = try #require(await conversionError { try await converter.convert(request, events: { _ in }) } as? JobFailure)
                    #expect(failure.kind == .rejected && failure.code == code, "\(failure)")
                    #expect(failure.message.contains("sample-password.odt") && !failure.message.contains(wrong), "\(failure.message)")
                    #expect(!FileManager.default.fileExists(atPath: job.output))
                }
                // The unsealed document went with the conversion's exchange directory.
                for file in try filesHolding([wrong], under: converter.directory) { Issue.record("\(file) holds a password") }
                let left = FileManager.default.enumerator(atPath: converter.directory)?.compactMap { $0 as? String } ?? []
                #expect(!left.contains { $0.hasSuffix("/decrypted.odt") }, "\(left)")
            }
        }

        // MARK: - The cold fallback

        /// A job whose document crashed a warm slot: `soffice --convert-to` with JSON filter options.
        @Test func theColdCommandLineHonoursTheExportSettings() async throws {
            try await withConverter(.init(libreOfficeSlots: 1)) { converter in
                let job = JobFixture()
                var options = ConversionOptions()
                options.office.singlePageSheets = true
                let request = job.request(.docToPDF, job.file(Fixtures.officeSet("budget.xls")), options: options)
                converter.libreOffice.workers.sendCold(request.jobID)
                try await converter.convert(request, events: { _ in })
                #expect(try await pdfinfoPageCount(job.output) == 7)
                #expect(converter.libreOffice.workers.slots.slots[0].startCount == 0, "no warm slot was used")
            }
        }

        /// What the command line cannot carry (a password, turning pages) goes cold to a fresh
        /// LibreOffice driven once by the UNO worker, which is gone afterwards.
        @Test func theColdFallbackOpensProtectedDocumentsAndTurnsPages() async throws {
            try await withConverter(.init(libreOfficeSlots: 1)) { converter in
                let job = JobFixture()
                var request = job.request(.docToPDF, job.file(Fixtures.office("protected.docx")), options: ConversionOptions(landscape: true))
                request.secrets = JobSecrets(password: "secret")
                converter.libreOffice.workers.sendCold(request.jobID)
                try await converter.convert(request, events: { _ in })
                let size = try await pageSize(job.output)
                #expect(size.width > size.height, "\(size)")
                #expect(converter.libreOffice.workers.slots.slots[0].startCount == 0, "no warm slot was used")
                // Its processes name its directory; other suites' cold LibreOffices may be running.
                #expect(liveProcesses(mentioning: job.work + "/libreoffice-cold").isEmpty, "the one-off LibreOffice is gone")
                #expect(!FileManager.default.fileExists(atPath: job.work + "/libreoffice-cold"))
            }
        }

        // MARK: - Documents made for the tests

        static let headings = """
            <text:h text:outline-level="1">Chapter One</text:h><text:p>First.</text:p>
            <text:h text:outline-level="2">Part Two</text:h><text:p>Second.</text:p>
            """

        static let formControl = """
            <office:forms form:automatic-focus="false" form:apply-design-mode="false">
            <form:form form:name="Standard" form:apply-filter="true" form:command-type="table" form:control-implementation="ooo:com.sun.star.form.component.Form">
            <form:text form:name="CustomerName" form:control-implementation="ooo:com.sun.star.form.component.TextField" xml:id="control1" form:id="control1"/>
            </form:form></office:forms>
            <text:p>Name: <draw:control text:anchor-type="as-char" svg:width="5cm" svg:height="0.8cm" draw:style-name="gr1" draw:control="control1"/></text:p>
            """

        static let comment = """
            <text:p>Reviewed text.<office:annotation><dc:creator>Reviewer</dc:creator><text:p>A remark.</text:p></office:annotation></text:p>
            """
    }
}

// MARK: - Helpers

/// The job's PDF, kept beside the fixture directory that outlives this call.
private struct ConvertedPDF {
    let job: JobFixture
    var path: String { job.output }
}

/// Converts `path` with the suite's converter.
private func convert(_ path: String, _ options: ConversionOptions = ConversionOptions()) async throws -> ConvertedPDF {
    let job = JobFixture()
    try await withSuiteConverter { converter in
        try await converter.convert(job.request(.docToPDF, job.file(path), options: options, timeout: .seconds(120)), events: { _ in })
    }
    return ConvertedPDF(job: job)
}

private func failure(converting path: String, _ options: ConversionOptions) async throws -> JobFailure {
    let job = JobFixture()
    return try await withSuiteConverter { converter in
        let error = await conversionError {
            try await converter.convert(job.request(.docToPDF, job.file(path), options: options), events: { _ in })
        }
        return try #require(error as? JobFailure, "the job should fail: \(String(describing: error))")
    }
}

/// A flat OpenDocument text (`.fodt`) whose body is `body`. A form control needs the `ooo`
/// namespace (its implementation's name) and a graphic style to be laid out (without either
/// LibreOffice 7.4 exports no field): `gr1` is there for it.
private func writeFlatODT(_ body: String) throws -> (directory: TemporaryDirectory, path: String) {
    let directory = TemporaryDirectory("pdfgate-office-options")
    let path = directory.file("document.fodt")
    let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" \
        xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:form="urn:oasis:names:tc:opendocument:xmlns:form:1.0" \
        xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" \
        xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" \
        xmlns:ooo="http://openoffice.org/2004/office" \
        office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
        <office:automatic-styles><style:style style:name="gr1" style:family="graphic">\
        <style:graphic-properties style:vertical-pos="from-top" style:horizontal-pos="from-left" style:horizontal-rel="paragraph"/>\
        </style:style></office:automatic-styles>
        <office:body><office:text>\(body)</office:text></office:body></office:document>
        """
    try xml.write(toFile: path, atomically: true, encoding: .utf8)
    return (directory, path)
}

private func pdfinfoPageCount(_ pdf: ConvertedPDF) async throws -> Int? {
    try await pdfinfoPageCount(pdf.path)
}

private func size(of pdf: ConvertedPDF) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: pdf.path)[.size] as? Int) ?? 0
}

private func pageSize(_ pdf: ConvertedPDF) async throws -> (width: Double, height: Double) {
    try await pageSize(pdf.path)
}

private func pageSize(_ path: String) async throws -> (width: Double, height: Double) { try await PDFProbe.pageSize(path) }

private func outlineTitles(_ pdf: ConvertedPDF) async throws -> [String] { try await PDFProbe.outlineTitles(pdf.path) }

/// The names of the PDF's AcroForm fields, as qpdf reads them.
private func formFieldNames(_ pdf: ConvertedPDF) async throws -> [String] {
    let acroform = try await PDFProbe.qpdfJSON(pdf.path, key: "acroform")["acroform"] as? [String: Any] ?? [:]
    return (acroform["fields"] as? [[String: Any]] ?? []).compactMap { $0["fullname"] as? String }
}

/// How many `/Text` (comment) annotations the PDF has.
private func textAnnotations(_ pdf: ConvertedPDF) async throws -> Int {
    let json = try await run("qpdf", ["--json", "--json-key=qpdf", pdf.path]).stdout
    return json.components(separatedBy: #""/Subtype": "/Text""#).count - 1
}

/// pdfimages' "enc" column, one entry per image.
private func imageEncodings(_ pdf: ConvertedPDF) async throws -> [String] {
    try await imageList(pdf).map { $0[8] }
}

/// pdfimages' horizontal resolution of each image, in pixels per inch.
private func imageResolutions(_ pdf: ConvertedPDF) async throws -> [Int] {
    try await imageList(pdf).compactMap { Int($0[12]) }
}

/// `pdfimages -list` rows of images (not masks), split into columns.
private func imageList(_ pdf: ConvertedPDF) async throws -> [[String]] {
    let lines = try await run("pdfimages", ["-list", pdf.path]).stdout.split(separator: "\n").dropFirst(2)
    return lines.map { $0.split(separator: " ").map(String.init) }.filter { $0.count >= 14 && $0[2] == "image" }
}

/// Files under `directory` whose bytes contain any of `secrets`; not the UNO worker's own source,
/// which names argon2's `hash_secret_raw` (and "secret" is protected.docx's password).
private func filesHolding(_ secrets: [String], under directory: String) throws -> [String] {
    guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
    var found: [String] = []
    while let relative = walker.nextObject() as? String {
        if relative.hasSuffix("/" + UnoWorkerScript.fileName) { continue }
        let path = directory + "/" + relative
        guard let data = FileManager.default.contents(atPath: path) else { continue }
        if secrets.contains(where: { data.range(of: Data($0.utf8)) != nil }) { found.append(relative) }
    }
    return found
}

/// The export settings themselves, without LibreOffice: the names its PDF filter reads.
@Suite struct LibreOfficeExportSettingsTests {
    @Test func optionsBecomeThePDFFiltersSettings() throws {
        #expect(LibreOfficeExport.filterData(for: ConversionOptions()).isEmpty)
        #expect(LibreOfficeExport.convertTo(for: ConversionOptions()) == "pdf")

        var options = ConversionOptions(landscape: true)
        options.browser.pageRanges = " -2, 4 , 7-"
        options.office.maxImageResolution = 150
        options.office.pdfa = .a1b
        let data = LibreOfficeExport.filterData(for: options)
        #expect(data.map(\.name) == ["PageRange", "ReduceImageResolution", "MaxImageResolution", "SelectPdfVersion", "EmbedStandardFonts"])
        #expect(data.map(\.value) == [.string("1-2,4,7-"), .bool(true), .int(150), .int(1), .bool(true)])

        let target = LibreOfficeExport.convertTo(for: options)
        #expect(target.hasPrefix("pdf:writer_pdf_Export:{"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(target.dropFirst("pdf:writer_pdf_Export:".count).utf8)) as? [String: [String: String]]
        )
        #expect(json["MaxImageResolution"] == ["type": "long", "value": "150"])
        #expect(json["ReduceImageResolution"] == ["type": "boolean", "value": "true"])
        #expect(json["PageRange"] == ["type": "string", "value": "1-2,4,7-"])

        var accessible = ConversionOptions()
        accessible.office.pdfua = true
        accessible.office.losslessImageCompression = true
        #expect(
            LibreOfficeExport.filterData(for: accessible).map(\.name) == [
                "UseLosslessCompression", "PDFUACompliance", "UseTaggedPDF", "EnableTextAccessForAccessibilityTools", "EmbedStandardFonts",
            ]
        )
    }
}
