import Foundation
import FoundationXML

/// Puts document information into an XMP packet, where PDF/A wants the same values as in
/// `/Info`: title, author, subject, keywords, creator tool. Edited as XML (libxml2 through
/// Foundation), inside the packet's own `<x:xmpmeta>` so its `<?xpacket?>` wrapper stays.
enum XMPDocumentInfo {
    /// Where each `/Info` key lives in XMP, and its shape.
    struct Property {
        enum Shape { case alternative, sequence, simple }
        var prefix: String
        var namespace: String
        var name: String
        var shape: Shape
    }

    static let dc = "http://purl.org/dc/elements/1.1/"
    static let rdf = XMPPacket.rdf
    static let properties: [String: Property] = [
        "/Title": Property(prefix: "dc", namespace: dc, name: "title", shape: .alternative),
        "/Author": Property(prefix: "dc", namespace: dc, name: "creator", shape: .sequence),
        "/Subject": Property(prefix: "dc", namespace: dc, name: "description", shape: .alternative),
        "/Keywords": Property(prefix: "pdf", namespace: "http://ns.adobe.com/pdf/1.3/", name: "Keywords", shape: .simple),
        "/Creator": Property(prefix: "xmp", namespace: "http://ns.adobe.com/xap/1.0/", name: "CreatorTool", shape: .simple),
    ]

    /// `packet` with `values` (by `/Info` key, plain text) set; nil when it holds no RDF to edit.
    static func setting(_ values: [String: String], in packet: String) -> String? {
        XMPPacket.editing(packet) { document, _ in
            guard let description = try? document.nodes(forXPath: "//*[local-name()='Description']").first as? XMLElement else { return false }
            for (key, value) in values {
                guard let property = properties[key] else { continue }
                set(value, property, in: document, description: description)
            }
            return true
        }
    }

    private static func set(_ value: String, _ property: Property, in document: XMLDocument, description: XMLElement) {
        let path = "//*[local-name()='\(property.name)' and namespace-uri()='\(property.namespace)']"
        // As an attribute of a description (`pdf:Keywords='…'`), the short form writers use.
        for case let element as XMLElement in (try? document.nodes(forXPath: "//*[local-name()='Description']")) ?? [] {
            if let attribute = element.attribute(forLocalName: property.name, uri: property.namespace) {
                attribute.stringValue = value
                return
            }
        }
        if let existing = (try? document.nodes(forXPath: path))?.first as? XMLElement {
            if property.shape == .simple {
                existing.stringValue = value
            } else if let item = (try? existing.nodes(forXPath: ".//*[local-name()='li']"))?.first {
                item.stringValue = value
            }
            return
        }
        if description.namespace(forPrefix: property.prefix) == nil, document.rootElement()?.namespace(forPrefix: property.prefix) == nil {
            description.addNamespace(XMLNode.namespace(withName: property.prefix, stringValue: property.namespace) as! XMLNode)
        }
        let element = XMLElement(name: "\(property.prefix):\(property.name)", uri: property.namespace)
        switch property.shape {
        case .simple:
            element.stringValue = value
        case .alternative, .sequence:
            let container = XMLElement(name: property.shape == .alternative ? "rdf:Alt" : "rdf:Seq", uri: rdf)
            let item = XMLElement(name: "rdf:li", uri: rdf)
            item.stringValue = value
            if property.shape == .alternative {
                item.addAttribute(XMLNode.attribute(withName: "xml:lang", stringValue: "x-default") as! XMLNode)
            }
            container.addChild(item)
            element.addChild(container)
        }
        description.addChild(element)
    }
}
