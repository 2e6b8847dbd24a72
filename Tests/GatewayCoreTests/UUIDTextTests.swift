import Foundation
import GatewayLibraryModel
import Testing

/// The hand-written id reader and writer (`UUID(catalogText:)`, `lowercased`) agree with
/// Foundation's, and refuse what Foundation refuses.
@Suite("Ids as text")
struct UUIDTextTests {
    @Test func idsReadBackAsFoundationReadsThem() {
        for _ in 0..<200 {
            let id = UUID()
            #expect(id.lowercased == id.uuidString.lowercased())
            #expect(UUID(catalogText: id.lowercased) == id)
            #expect(UUID(catalogText: id.uuidString) == id, "upper case too")
        }
    }

    @Test(arguments: [
        "", "not an id", "0a0b0c0d-0e0f-1011-1213-14151617181g", "0a0b0c0d00e0f-1011-1213-141516171819",
        "0a0b0c0d-0e0f-1011-1213-1415161718190", "0a0b0c0d-0e0f-1011-1213-14151617181", "0a0b0c0d-0e0f-1011-1213_141516171819",
    ])
    func whatIsNotAnIdIsRefused(_ text: String) {
        #expect(UUID(catalogText: text) == nil)
        #expect(UUID(uuidString: text) == nil, "Foundation agrees")
    }
}
