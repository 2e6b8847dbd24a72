import GatewayPDF
import Testing

@Suite struct XMPConformanceTests {
    static let namespace = "xmlns:pdfaid=\"http://www.aiim.org/pdfa/ns/id/\""

    @Test(arguments: [
        ("<rdf:Description \(namespace) pdfaid:part=\"2\" pdfaid:conformance=\"B\"/>", "2B"),
        ("<rdf:Description \(namespace)><pdfaid:part>1</pdfaid:part><pdfaid:conformance>A</pdfaid:conformance></rdf:Description>", "1A"),
        ("<rdf:Description \(namespace)>\n  <pdfaid:part>\n 3 \n</pdfaid:part>\n  <pdfaid:conformance>u</pdfaid:conformance>", "3U"),
        ("<rdf:Description \(namespace) pdfaid:part = '4'/>", "4"),
        ("<rdf:Description xmlns:id=\"http://www.aiim.org/pdfa/ns/id/\" id:part=\"2\" id:conformance=\"b\"/>", "2B"),
    ])
    func declaredLevels(xmp: String, expected: String) {
        #expect(XMPConformance.pdfaLevel(xmp: xmp) == expected)
    }

    @Test(arguments: [
        "",
        "<x:xmpmeta><rdf:Description dc:format=\"application/pdf\"/></x:xmpmeta>",
        "<rdf:Description xpdfaid:part=\"2\"/>",
        "<rdf:Description pdfaid:partial=\"2\"/>",
        "<rdf:Description pdfaid:part=\"\"/>",
    ])
    func undeclared(xmp: String) {
        #expect(XMPConformance.pdfaLevel(xmp: xmp) == nil)
    }
}
