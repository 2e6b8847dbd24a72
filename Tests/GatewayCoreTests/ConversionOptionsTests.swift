import Foundation
import Testing

@testable import GatewayJobModel

/// The wire form of the options: flat, strict for clients, lenient for stored specs.
@Suite struct ConversionOptionsTests {
    static var everything: ConversionOptions {
        var browser = BrowserOptions()
        browser.waitDelay = 1.5
        browser.waitForSelector = "#ready"
        browser.waitForExpression = "window.done === true"
        browser.emulatedMediaType = .screen
        browser.emulatedMediaFeatures = [.init(name: "prefers-color-scheme", value: "dark")]
        browser.javaScript = false
        browser.ignoreResourceHTTPStatusDomains = ["sentry-cdn.com"]
        browser.extraHTTPHeaders = ["X-Token": "abc"]
        browser.extraHTTPHeadersScope = "^https://example\\.com/"
        browser.cookies = [.init(name: "s", value: "1", domain: "example.com", path: "/", secure: true, httpOnly: false, sameSite: .lax)]
        browser.userAgent = "Agent/1"
        browser.pageRanges = "1-3,5"
        browser.scale = 0.8
        browser.preferCSSPageSize = true
        browser.singlePage = false
        browser.headerHTML = "<span class=title></span>"
        browser.footerHTML = "<span class=pageNumber></span>"
        browser.generateTaggedPDF = true
        browser.generateDocumentOutline = true
        browser.omitBackground = true
        browser.failOnHTTPStatusCodes = [499, 599]
        browser.failOnResourceHTTPStatusCodes = [404]
        browser.failOnResourceLoadingFailed = true
        browser.failOnConsoleExceptions = true
        var office = OfficeOptions()
        office.exportFormFields = false
        office.exportBookmarks = true
        office.exportNotes = true
        office.exportNotesPages = true
        office.losslessImageCompression = false
        office.quality = 80
        office.reduceImageResolution = true
        office.maxImageResolution = 600
        office.singlePageSheets = true
        office.pdfa = .a3b
        office.pdfua = true
        office.libreOfficeExport = ["IsSkipEmptyPages": .flag(true), "InitialView": .number(1), "Watermark": .text("Draft")]
        var options = ConversionOptions(
            paperWidth: 8.27,
            paperHeight: 11.69,
            landscape: true,
            margin: 0.2,
            printBackground: true,
            browser: browser,
            office: office,
            scan: ScanOptions(deskew: true, autoRotate: false, ocr: true, ocrLanguages: ["eng", "deu"])
        )
        options.marginTop = 0.5
        options.marginBottom = 0.6
        options.marginLeft = 0.7
        options.marginRight = 0
        return options
    }

    @Test func everyOptionSurvivesAFlatRoundTrip() throws {
        let data = try JSONEncoder().encode(Self.everything)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == Set(ConversionOptions.fields.map(\.name)), "flat, one key per field: \(object.keys.sorted())")
        #expect(try ConversionOptions.strictlyDecoded(from: data) == Self.everything)
        #expect(try JSONDecoder().decode(ConversionOptions.self, from: data) == Self.everything)
        #expect(try JSONDecoder().decode(ConversionOptions.self, from: Data("{}".utf8)) == ConversionOptions())
        try Self.everything.validate()
    }

    @Test func aStoredSpecFromBeforeTheBrowserOptionsStillDecodes() throws {
        let stored = #"{"type":"URL_TO_PDF","url":"https://example.com/","on_conflict":"rename","options":{"paper_width":4,"landscape":true}}"#
        let spec = try JSONDecoder().decode(JobSpec.self, from: Data(stored.utf8))
        #expect(spec.options == ConversionOptions(paperWidth: 4, landscape: true))
        // A stored row is not a client's request: a key it does not know is ignored there.
        let future = #"{"type":"URL_TO_PDF","on_conflict":"rename","options":{"scale":0.5,"some_future_key":1}}"#
        #expect(try JSONDecoder().decode(JobSpec.self, from: Data(future.utf8)).options.browser.scale == 0.5)
    }

    @Test func aClientsUnknownKeyIsRefusedByName() {
        #expect(throws: OptionsError.self) { try ConversionOptions.strictlyDecoded(from: Data(#"{"scael": 1}"#.utf8)) }
        do {
            _ = try ConversionOptions.strictlyDecoded(from: Data(#"{"scael": 1}"#.utf8))
        } catch {
            #expect(error.code == "unknown_option" && error.field == "scael")
            #expect(error.message.contains("scale"), "lists the keys: \(error.message)")
        }
    }

    /// schemathesis found `{"omit_background": null}` accepted as if the key were left out,
    /// where the schema says a boolean.
    @Test func aClientsNullIsRefusedByName() {
        do {
            _ = try ConversionOptions.strictlyDecoded(from: Data(#"{"margin": 1, "omit_background": null}"#.utf8))
            Issue.record("null accepted")
        } catch {
            #expect(error.code == "invalid_options" && error.field == "omit_background", "\(error.message)")
            #expect(error.message.contains("true or false"), "\(error.message)")
        }
    }

    @Test(arguments: [
        ("1-3,5", true), ("2-", true), ("-4", true), (" 1 - 2 , 7 ", true), ("3-1", false), ("0", false), ("1,,2", false), ("", false),
        ("a", false), ("1-2-3", false), ("-", false),
        // What openapi.yaml's pattern refuses, the server refuses too (schemathesis found "B" accepted by the old spec).
        ("01", false), ("+1", false), ("\u{00A0}1", false), ("1234567890", false),
    ])
    func pageRangesFollowChromiumsSyntax(_ text: String, _ valid: Bool) {
        #expect((BrowserOptions.pageRanges(text) != nil) == valid, "\(text)")
    }

    @Test func ninetyNineStandsForItsClass() {
        #expect(BrowserOptions.status(404, isIn: [499]))
        #expect(BrowserOptions.status(503, isIn: [599]))
        #expect(!BrowserOptions.status(404, isIn: [599, 403]))
        #expect(BrowserOptions.status(403, isIn: [403]))
    }

    @Test func textFieldsBecomeTypedOptions() throws {
        let options = try #require(
            try ConversionOptions.fromTextFields([
                "scale": "0.5", "single_page": "true", "cookies": #"[{"name":"a","value":"b"}]"#, "type": "DOC_TO_PDF",
                "options": #"{"user_agent": "UA"}"#,
            ])
        )
        #expect(options.browser.scale == 0.5 && options.browser.singlePage == true && options.browser.userAgent == "UA")
        #expect(options.browser.cookies?.first?.name == "a")
        #expect(try ConversionOptions.fromTextFields(["type": "URL_TO_PDF"]) == nil)
    }
}
