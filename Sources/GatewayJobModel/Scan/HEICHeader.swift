/// A HEIC's size: the largest `ispe` (image spatial extents) property among its items. The
/// primary image of a phone photo is a grid of tiles, each with its own `ispe`, and the grid's
/// own is the largest.
enum HEICHeader {
    static func parse(_ bytes: [UInt8]) throws(ImageHeader.Problem) -> ImageHeader {
        let ispe = Array("ispe".utf8)
        var (width, height) = (0, 0)
        var at = 12
        while at + 16 <= bytes.count {
            if bytes[at] == ispe[0], Array(bytes[at..<at + 4]) == ispe {
                // After the type: version and flags (4 bytes), width, height.
                // Below 2³¹ each, so their product cannot overflow; the limits refuse such sizes anyway.
                let w = Int(min(ByteReader.big32(bytes, at + 8), UInt32(Int32.max)))
                let h = Int(min(ByteReader.big32(bytes, at + 12), UInt32(Int32.max)))
                if w * h > width * height { (width, height) = (w, h) }
                at += 16
            } else {
                at += 1
            }
        }
        guard width > 0, height > 0 else {
            throw .notAnImage("is a HEIC whose size was not found in its first \(ImageHeader.headLength / 1024 / 1024) MiB; it is damaged")
        }
        return ImageHeader(format: .heic, width: width, height: height)
    }
}
