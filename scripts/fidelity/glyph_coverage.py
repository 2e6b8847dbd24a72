#!/usr/bin/python3
"""Checks, per page of a PDF, which fonts draw which characters and whether any drew tofu (issue 60).

    /usr/bin/python3 scripts/fidelity/glyph_coverage.py PDF [--samples JSON_FILE] [--document NAME]

Needs pikepdf (Debian's python3-pikepdf) and fontconfig's fc-list. For every page it walks the
content stream (and the form XObjects it draws) and, per font, records:

- the characters drawn: each shown code through the font's /ToUnicode CMap, plus the text of any
  enclosing `/Span <</ActualText (...)>>` (Chromium and calibre (Skia) map glyphs reached through
  shaping to U+0000 or to Kangxi radicals and put the real text there), NFKC-normalised;
- the `.notdef` (glyph 0) uses, i.e. tofu: in a Type0 font (two-byte codes, Identity-H) code 0;
  in a Type 3 font (Skia's) a code whose /Encoding /Differences name is /g0 or /.notdef; in a
  Type 1 font (LibreOffice's subsets) a code that the embedded program's encoding maps to /.notdef;
- the characters that the installed font of the same PostScript name does not cover. The name is
  /BaseFont (of the descendant font for Type0) or else the /FontDescriptor's /FontName, without
  its `ABCDEF+` subset prefix; if fontconfig knows no font of that name, the name without a
  `-VKana` suffix (LibreOffice names CFF CJK fonts after a sub-font) is tried. A font that is not
  installed under either name is not checked. Variation selectors (U+FE0E, U+FE0F), ZWNJ and ZWJ
  (U+200C, U+200D), spaces and control characters are not checked: they need no glyph of their own.

fc-list is run once (`fc-list --format '%{postscriptname}\\t%{charset}\\n'`) with the inherited
environment, so a caller's FONTCONFIG_FILE (or FONTCONFIG_PATH) decides which fonts are "installed",
as it does for the converters. Names are compared as fontconfig compares them: ignoring case and
blanks; a name that several font files carry covers the union of their charsets.

--samples JSON_FILE adds per-character checks of known text (Fixtures/scripts): either a
samples.json (`{KEY: {lang, sample, page}}`), or a documents.json
(`{FILE: {converter, samples: [{lang, font, sample, page}]}}`) from which --document FILE picks one
document; its samples' keys are `FILE:LANG`. A sample character passes when at least one font that
drew it on its page is installed and covers it.

Prints one JSON object:

    {"pages": [{"page": N, "notdef": K,
                "fonts": [{"name": STR, "type": STR, "glyphs": INT, "notdef": INT, "uncovered": STR}]}],
     "samples": [{"key": STR, "char": STR, "page": N, "drawn_by": [NAME, ...], "covered": BOOL}],
     "problems": INT}

`type` is the font's /Subtype without the slash (Type0, Type1, Type3, TrueType); `glyphs` the number
of codes the font showed on the page; `uncovered` its checked characters that its installed font
lacks, sorted. `problems` is every page's notdef plus every font's uncovered characters plus every
sample character that is not covered (a sample on a page the PDF does not have is not covered).
The exit status is 0 whenever the PDF was read, whatever `problems` is; 2 on a usage error or an
unreadable PDF, samples file or font list, with a message on stderr.
"""

import argparse
import bisect
import functools
import json
import re
import subprocess
import sys
import unicodedata

import pikepdf

# Characters that select or join glyphs rather than have one of their own: never "uncovered".
IGNORED = frozenset("\ufe0e\ufe0f\u200c\u200d")
SUBSET_PREFIX = re.compile(r"^[A-Z]{6}\+")


class Failure(Exception):
    """A usage or read error: reported on stderr, exit status 2."""


# --- ToUnicode and font dictionaries ---------------------------------------------------------

HEX = r"<([0-9A-Fa-f]*)>"


def utf16(hexstring):
    return bytes.fromhex(hexstring if len(hexstring) % 2 == 0 else hexstring + "0").decode("utf-16-be", "replace")


def offset(text, i):
    """`text` with its last character advanced by i, as a bfrange maps its i-th code."""
    if not text:
        return ""
    cp = ord(text[-1]) + i
    return text[:-1] + (chr(cp) if cp < 0x110000 and not 0xD800 <= cp < 0xE000 else "\ufffd")


def parse_cmap(data):
    """A ToUnicode CMap's bfchar and bfrange entries as {code: text}."""
    mapping = {}
    text = data.decode("latin-1")
    for block in re.findall(r"beginbfchar(.*?)endbfchar", text, re.S):
        for src, dst in re.findall(HEX + r"\s*" + HEX, block):
            mapping[int(src or "0", 16)] = utf16(dst)
    for block in re.findall(r"beginbfrange(.*?)endbfrange", text, re.S):
        for a, b, dst, array in re.findall(HEX + r"\s*" + HEX + r"\s*(?:" + HEX + r"|\[([^\]]*)\])", block):
            first, last = int(a or "0", 16), int(b or "0", 16)
            if array:
                for code, item in zip(range(first, last + 1), re.findall(HEX, array)):
                    mapping[code] = utf16(item)
            else:
                base = utf16(dst)
                for i, code in enumerate(range(first, last + 1)):
                    mapping[code] = offset(base, i)
    return mapping


class FontInfo:
    """What the checks need of one font dictionary."""

    def __init__(self, font):
        self.type = str(font.get("/Subtype", "/Unknown")).lstrip("/")
        self.two_byte = self.type == "Type0"
        if self.two_byte:
            descendant = font.DescendantFonts[0]
            name = str(descendant.get("/BaseFont", font.get("/BaseFont", "")))
        else:
            name = str(font.get("/BaseFont", ""))
            if not name and "/FontDescriptor" in font:
                name = str(font.FontDescriptor.get("/FontName", ""))
        self.name = name.lstrip("/")
        self.to_unicode = parse_cmap(font.ToUnicode.read_bytes()) if "/ToUnicode" in font else {}
        self.notdef_codes = set()
        descriptor = font.get("/FontDescriptor")
        if self.type == "Type1" and descriptor is not None and "/FontFile" in descriptor:
            head = descriptor.FontFile.read_bytes()[:20000]
            self.notdef_codes = {int(c) for c in re.findall(rb"dup (\d+) ?/\.notdef put", head)}
        encoding = font.get("/Encoding")
        if self.type == "Type3" and isinstance(encoding, pikepdf.Dictionary) and "/Differences" in encoding:
            code = 0
            for item in encoding.Differences:
                if isinstance(item, pikepdf.Name):
                    if str(item) in ("/g0", "/.notdef"):
                        self.notdef_codes.add(code)
                    code += 1
                else:
                    code = int(item)

    def codes(self, data):
        if self.two_byte:
            return [int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2)]
        return list(data)

    def is_notdef(self, code):
        return code == 0 if self.two_byte else code in self.notdef_codes


# --- Content streams -------------------------------------------------------------------------

class FontUse:
    """One font dictionary's use on one page."""

    def __init__(self, info):
        self.info = info
        self.texts = []
        self.glyphs = 0
        self.notdef = 0


def font_key(font):
    return font.objgen if font.is_indirect else font.unparse()


def walk(owner, resources, uses, infos, seen_forms):
    """Adds the text that `owner` (a page or form XObject) shows to `uses`, by font."""
    fonts = resources.get("/Font", {})
    properties = resources.get("/Properties", {})
    current = None
    actual = []  # the marked-content stack: the ActualText of each open span, or None
    for operands, operator in pikepdf.parse_content_stream(owner):
        op = str(operator)
        if op == "BMC":
            actual.append(None)
        elif op == "BDC":
            props = operands[1] if len(operands) > 1 else None
            if isinstance(props, pikepdf.Name):
                props = properties.get(props)
            has_text = isinstance(props, pikepdf.Dictionary) and "/ActualText" in props
            actual.append(str(props.ActualText) if has_text else None)
        elif op == "EMC":
            if actual:
                actual.pop()
        elif op == "Tf":
            font = fonts.get(operands[0])
            current = None
            if isinstance(font, pikepdf.Dictionary):
                key = font_key(font)
                if key not in infos:
                    infos[key] = FontInfo(font)
                if key not in uses:
                    uses[key] = FontUse(infos[key])
                current = uses[key]
        elif op in ("Tj", "'", '"', "TJ") and current is not None:
            if op == "TJ":
                strings = [bytes(x) for x in operands[0] if isinstance(x, pikepdf.String)]
            else:
                strings = [bytes(operands[-1])]
            info = current.info
            for data in strings:
                for code in info.codes(data):
                    current.glyphs += 1
                    if info.is_notdef(code):
                        current.notdef += 1
                    current.texts.append(info.to_unicode.get(code, ""))
            if actual and actual[-1]:
                current.texts.append(actual[-1])
        elif op == "Do":
            xobject = resources.get("/XObject", {}).get(operands[0])
            if (isinstance(xobject, pikepdf.Stream) and xobject.get("/Subtype") == "/Form"
                    and xobject.objgen not in seen_forms):
                seen_forms.add(xobject.objgen)
                walk(xobject, xobject.get("/Resources", resources), uses, infos, seen_forms)


# --- fontconfig ------------------------------------------------------------------------------

def fc_key(name):
    # fontconfig compares postscriptname ignoring case and blanks.
    return name.replace(" ", "").lower()


@functools.lru_cache(maxsize=None)
def installed_charsets():
    """{postscript name (fc_key): (range starts, range ends)} of every font fc-list lists."""
    try:
        listing = subprocess.run(["fc-list", "--format", "%{postscriptname}\t%{charset}\n"],
                                 capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        raise Failure(f"fc-list failed: {error}")
    ranges = {}
    for line in listing.splitlines():
        name, _, charset = line.partition("\t")
        if not name:
            continue
        spans = ranges.setdefault(fc_key(name), [])
        for token in charset.split():
            first, _, last = token.partition("-")
            spans.append((int(first, 16), int(last or first, 16)))
    charsets = {}
    for name, spans in ranges.items():
        merged = []
        for first, last in sorted(spans):
            if merged and first <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], last)
            else:
                merged.append([first, last])
        charsets[name] = ([a for a, _ in merged], [b for _, b in merged])
    return charsets


@functools.lru_cache(maxsize=None)
def installed_name(psname):
    """The fc_key of the installed font that stands for the PDF font `psname`, or None."""
    base = SUBSET_PREFIX.sub("", psname)
    charsets = installed_charsets()
    for candidate in (base, re.sub(r"-VKana$", "", base)):
        if fc_key(candidate) in charsets:
            return fc_key(candidate)
    return None


@functools.lru_cache(maxsize=None)
def covers(psname, char):
    """Whether the installed font of `psname` has `char`; None when no such font is installed."""
    name = installed_name(psname)
    if name is None:
        return None
    starts, ends = installed_charsets()[name]
    i = bisect.bisect_right(starts, ord(char)) - 1
    return i >= 0 and ord(char) <= ends[i]


def checked(char):
    return char != " " and char not in IGNORED and unicodedata.category(char) != "Cc"


# --- Report ----------------------------------------------------------------------------------

def load_samples(path, document):
    """[(key, sample text, page)] from a samples.json or (with `document`) a documents.json."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as error:
        raise Failure(f"cannot read samples {path}: {error}")
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise Failure(f"{path}: expected a JSON object of objects")
    is_documents = any("samples" in v for v in data.values())
    try:
        if is_documents:
            if document is None:
                raise Failure(f"{path} describes documents: choose one with --document ({', '.join(sorted(data))})")
            if document not in data:
                raise Failure(f"{path} has no document {document!r} (it has {', '.join(sorted(data))})")
            return [(f"{document}:{s['lang']}", s["sample"], int(s["page"])) for s in data[document]["samples"]]
        if document is not None:
            raise Failure(f"--document {document}: {path} is not a documents.json")
        return [(key, s["sample"], int(s["page"])) for key, s in data.items()]
    except (KeyError, TypeError, ValueError) as error:
        raise Failure(f"{path}: malformed sample ({error!r})")


def check(path, samples):
    try:
        pdf = pikepdf.open(path)
    except (OSError, pikepdf.PdfError) as error:
        raise Failure(f"cannot read {path}: {error}")
    pages, drawn = [], {}  # drawn: page number -> {(name, type): set of chars}
    infos = {}
    problems = 0
    with pdf:
        for number, page in enumerate(pdf.pages, 1):
            uses = {}
            try:
                walk(page, page.resources, uses, infos, set())
            except pikepdf.PdfError as error:
                raise Failure(f"cannot read page {number} of {path}: {error}")
            by_font = {}
            for use in uses.values():
                entry = by_font.setdefault((use.info.name, use.info.type), [set(), 0, 0])
                entry[0].update(unicodedata.normalize("NFKC", "".join(use.texts)))
                entry[1] += use.glyphs
                entry[2] += use.notdef
            fonts = []
            for (name, type_), (chars, glyphs, notdef) in sorted(by_font.items()):
                uncovered = "".join(sorted(c for c in chars if checked(c) and covers(name, c) is False))
                fonts.append({"name": name, "type": type_, "glyphs": glyphs, "notdef": notdef, "uncovered": uncovered})
                problems += notdef + len(uncovered)
            pages.append({"page": number, "notdef": sum(f["notdef"] for f in fonts), "fonts": fonts})
            drawn[number] = on_page = {}
            for (name, _), (chars, _, _) in by_font.items():
                on_page.setdefault(name, set()).update(chars)
    results = []
    for key, sample, number in samples:
        on_page = drawn.get(number, {})
        for char in sample:
            if not checked(char):
                continue
            drawers = sorted({name for name, chars in on_page.items() if char in chars})
            covered = any(covers(name, char) for name in drawers)
            problems += not covered
            results.append({"key": key, "char": char, "page": number, "drawn_by": drawers, "covered": covered})
    return {"pages": pages, "samples": results, "problems": problems}


def main(argv=None):
    parser = argparse.ArgumentParser(description="Per page of PDF: the fonts drawing each character, "
                                     ".notdef uses and characters the installed fonts lack, as JSON.")
    parser.add_argument("pdf", metavar="PDF")
    parser.add_argument("--samples", metavar="JSON_FILE", help="samples.json or documents.json (Fixtures/scripts)")
    parser.add_argument("--document", metavar="NAME", help="the document of a documents.json, e.g. cjk.docx")
    args = parser.parse_args(argv)  # exits 2 on a usage error
    try:
        if args.document is not None and args.samples is None:
            raise Failure("--document needs --samples")
        samples = load_samples(args.samples, args.document) if args.samples else []
        report = check(args.pdf, samples)
    except Failure as error:
        print(f"glyph_coverage.py: {error}", file=sys.stderr)
        return 2
    sys.stdout.buffer.write(json.dumps(report, ensure_ascii=False).encode("utf-8") + b"\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
