import GatewayCore
import Testing

/// The one spelling of duration arithmetic and digest hex the modules share.
@Suite("Duration units and hex")
struct DurationUnitsTests {
    @Test func durationsInTheUnitsCallersNeed() {
        #expect(Duration.milliseconds(1500).inSeconds == 1.5)
        #expect(Duration.milliseconds(1999).inMilliseconds == 1999)
        #expect(Duration.nanoseconds(999_999).inMilliseconds == 0, "rounded down")
        #expect(Duration.seconds(2).inWords == "2 s" && Duration.milliseconds(1500).inWords == "1.5 s")
    }

    @Test func hexIsLowerCaseTwoDigitsPerByte() {
        #expect(hexString([0x00, 0x0F, 0xA5, 0xFF]) == "000fa5ff")
        #expect(hexString([UInt8]()) == "")
    }
}
