import Foundation
import GatewayJobModel
import GatewayLibraryModel
import GatewayWire
import Testing

@Suite("Library names")
struct LibraryNamesTests {
    @Test(arguments: [
        ("Invoice.pdf", "Invoice"),
        ("  Report 2026.PDF  ", "Report 2026"),
        ("a/b", "a-b"),
        ("..hidden", "hidden"),
        ("tab\there\u{0}nul", "tabherenul"),
        ("Cafe\u{0301}", "Café"),  // NFD in, NFC out
        ("zero\u{200B}width", "zerowidth"),
    ])
    func documentNamesAreSanitized(_ raw: String, _ expected: String) throws {
        #expect(try LibraryNames.documentName(raw) == expected)
    }

    @Test(arguments: ["", "   ", ".pdf", "..", ".", "\u{1}\u{2}", "...."])
    func emptyAfterSanitizingIsRefused(_ raw: String) {
        #expect(throws: LibraryError.self) { try LibraryNames.documentName(raw) }
    }

    @Test func longNamesAreCutOnCharacterBoundaries() throws {
        let name = try LibraryNames.documentName(String(repeating: "é", count: 300))
        #expect(name.utf8.count <= LibraryNames.maxDocumentNameBytes)
        #expect(name.allSatisfy { $0 == "é" })
        let numbered = LibraryNames.numbered(name, 3)
        #expect(numbered.hasSuffix(" 03") && numbered.utf8.count <= LibraryNames.maxDocumentNameBytes)
    }

    @Test func numberingIsTwoDigitsThenGrows() {
        #expect(LibraryNames.numbered("Name", 1) == "Name 01")
        #expect(LibraryNames.numbered("Name", 42) == "Name 42")
        #expect(LibraryNames.numbered("Name", 100) == "Name 100")
    }

    @Test(arguments: [("Invoices/2026", ["Invoices", "2026"]), ("/a//b/", ["a", "b"]), ("", []), ("/", [])])
    func folderPathsSplit(_ raw: String, _ expected: [String]) throws {
        #expect(try LibraryNames.folderPath(raw) == expected)
    }

    @Test(arguments: ["../x", "a/../b", "a/./b", "a/ .. /b"])
    func folderPathsCannotClimb(_ raw: String) {
        #expect(throws: LibraryError.self) { try LibraryNames.folderPath(raw) }
    }

    @Test("a name made from a file name or URL falls back to \"document\" when the library would refuse it")
    func derivedNames() {
        #expect(LibraryNames.documentName(derivedFrom: "Quarterly report") == "Quarterly report")
        for refused in ["...", " . ", "\u{200B}", nil] as [String?] {
            #expect(LibraryNames.documentName(derivedFrom: refused) == "document", "\(String(describing: refused))")
        }
        // A job's default name goes through the same rule, so `....docx` files as "document".
        #expect(JobSpec(type: .docToPDF, originalFilename: "....docx").defaultDocumentName == "document")
        #expect(JobSpec(type: .docToPDF, originalFilename: "Budget.xlsx").defaultDocumentName == "Budget")
    }

    @Test("folder paths: at most 64 levels and 512 characters, counted as sent")
    func folderPathLimits() throws {
        #expect(try LibraryNames.folderPath(Array(repeating: "a", count: 64).joined(separator: "/")).count == 64)
        #expect(throws: LibraryError.self) { try LibraryNames.folderPath(Array(repeating: "a", count: 65).joined(separator: "/")) }
        #expect(try LibraryNames.folderPath(String(repeating: "é", count: 255)).count == 1)
        #expect(throws: LibraryError.self) {
            try LibraryNames.folderPath(String(repeating: "é", count: 255) + "/" + String(repeating: "b", count: 257))
        }
    }

    @Test func folderReferencesParse() {
        let id = UUID()
        #expect(FolderReference.parse(nil) == .root)
        #expect(FolderReference.parse("/") == .root)
        #expect(FolderReference.parse(id.uuidString.lowercased()) == .id(id))
        #expect(FolderReference.parse("A/B") == .path("A/B"))
    }
}

@Suite("Wire JSON dates")
struct WireDateTests {
    @Test("dates print as RFC 3339 with milliseconds in UTC")
    func exactStrings() {
        let cases: [(Double, String)] = [
            (0, "1970-01-01T00:00:00.000Z"),
            (1_795_335_087.25, "2026-11-22T08:11:27.250Z"),
            (951_782_400.5, "2000-02-29T00:00:00.500Z"),
            (-86_400.5, "1969-12-30T23:59:59.500Z"),
            (4_102_444_799.75, "2099-12-31T23:59:59.750Z"),
        ]
        for (seconds, expected) in cases {
            #expect(WireJSON.iso8601(Date(timeIntervalSince1970: seconds)) == expected, "\(seconds)")
        }
    }

    @Test("the calendar arithmetic agrees with the C library's gmtime_r on every day from 1601 to 2500")
    func matchesGmtimeOnEveryDay() {
        var mismatches: [String] = []
        // Each day at a different second, so that hours, minutes and seconds vary too.
        for day in Int64(-134_774)...Int64(194_800) {
            let secondOfDay = Int64(bitPattern: (day * 7_919).magnitude % 86_400)
            var seconds = time_t(day * 86_400 + secondOfDay)
            var parts = tm()
            gmtime_r(&seconds, &parts)
            func padded(_ value: Int32, _ width: Int) -> String {
                let text = String(value)
                return String(repeating: "0", count: max(0, width - text.count)) + text
            }
            let day = [padded(parts.tm_year + 1900, 4), padded(parts.tm_mon + 1, 2), padded(parts.tm_mday, 2)].joined(separator: "-")
            let time = [padded(parts.tm_hour, 2), padded(parts.tm_min, 2), padded(parts.tm_sec, 2)].joined(separator: ":")
            let expected = day + "T" + time + ".000Z"
            let ours = WireJSON.iso8601(Date(timeIntervalSince1970: Double(seconds)))
            if ours != expected, mismatches.count < 5 { mismatches.append("\(seconds): \(ours) != \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test("where the binary fraction is exact, Foundation's formatter agrees")
    func matchesFoundation() {
        for seconds in [0, 1_795_335_087.25, 951_782_400.5, 4_102_444_799.75] {
            let date = Date(timeIntervalSince1970: seconds)
            let foundation = date.formatted(
                .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true).timeSeparator(.colon)
                    .timeZone(separator: .omitted)
            )
            #expect(WireJSON.iso8601(date) == foundation)
        }
    }
}
