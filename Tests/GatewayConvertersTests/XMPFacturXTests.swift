import Foundation
import GatewayJobModel
import Testing

@testable import GatewayPDFTools

/// The Factur-X declaration in an XMP packet, without tools: added once with its schema, its
/// values replaced (not repeated) when the operation runs again, the packet's wrapper kept.
@Suite("Factur-X in XMP")
struct XMPFacturXTests {
    static let packet = """
        <?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
        <rdf:Description xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/" rdf:about="" pdfaid:part="3" pdfaid:conformance="B"/>\
        </rdf:RDF></x:xmpmeta>
        <?xpacket end='w'?>
        """

    static func invoice(_ level: FacturX.ConformanceLevel) throws -> FacturX {
        try FacturX(conformanceLevel: level, documentType: .order, version: "1.0", xml: Data("<a/>".utf8), field: "xml")
    }

    static func count(_ text: String, in packet: String) -> Int { packet.components(separatedBy: text).count - 1 }

    @Test func declaredOnceAndUpdatedInPlace() throws {
        let first = try #require(XMPFacturX.declaring(try Self.invoice(.basic), in: Self.packet))
        #expect(first.hasPrefix("<?xpacket begin=") && first.hasSuffix("<?xpacket end='w'?>"), "the wrapper stays")
        #expect(first.contains("<fx:ConformanceLevel>BASIC</fx:ConformanceLevel>") && first.contains("<fx:DocumentType>ORDER</fx:DocumentType>"))
        #expect(!first.contains("xmlns=\""), "no default namespace repeated on the properties: \(first)")
        let again = try #require(XMPFacturX.declaring(try Self.invoice(.en16931), in: first))
        #expect(again.contains("<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>") && !again.contains(">BASIC<"))
        #expect(Self.count("<fx:ConformanceLevel>", in: again) == 1, "\(again)")
        #expect(Self.count("<pdfaSchema:namespaceURI>\(FacturX.namespace)</pdfaSchema:namespaceURI>", in: again) == 1)
        #expect(XMPFacturX.declaring(try Self.invoice(.basic), in: "no XMP here") == nil)
    }
}
