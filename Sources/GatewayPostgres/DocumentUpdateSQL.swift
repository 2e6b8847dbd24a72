import Foundation
import GatewayLibraryModel
import PostgresNIO

extension PostgresQuery.StringInterpolation {
    /// `UPDATE documents SET` every column `WHERE id =` the record's, its values bound: the one
    /// write of a document row, which both of the catalog's update statements embed.
    mutating func appendInterpolation(updateOf d: DocumentRecord) {
        appendLiteral("UPDATE documents SET owner = ")
        appendInterpolation(d.owner)
        appendLiteral(", folder_id = ")
        appendInterpolation(d.folderID)
        appendLiteral(", name = ")
        appendInterpolation(d.name)
        appendLiteral(", size = ")
        appendInterpolation(d.size)
        appendLiteral(", sha256 = ")
        appendInterpolation(d.sha256)
        appendLiteral(", page_count = ")
        appendInterpolation(d.pageCount)
        appendLiteral(", title = ")
        appendInterpolation(d.title)
        appendLiteral(", author = ")
        appendInterpolation(d.author)
        appendLiteral(", subject = ")
        appendInterpolation(d.subject)
        appendLiteral(", keywords = ")
        appendInterpolation(d.keywords)
        appendLiteral(", creator = ")
        appendInterpolation(d.creator)
        appendLiteral(", producer = ")
        appendInterpolation(d.producer)
        appendLiteral(", pdf_created_at = ")
        appendInterpolation(d.pdfCreatedAt)
        appendLiteral(", pdf_modified_at = ")
        appendInterpolation(d.pdfModifiedAt)
        appendLiteral(", pdf_version = ")
        appendInterpolation(d.pdfVersion)
        appendLiteral(", page_width = ")
        appendInterpolation(d.pageWidth)
        appendLiteral(", page_height = ")
        appendInterpolation(d.pageHeight)
        appendLiteral(", encrypted = ")
        appendInterpolation(d.encrypted)
        appendLiteral(", linearized = ")
        appendInterpolation(d.linearized)
        appendLiteral(", pdfa = ")
        appendInterpolation(d.pdfa)
        appendLiteral(", state = ")
        appendInterpolation(d.state.rawValue)
        appendLiteral(", path_before = ")
        appendInterpolation(d.pathBefore)
        appendLiteral(", staged_path = ")
        appendInterpolation(d.stagedPath)
        appendLiteral(", created_at = ")
        appendInterpolation(d.createdAt)
        appendLiteral(", updated_at = ")
        appendInterpolation(d.updatedAt)
        appendLiteral(", warning = ")
        appendInterpolation(d.warning)
        appendLiteral(" WHERE id = ")
        appendInterpolation(d.id)
    }
}

extension DocumentRecord {
    /// Any record: for the text of a statement whose every value is a parameter.
    static let statementText = DocumentRecord(
        id: "",
        owner: "",
        folderID: "",
        name: "",
        size: 0,
        sha256: "",
        pageCount: 0,
        title: nil,
        author: nil,
        subject: nil,
        keywords: nil,
        creator: nil,
        producer: nil,
        pdfCreatedAt: nil,
        pdfModifiedAt: nil,
        pdfVersion: "",
        pageWidth: 0,
        pageHeight: 0,
        encrypted: false,
        linearized: false,
        pdfa: nil,
        state: .ready,
        pathBefore: nil,
        stagedPath: nil,
        createdAt: Date(timeIntervalSince1970: 0),
        updatedAt: Date(timeIntervalSince1970: 0)
    )
}
