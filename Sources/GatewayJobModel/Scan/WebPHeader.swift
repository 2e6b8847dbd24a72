/// A WebP's canvas size, from its first chunk: `VP8 ` (lossy), `VP8L` (lossless) or `VP8X`
/// (extended: alpha, animation, metadata).
enum WebPHeader {
    static func parse(_ bytes: [UInt8]) throws(ImageHeader.Problem) -> ImageHeader {
        guard bytes.count >= 30 else { throw .notAnImage("is a WebP too short to hold its size; it is damaged") }
        let chunk = String(decoding: bytes[12..<16], as: UTF8.self)
        switch chunk {
        case "VP8 ":
            // The frame tag (3 bytes) and start code 9d 01 2a, then 14-bit width and height.
            guard bytes[23] == 0x9D, bytes[24] == 0x01, bytes[25] == 0x2A else { throw .notAnImage("is a WebP whose frame is damaged") }
            return ImageHeader(
                format: .webp,
                width: Int(ByteReader.little16(bytes, 26) & 0x3FFF),
                height: Int(ByteReader.little16(bytes, 28) & 0x3FFF)
            )
        case "VP8L":
            guard bytes[20] == 0x2F else { throw .notAnImage("is a WebP whose frame is damaged") }
            let bits = ByteReader.little32(bytes, 21)
            return ImageHeader(format: .webp, width: Int(bits & 0x3FFF) + 1, height: Int((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            return ImageHeader(format: .webp, width: Int(ByteReader.little24(bytes, 24)) + 1, height: Int(ByteReader.little24(bytes, 27)) + 1)
        default:
            throw .notAnImage("is a WebP whose first chunk '\(chunk)' holds no image")
        }
    }
}
