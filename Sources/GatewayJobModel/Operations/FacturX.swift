import Foundation
import FoundationXML

#if canImport(FoundationXML)
#endif

/// Factur-X / ZUGFeRD: a PDF/A-3 invoice that carries its structured twin, the CII XML, as an
/// associated file named `factur-x.xml` (relationship `Alternative`), and says so in its XMP
/// (the `fx` schema: document type, file name, version, conformance level). Gotenberg's
/// `facturxXml` and `facturx…` fields; our `facturx` operation, after a `pdfa` to PDF/A-3b.
public struct FacturX: Sendable, Equatable {
    /// The profiles of the standard, as Gotenberg takes them.
    public enum ConformanceLevel: String, Sendable, CaseIterable {
        case minimum = "MINIMUM"
        case basicWL = "BASIC WL"
        case basic = "BASIC"
        case en16931 = "EN 16931"
        case extended = "EXTENDED"
        case xRechnung = "XRECHNUNG"
    }

    public enum DocumentType: String, Sendable, CaseIterable {
        case invoice = "INVOICE"
        case order = "ORDER"
        case orderResponse = "ORDER_RESPONSE"
        case orderChange = "ORDER_CHANGE"
    }

    public var conformanceLevel: ConformanceLevel
    public var documentType: DocumentType
    /// The Factur-X version the XML follows, `1.0` unless told.
    public var version: String
    /// The invoice's XML, attached under the name validators look for.
    public var xml: PDFAttachment

    /// The name the standard mandates, whatever the uploaded file was called.
    public static let fileName = "factur-x.xml"
    /// The `fx` schema's namespace (Factur-X 1.0).
    public static let namespace = "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#"

    /// `data` as the invoice of a Factur-X document; the XML must be well-formed (a validator
    /// would reject the PDF later, with no word on why).
    public init(
        conformanceLevel: ConformanceLevel,
        documentType: DocumentType = .invoice,
        version: String = "1.0",
        xml data: Data,
        field: String
    ) throws(OperationError) {
        guard Self.isWellFormedXML(data) else {
            throw OperationError(.outOfRange, code: "invalid_facturx_xml", "\(field) is not well-formed XML; send the invoice's CII XML as it is")
        }
        let xml = try PDFAttachment.file(data, name: Self.fileName, field: field)
        self.init(conformanceLevel: conformanceLevel, documentType: documentType, version: version, stored: xml)
    }

    /// A stored one (the XML's hash and size only, its bytes beside the job), or one just read:
    /// either way the XML is attached as the standard says — its name, `text/xml`, `Alternative`.
    public init(conformanceLevel: ConformanceLevel, documentType: DocumentType, version: String, stored xml: PDFAttachment) {
        self.conformanceLevel = conformanceLevel
        self.documentType = documentType
        self.version = version
        var xml = xml
        xml.name = Self.fileName
        xml.mimeType = "text/xml"
        xml.relationship = .alternative
        self.xml = xml
    }

    /// Why `version` cannot be a Factur-X version: digits and dots, such as `1.0` or `1.07`.
    public static func versionProblem(_ version: String) -> String? {
        let parts = version.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count),
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 4 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
        else { return "'\(version)' is not a version such as 1.0" }
        return nil
    }

    /// libxml2 through Foundation's parser, external entities left unresolved. Its parser
    /// forgives a document that simply stops (`<Invoice>` never closed), so the elements are
    /// counted too: one root, every element closed.
    static func isWellFormedXML(_ data: Data) -> Bool {
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        let balance = ElementBalance()
        parser.delegate = balance
        return parser.parse() && !balance.failed && balance.roots == 1 && balance.depth == 0
    }

    private final class ElementBalance: NSObject, XMLParserDelegate {
        var depth = 0
        var roots = 0
        var failed = false

        func parser(
            _ parser: XMLParser,
            didStartElement name: String,
            namespaceURI: String?,
            qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if depth == 0 { roots += 1 }
            depth += 1
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            depth -= 1
        }

        func parser(_ parser: XMLParser, parseErrorOccurred error: any Error) {
            failed = true
        }
    }
}
