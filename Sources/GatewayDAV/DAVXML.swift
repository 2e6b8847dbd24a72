import Foundation
import GatewayHTTPServing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// An element of a WebDAV request body (PROPFIND, PROPPATCH, LOCK), read into a small tree.
///
/// Bodies come from anyone who can reach the port, so they are read defensively: no DTD at all
/// (WebDAV needs none, and a DTD is how external entities and entity expansion get in), at
/// most `maxDepth` levels and `maxBytes` bytes. Each refusal has its own code.
struct DAVElement: Sendable, Equatable {
    var namespace: String
    var name: String
    var children: [DAVElement]
    var text: String
    /// The element as it was written, for a dead property kept as given.
    var xml: String

    static let dav = "DAV:"
    static let maxDepth = 32
    static let maxBytes = 1 << 20

    func child(_ name: String, namespace: String = dav) -> DAVElement? {
        children.first { $0.name == name && $0.namespace == namespace }
    }

    /// Parses `bytes`; nil for an empty body.
    static func parse(_ bytes: [UInt8]) throws(APIError) -> DAVElement? {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return nil }
        guard bytes.count <= maxBytes else {
            throw APIError(.contentTooLarge, "xml_too_large", "the XML body is over \(maxBytes) bytes; WebDAV bodies are small")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        if text.range(of: "<!DOCTYPE", options: .caseInsensitive) != nil || text.range(of: "<!ENTITY", options: .caseInsensitive) != nil {
            throw APIError(.badRequest, "xml_dtd_refused", "XML with a DOCTYPE or entity declarations is refused; send the body without a DTD")
        }
        let builder = TreeBuilder(source: bytes)
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let parsed = parser.parse()
        if builder.tooDeep {
            throw APIError(.badRequest, "xml_too_deep", "the XML nests deeper than \(maxDepth) levels; WebDAV bodies are shallow")
        }
        guard parsed, !builder.invalidNamespace, let root = builder.root else {
            let reason = parser.parserError.map { " (\($0.localizedDescription))" } ?? ""
            throw APIError(.badRequest, "invalid_xml", "the body is not well-formed XML\(reason); send a WebDAV XML body or none")
        }
        return root
    }
}

/// Collects XMLParser's events into `DAVElement`s.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    private struct Open {
        var namespace: String
        var name: String
        var qualifiedName: String
        var attributes: [String: String]
        var children: [DAVElement] = []
        var text = ""
        var prefixes: [String: String]
    }

    let source: [UInt8]
    var root: DAVElement?
    var tooDeep = false
    var invalidNamespace = false
    private var stack: [Open] = []
    private var pendingPrefixes: [String: String] = [:]

    init(source: [UInt8]) {
        self.source = source
    }

    func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
        // `xmlns:p=""` is not allowed (Namespaces in XML 1.0 §3): only the default may be undeclared.
        if !prefix.isEmpty && namespaceURI.isEmpty {
            invalidNamespace = true
            parser.abortParsing()
        }
        pendingPrefixes[prefix] = namespaceURI
    }

    func parser(
        _ parser: XMLParser,
        didStartElement elementName: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        // A prefix bound to no namespace (`<bar:foo xmlns:bar=""/>`) is not XML with namespaces.
        if let qualifiedName, qualifiedName.contains(":"), namespaceURI?.isEmpty ?? true {
            invalidNamespace = true
            parser.abortParsing()
            return
        }
        guard stack.count < DAVElement.maxDepth else {
            tooDeep = true
            parser.abortParsing()
            return
        }
        var prefixes = stack.last?.prefixes ?? [:]
        prefixes.merge(pendingPrefixes) { _, new in new }
        pendingPrefixes = [:]
        stack.append(
            Open(
                namespace: namespaceURI ?? "",
                name: elementName,
                qualifiedName: qualifiedName ?? elementName,
                attributes: attributes,
                prefixes: prefixes
            )
        )
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard let open = stack.popLast() else { return }
        let element = DAVElement(
            namespace: open.namespace,
            name: open.name,
            children: open.children,
            text: open.text,
            xml: Self.serialize(open)
        )
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    /// The element written again with its own namespace declared, so it stands alone when a
    /// dead property is given back.
    private static func serialize(_ open: Open) -> String {
        var out = "<\(escape(open.name)) xmlns=\"\(escape(open.namespace))\""
        for (key, value) in open.attributes.sorted(by: { $0.key < $1.key }) where !key.hasPrefix("xmlns") {
            out += " \(escape(key))=\"\(escape(value))\""
        }
        let inner = open.children.map(\.xml).joined() + escape(open.children.isEmpty ? open.text : "")
        return out + (inner.isEmpty ? "/>" : ">\(inner)</\(escape(open.name))>")
    }

    static func escape(_ text: String) -> String { DAVMultistatus.escape(text) }
}
