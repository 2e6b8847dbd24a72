/// A JPEG's size (its SOFn frame header) and EXIF orientation (APP1), read segment by segment.
enum JPEGHeader {
    static func parse(_ bytes: [UInt8]) throws(ImageHeader.Problem) -> ImageHeader {
        var orientation: Int?
        var at = 2
        while at + 4 <= bytes.count {
            guard bytes[at] == 0xFF else { throw .notAnImage("is a JPEG whose segments are damaged") }
            let marker = bytes[at + 1]
            // Fill bytes, and markers that stand alone (no length follows).
            if marker == 0xFF {
                at += 1
                continue
            }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                at += 2
                continue
            }
            let length = Int(ByteReader.big16(bytes, at + 2))
            guard length >= 2 else { throw .notAnImage("is a JPEG whose segments are damaged") }
            switch marker {
            case 0xC0...0xCF where ![0xC4, 0xC8, 0xCC].contains(marker):
                // SOFn: precision (1 byte), height, width.
                let height = Int(ByteReader.big16(bytes, at + 5))
                let width = Int(ByteReader.big16(bytes, at + 7))
                return ImageHeader(format: .jpeg, width: width, height: height, orientation: orientation)
            case 0xE1 where at + 10 <= bytes.count && Array(bytes[at + 4..<at + 10]) == Array("Exif\0\0".utf8):
                let tiff = Array(bytes[(at + 10)..<min(bytes.count, at + 2 + length)])
                orientation = TIFFHeader.orientation(inExif: tiff)
            case 0xDA, 0xD9:
                throw .notAnImage("is a JPEG with no frame header before its data; it is damaged")
            default:
                break
            }
            at += 2 + length
        }
        throw .notAnImage("is a JPEG whose frame header was not found in its first \(ImageHeader.headLength / 1024 / 1024) MiB; it is damaged")
    }
}
