import Foundation
import FoundationXML

/// An XMP packet edited as XML (libxml2 through Foundation): only its `<x:xmpmeta>` is parsed
/// and written back, so the `<?xpacket?>` wrapper and its padding stay as they were.
enum XMPPacket {
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

    /// `packet` after `edit` changed its XML (given the document and its `rdf:RDF`); nil when
    /// the packet holds no RDF to edit or `edit` gives up.
    static func editing(_ packet: String, _ edit: (XMLDocument, XMLElement) -> Bool) -> String? {
        guard let start = packet.range(of: "<x:xmpmeta"), let end = packet.range(of: "</x:xmpmeta>"),
            let document = try? XMLDocument(xmlString: String(packet[start.lowerBound..<end.upperBound])),
            let rdfRoot = (try? document.nodes(forXPath: "//*[local-name()='RDF']"))?.first as? XMLElement,
            edit(document, rdfRoot), let root = document.rootElement()
        else { return nil }
        return packet.replacingCharacters(in: start.lowerBound..<end.upperBound, with: root.xmlString)
    }
}
