import Foundation

/// A TIFF's image file directories: one per frame (each becomes a page), each giving its width
/// and length. The same structure carries a JPEG's EXIF data, whose first directory holds the
/// orientation.
enum TIFFHeader {
    /// More frames than this is no document scan: refused before img2pdf makes that many pages.
    static let maxFrames = 1000

    /// The TIFF's frames, reading directories from the file wherever they are (`rest`), since
    /// writers often put them after the image data.
    static func parse(_ head: [UInt8], rest: FileHandle?) throws(ImageHeader.Problem) -> ImageHeader {
        let reader = Reader(head: head, file: rest)
        var offset = Int(reader.u32(4))
        var visited: Set<Int> = []
        var (frames, width, height, bits) = (0, 0, 0, 1)
        while offset != 0 {
            guard offset >= 8, visited.insert(offset).inserted else { throw .notAnImage("is a TIFF whose directories are damaged") }
            frames += 1
            guard frames <= maxFrames else {
                throw ImageHeader.Problem(code: "image_too_large", message: "is a TIFF of more than \(maxFrames) frames; split it into several scans")
            }
            let entries = Int(reader.u16(offset))
            guard entries > 0, entries < 4096 else { throw .notAnImage("is a TIFF whose directories are damaged") }
            var (frameWidth, frameHeight) = (0, 0)
            for index in 0..<entries {
                let entry = offset + 2 + index * 12
                let tag = reader.u16(entry)
                if tag == 258 {
                    // BitsPerSample: one SHORT per sample, in the entry when it fits (1 or 2),
                    // else at an offset; every sample of a frame has the same depth in practice.
                    let count = reader.u32(entry + 4)
                    let at = count <= 2 ? entry + 8 : Int(reader.u32(entry + 8))
                    bits = max(bits, Int(reader.u16(at)))
                    continue
                }
                guard tag == 256 || tag == 257 else { continue }
                // SHORT (3) or LONG (4), one value, held in the entry itself.
                // Below 2³¹, so width × height cannot overflow; the limits refuse such sizes anyway.
                let value = Int(min(reader.u16(entry + 2) == 3 ? reader.u16(entry + 8) : reader.u32(entry + 8), UInt32(Int32.max)))
                if tag == 256 { frameWidth = value } else { frameHeight = value }
            }
            guard frameWidth > 0, frameHeight > 0 else { throw .notAnImage("is a TIFF with a frame of no size; it is damaged") }
            // The largest frame decides the limits.
            if frameWidth * frameHeight > width * height { (width, height) = (frameWidth, frameHeight) }
            offset = Int(reader.u32(offset + 2 + entries * 12))
        }
        guard frames > 0 else { throw .notAnImage("is a TIFF with no frames") }
        return ImageHeader(format: .tiff, width: width, height: height, frames: frames, bitsPerSample: bits)
    }

    /// Tag 0x0112 of an EXIF block's first directory, when it holds 1–8.
    static func orientation(inExif tiff: [UInt8]) -> Int? {
        guard tiff.count >= 8 else { return nil }
        let reader = Reader(head: tiff, file: nil)
        let first = Int(reader.u32(4))
        let entries = Int(reader.u16(first))
        guard entries > 0, entries < 1024 else { return nil }
        for index in 0..<entries {
            let entry = first + 2 + index * 12
            if reader.u16(entry) == 0x0112 {
                let value = Int(reader.u16(entry + 8))
                return (1...8).contains(value) ? value : nil
            }
        }
        return nil
    }

    /// Integers at file offsets in the byte order the header names ("II" little, "MM" big):
    /// from the head when it holds them, else read from the file.
    struct Reader {
        let head: [UInt8]
        let file: FileHandle?
        let little: Bool

        init(head: [UInt8], file: FileHandle?) {
            self.head = head
            self.file = file
            little = head.first == UInt8(ascii: "I")
        }

        func bytes(_ offset: Int, _ count: Int) -> [UInt8] {
            if offset >= 0, offset + count <= head.count { return Array(head[offset..<offset + count]) }
            guard let file, offset >= 0, (try? file.seek(toOffset: UInt64(offset))) != nil,
                let data = try? file.read(upToCount: count), data.count == count
            else { return [UInt8](repeating: 0, count: count) }
            return [UInt8](data)
        }

        func u16(_ offset: Int) -> UInt32 {
            let b = bytes(offset, 2)
            return little ? ByteReader.little16(b, 0) : ByteReader.big16(b, 0)
        }

        func u32(_ offset: Int) -> UInt32 {
            let b = bytes(offset, 4)
            return little ? ByteReader.little32(b, 0) : ByteReader.big32(b, 0)
        }
    }
}
