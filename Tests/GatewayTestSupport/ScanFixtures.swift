import Foundation

/// Scanned pages of known text, made at test time by `scripts/make-scan-fixtures.sh` (ImageMagick
/// and img2pdf) and cached under `.build/test-fixtures/scans/`: the first test that asks pays a
/// few seconds a page, every later one (and every later run) reads them.
public enum ScanFixtures {
    /// The directory holding pages 1–3 and the PDFs made of them (the script lists its files).
    public static func directory() async throws -> String { try await made.value }

    /// Page `number`'s JPEG (300 dpi, grey, turned 1.3°, with noise).
    public static func page(_ number: Int) async throws -> String { try await directory() + "/p\(number).jpg" }

    /// What page `number` says.
    public static func text(_ number: Int) async throws -> String {
        try String(contentsOfFile: try await directory() + "/p\(number).txt", encoding: .utf8)
    }

    /// A file the script made: `scan.pdf`, `sideways.pdf`, `cropped.pdf`, `sideways.jpg`.
    public static func file(_ name: String) async throws -> String { try await directory() + "/" + name }

    /// Made once per test process; the script itself makes them once per machine.
    private static let made = Task<String, any Error> {
        let script = Fixtures.root + "/../scripts/make-scan-fixtures.sh"
        let result = try await run("/bin/bash", [script, "3"])
        let directory = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, FileManager.default.fileExists(atPath: directory + "/done") else {
            throw ScanFixtureError(message: "scripts/make-scan-fixtures.sh failed (\(result.status)): \(result.stderr.suffix(2000))")
        }
        return directory
    }
}

/// The fixture script failed; its words say why (a package missing, usually).
public struct ScanFixtureError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
