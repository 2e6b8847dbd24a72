"""What a font lookup costs fontconfig with every installed face and with the Type 1 faces
left out, as the gateway's fonts.conf leaves them out (GatewayFonts/FontConfigurationFile):
libfontconfig's own FcFontSort and FcFontMatch (what Chromium and LibreOffice call per family
and per fallback), timed over ten common families. Prints `fontconfig.<key> <value>` lines for
scripts/bench/bench.sh.

    python3 scripts/bench/fontconfig-lookups.py [ROUNDS]
"""
import ctypes
import os
import sys
import tempfile
import time

fc = ctypes.CDLL("libfontconfig.so.1")
fc.FcConfigCreate.restype = ctypes.c_void_p
fc.FcConfigParseAndLoad.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
fc.FcConfigBuildFonts.argtypes = [ctypes.c_void_p]
fc.FcConfigGetFonts.restype = ctypes.c_void_p
fc.FcConfigGetFonts.argtypes = [ctypes.c_void_p, ctypes.c_int]
fc.FcNameParse.restype = ctypes.c_void_p
fc.FcNameParse.argtypes = [ctypes.c_char_p]
fc.FcConfigSubstitute.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
fc.FcDefaultSubstitute.argtypes = [ctypes.c_void_p]
fc.FcFontSort.restype = ctypes.c_void_p
fc.FcFontSort.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
fc.FcFontMatch.restype = ctypes.c_void_p
fc.FcFontMatch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
fc.FcFontSetDestroy.argtypes = [ctypes.c_void_p]
fc.FcPatternDestroy.argtypes = [ctypes.c_void_p]


class FontSet(ctypes.Structure):
    _fields_ = [("nfont", ctypes.c_int), ("sfont", ctypes.c_int), ("fonts", ctypes.c_void_p)]


FAMILIES = [b"Arial", b"Times New Roman", b"sans-serif", b"serif", b"Helvetica Neue", b"monospace",
            b"Segoe UI", b"Georgia", b"system-ui", b"Roboto"]
NO_TYPE1 = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <selectfont><rejectfont><pattern>
    <patelt name="fontformat"><string>Type 1</string></patelt>
  </pattern></rejectfont></selectfont>
</fontconfig>
"""


def measure(path: str, rounds: int) -> tuple:
    config = fc.FcConfigCreate()
    if not fc.FcConfigParseAndLoad(config, path.encode(), 1):
        sys.exit(f"fontconfig-lookups: fontconfig cannot read {path}")
    fc.FcConfigBuildFonts(config)
    faces = ctypes.cast(fc.FcConfigGetFonts(config, 0), ctypes.POINTER(FontSet)).contents.nfont
    result = ctypes.c_int()

    def each(lookup) -> float:
        started = time.perf_counter()
        for _ in range(rounds):
            for family in FAMILIES:
                pattern = fc.FcNameParse(family)
                fc.FcConfigSubstitute(config, pattern, 0)
                fc.FcDefaultSubstitute(pattern)
                lookup(pattern)
                fc.FcPatternDestroy(pattern)
        return (time.perf_counter() - started) * 1e6 / (rounds * len(FAMILIES))

    sort = each(lambda p: fc.FcFontSetDestroy(fc.FcFontSort(config, p, 0, None, ctypes.byref(result))))
    match = each(lambda p: fc.FcPatternDestroy(fc.FcFontMatch(config, p, ctypes.byref(result))))
    return faces, sort, match


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    with tempfile.TemporaryDirectory() as work:
        trimmed = os.path.join(work, "fonts.conf")
        with open(trimmed, "w") as out:
            out.write(NO_TYPE1)
        for name, path in (("all", "/etc/fonts/fonts.conf"), ("no_type1", trimmed)):
            faces, sort, match = measure(path, rounds)
            print(f"fontconfig.faces_{name} {faces}")
            print(f"fontconfig.sort_us_{name} {sort:.1f}")
            print(f"fontconfig.match_us_{name} {match:.1f}")


main()
