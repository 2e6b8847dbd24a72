import Foundation
import FoundationXML
import GatewayJobModel

/// Declares a Factur-X invoice in a PDF/A packet: the `fx` properties (document type, file
/// name, version, conformance level) and, as PDF/A requires of any schema outside its own list,
/// the `fx` extension schema that describes them. Edited as XML (libxml2 through Foundation)
/// inside the packet's `<x:xmpmeta>` (`XMPPacket`), like `XMPDocumentInfo`; the schema's text
/// is the standard's.
enum XMPFacturX {
    static let rdf = XMPPacket.rdf

    /// `packet` declaring `invoice`; a declaration already there (the operation ran again) gets
    /// the new values. Nil when the packet holds no RDF to edit.
    static func declaring(_ invoice: FacturX, in packet: String) -> String? {
        let values = [
            "DocumentType": invoice.documentType.rawValue, "DocumentFileName": FacturX.fileName, "Version": invoice.version,
            "ConformanceLevel": invoice.conformanceLevel.rawValue,
        ]
        return XMPPacket.editing(packet) { document, rdfRoot in
            let path = "//*[namespace-uri()='\(FacturX.namespace)']"
            if ((try? document.nodes(forXPath: path)) ?? []).isEmpty {
                // Empty properties parsed from text, filled below like ones already there:
                // Foundation's XMLElement(name:uri:) would repeat the namespace as a default
                // `xmlns` on every element, which readers matching `<fx:…>` as text do not expect.
                let properties = values.keys.sorted().map { "<fx:\($0)/>" }.joined()
                let text = "<rdf:Description xmlns:rdf=\"\(rdf)\" xmlns:fx=\"\(FacturX.namespace)\" rdf:about=\"\">\(properties)</rdf:Description>"
                guard let description = try? XMLElement(xmlString: text) else { return false }
                rdfRoot.addChild(description)
            }
            // The XML writer escapes the values.
            for case let element as XMLElement in (try? document.nodes(forXPath: path)) ?? [] {
                if let name = element.localName, let value = values[name] { element.stringValue = value }
            }
            return declareSchema(in: document, rdfRoot: rdfRoot)
        }
    }

    /// Adds the `fx` schema to the packet's extension schemas (a bag of its own when there is
    /// none yet); false when the standard's text would not parse, which cannot happen short of
    /// a broken libxml2.
    private static func declareSchema(in document: XMLDocument, rdfRoot: XMLElement) -> Bool {
        let declared = (try? document.nodes(forXPath: "//*[local-name()='namespaceURI']"))?.contains { $0.stringValue == FacturX.namespace } ?? false
        if declared { return true }
        if let bag = (try? document.nodes(forXPath: "//*[local-name()='schemas']/*[local-name()='Bag']"))?.first as? XMLElement {
            guard let schema = try? XMLElement(xmlString: schemaItem) else { return false }
            bag.addChild(schema)
            return true
        }
        let container = """
            <rdf:Description xmlns:rdf="\(rdf)" rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" \
            xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">\
            <pdfaExtension:schemas><rdf:Bag>\(schemaItem)</rdf:Bag></pdfaExtension:schemas></rdf:Description>
            """
        guard let description = try? XMLElement(xmlString: container) else { return false }
        rdfRoot.addChild(description)
        return true
    }

    /// The standard's description of the `fx` schema and its four properties.
    static let schemaItem: String = {
        let properties = [
            ("DocumentFileName", "name of the embedded XML invoice file"),
            ("DocumentType", "The type of the embedded Factur-X document"),
            ("Version", "The actual version of the Factur-X XML schema"),
            ("ConformanceLevel", "The conformance level of the embedded Factur-X data"),
        ]
        let items = properties.map { name, text in
            "<rdf:li rdf:parseType=\"Resource\"><pdfaProperty:name>\(name)</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType>"
                + "<pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>\(text)</pdfaProperty:description></rdf:li>"
        }
        return """
            <rdf:li xmlns:rdf="\(rdf)" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#" \
            rdf:parseType="Resource"><pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>\
            <pdfaSchema:namespaceURI>\(FacturX.namespace)</pdfaSchema:namespaceURI><pdfaSchema:prefix>fx</pdfaSchema:prefix>\
            <pdfaSchema:property><rdf:Seq>\(items.joined())</rdf:Seq></pdfaSchema:property></rdf:li>
            """
    }()
}
