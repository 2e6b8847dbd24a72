"""Just enough PNG decoding for the screenshot steps, with the standard library.

The Go steps decode with image.DecodeConfig/image.Decode with only the PNG decoder registered,
so a JPEG or WebP fails there with "image: unknown format"; so it does here. A pixel is read as
Go's color.RGBA() gives it (alpha-premultiplied, 16-bit) shifted down to 8 bits.
"""

from __future__ import annotations

import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"


class ImageError(Exception):
    pass


def _chunks(data: bytes):
    if not data.startswith(SIGNATURE):
        raise ImageError("image: unknown format")
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + length]
        pos += 12 + length


def size(data: bytes) -> tuple[int, int]:
    for kind, body in _chunks(data):
        if kind == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
            return w, h
        break
    raise ImageError("png: invalid format: missing IHDR")


def pixel_hex(data: bytes, x: int, y: int) -> str:
    """'#rrggbb' of the pixel at (x, y), as the Go step prints it."""
    ihdr = plte = trns = None
    idat = bytearray()
    for kind, body in _chunks(data):
        if kind == b"IHDR":
            ihdr = body
        elif kind == b"PLTE":
            plte = body
        elif kind == b"tRNS":
            trns = body
        elif kind == b"IDAT":
            idat.extend(body)
    if ihdr is None:
        raise ImageError("png: invalid format: missing IHDR")
    width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", ihdr[:13])
    if interlace:
        raise ImageError("interlaced PNG: not decoded by this runner")
    if not (0 <= x < width and 0 <= y < height):
        return "#000000"  # Go's At outside the bounds: the zero color
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    bits_pp = channels * depth
    bpp = max(1, bits_pp // 8)
    stride = (width * bits_pp + 7) // 8
    raw = zlib.decompress(bytes(idat))
    prev = bytearray(stride)
    row = bytearray(stride)
    for r in range(y + 1):
        off = r * (stride + 1)
        ftype = raw[off]
        line = raw[off + 1:off + 1 + stride]
        row = bytearray(stride)
        for i in range(stride):
            a = row[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            v = line[i]
            if ftype == 1:
                v += a
            elif ftype == 2:
                v += b
            elif ftype == 3:
                v += (a + b) // 2
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                v += a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            row[i] = v & 0xFF
        prev = row

    def sample(index: int) -> int:
        """Sample `index` of the pixel row, scaled to 16 bits."""
        if depth == 16:
            return (row[index * 2] << 8) | row[index * 2 + 1]
        if depth == 8:
            return row[index] * 0x101
        bit = index * depth
        v = (row[bit // 8] >> (8 - depth - bit % 8)) & ((1 << depth) - 1)
        return v if ctype == 3 else v * 0xFFFF // ((1 << depth) - 1)

    if ctype == 3:
        idx = sample(x)
        if plte is None or idx * 3 + 2 >= len(plte):
            raise ImageError("png: invalid format: palette index out of range")
        r, g, b = (plte[idx * 3 + k] * 0x101 for k in range(3))
        a = (trns[idx] * 0x101) if trns is not None and idx < len(trns) else 0xFFFF
    elif ctype in (0, 4):
        r = g = b = sample(x * channels)
        a = sample(x * channels + 1) if ctype == 4 else 0xFFFF
    else:
        r, g, b = (sample(x * channels + k) for k in range(3))
        a = sample(x * channels + 3) if ctype == 6 else 0xFFFF
    # color.NRGBA(64).RGBA(): premultiplied by alpha.
    r, g, b = (v * a // 0xFFFF for v in (r, g, b))
    return f"#{r >> 8:02x}{g >> 8:02x}{b >> 8:02x}"
