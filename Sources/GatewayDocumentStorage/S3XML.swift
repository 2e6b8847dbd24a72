import Foundation
import FoundationXML

/// The few elements the client reads from S3's XML answers (error codes, listings, upload ids),
/// collected by name: S3's documents are flat enough that an element's name says what it is.
struct S3XML {
    /// Text of each element, in document order, by element name.
    private(set) var values: [String: [String]] = [:]
    /// The `Contents` entries of a listing, each as its children's texts.
    private(set) var contents: [[String: String]] = []

    init(_ bytes: [UInt8]) {
        let collector = Collector()
        let parser = XMLParser(data: Data(bytes))
        parser.delegate = collector
        parser.shouldResolveExternalEntities = false
        _ = parser.parse()
        values = collector.values
        contents = collector.contents
    }

    func first(_ name: String) -> String? { values[name]?.first }

    private final class Collector: NSObject, XMLParserDelegate {
        var values: [String: [String]] = [:]
        var contents: [[String: String]] = []
        private var text = ""
        private var entry: [String: String]?

        func parser(
            _ parser: XMLParser,
            didStartElement name: String,
            namespaceURI: String?,
            qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            text = ""
            if name == "Contents" { entry = [:] }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "Contents", let done = entry {
                contents.append(done)
                entry = nil
            } else if entry != nil {
                entry?[name] = text
            } else {
                values[name, default: []].append(text)
            }
            text = ""
        }
    }
}
