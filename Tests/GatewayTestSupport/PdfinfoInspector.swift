import Foundation
import GatewayLibraryModel

/// A real `PDFInspector` built on the `pdfinfo` CLI: slow, but independent of our Poppler
/// binding, so library tests do not depend on the code GatewayPDF tests check.
public struct PdfinfoInspector: PDFInspector {
    public init() {}

    public func inspect(path: String, thumbnail: ThumbnailRequest?) async throws -> PDFInfo {
        let result = try await run("pdfinfo", [path])
        guard result.status == 0 else {
            throw InspectionError(.damaged, "pdfinfo could not read \(path): \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        var fields: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let size = (fields["Page size"] ?? "0 x 0").split(separator: " ")
        return PDFInfo(
            pageCount: Int(fields["Pages"] ?? "") ?? 0,
            title: fields["Title"],
            author: fields["Author"],
            subject: fields["Subject"],
            keywords: fields["Keywords"],
            creator: fields["Creator"],
            producer: fields["Producer"],
            pdfVersion: fields["PDF version"] ?? "",
            pageWidth: Double(size.first ?? "") ?? 0,
            pageHeight: size.count > 2 ? Double(size[2]) ?? 0 : 0,
            encrypted: fields["Encrypted"]?.hasPrefix("yes") ?? false,
            linearized: fields["Optimized"] == "yes"
        )
    }
}
