"""PDF checks with Debian's tools, standing in for Gotenberg's `gotenberg/integration-tools`
container (pdfinfo, pdftotext, pdfimages and veraPDF).

Poppler's tools are the same programs the Go steps run, so their checks are read the same way
(output with stderr folded in, as the container's multiplexed exec gives it). veraPDF is not
installable here; what the steps ask it for is read from the PDF's objects with qpdf's JSON:
  - `--extract outlines`: veraPDF reports the catalog's /Outlines dictionary when there is one;
  - `--extract annotations` (the "flatten" step): veraPDF lists every annotation of every page,
    so a PDF is "flatten" when no page has one;
  - `--extract embeddedFile`: the files of the catalog's /Names /EmbeddedFiles tree, each named
    by its file specification's /UF, else /DOS, /Mac, /Unix, /F (veraPDF's order), with its
    /AFRelationship;
  - validation ("valid PDF/A-1b with a tolerance of N failed rules"): only the document's XMP
    claim (pdfaid:part/conformance, pdfuaid:part) is checked. Results say "XMP claim only".
"""

from __future__ import annotations

import json
import re
import subprocess
import xml.etree.ElementTree as ET

TOOL_TIMEOUT = 120


class CheckError(Exception):
    pass


def run_tool(cmd: list[str]) -> str:
    """The tool's stdout and stderr together, as the Go steps read them."""
    try:
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TOOL_TIMEOUT)
    except FileNotFoundError as e:
        raise CheckError(f"exec {cmd!r}: {e}") from e
    except subprocess.TimeoutExpired as e:
        raise CheckError(f"exec {cmd!r}: timed out after {TOOL_TIMEOUT} s") from e
    return done.stdout.decode("utf-8", errors="replace")


def pdfinfo(path: str, *extra: str) -> str:
    return run_tool(["pdfinfo", *extra, path])


def page_text(path: str, page: int) -> str:
    return run_tool(["pdftotext", "-f", str(page), "-l", str(page), path, "-"])


def image_count(path: str) -> int:
    # pdfimages -list: two header lines, then one line per image.
    lines = run_tool(["pdfimages", "-list", path]).strip().split("\n")
    return len(lines) - 2 if len(lines) > 2 else 0


# -- the PDF's objects, through qpdf's JSON ---------------------------------------------------
_REF = re.compile(r"^\d+ \d+ R$")


class PdfObjects:
    def __init__(self, path: str):
        try:
            done = subprocess.run(
                ["qpdf", "--json=2", "--json-key=qpdf", "--json-key=pages", "--json-stream-data=none", path],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TOOL_TIMEOUT)
        except subprocess.TimeoutExpired as e:
            raise CheckError(f"qpdf --json {path}: timed out") from e
        try:
            data = json.loads(done.stdout)
        except json.JSONDecodeError as e:
            raise CheckError(f"qpdf cannot read {path}: {done.stderr.decode(errors='replace').strip()[:300]}") from e
        objects = data["qpdf"][1]
        self.objects: dict[str, dict] = {}
        for key, entry in objects.items():
            if key.startswith("obj:"):
                self.objects[key[4:]] = entry.get("value", entry.get("stream", {}).get("dict"))
        self.trailer = objects.get("trailer", {}).get("value", {})
        self.page_refs = [p["object"] for p in data.get("pages", [])]

    def resolve(self, value):
        seen = 0
        while isinstance(value, str) and _REF.match(value) and seen < 32:
            value = self.objects.get(value)
            seen += 1
        return value

    def catalog(self) -> dict:
        root = self.resolve(self.trailer.get("/Root"))
        return root if isinstance(root, dict) else {}


def pdf_string(value) -> str | None:
    """qpdf JSON strings are `u:text` or `b:hex`; names `/Name`."""
    if not isinstance(value, str):
        return None
    if value.startswith("u:"):
        return value[2:]
    if value.startswith("b:"):
        raw = bytes.fromhex(value[2:])
        if raw.startswith(b"\xfe\xff"):
            return raw[2:].decode("utf-16-be", errors="replace")
        return raw.decode("latin-1")
    if value.startswith("/"):
        return value[1:]
    return None


def has_outline(path: str) -> bool:
    objs = PdfObjects(path)
    return isinstance(objs.resolve(objs.catalog().get("/Outlines")), dict)


def annotation_count(path: str) -> int:
    objs = PdfObjects(path)
    count = 0
    for ref in objs.page_refs:
        page = objs.resolve(ref) or {}
        annots = objs.resolve(page.get("/Annots"))
        if isinstance(annots, list):
            count += sum(1 for a in annots if isinstance(objs.resolve(a), dict))
    return count


def embedded_files(path: str) -> list[tuple[str | None, str | None]]:
    """(file name as veraPDF reports it, AFRelationship) for each file of the EmbeddedFiles tree."""
    objs = PdfObjects(path)
    names = objs.resolve(objs.catalog().get("/Names"))
    if not isinstance(names, dict):
        return []
    found: list[tuple[str | None, str | None]] = []

    def walk(node, depth=0):
        node = objs.resolve(node)
        if not isinstance(node, dict) or depth > 32:
            return
        kids = objs.resolve(node.get("/Kids"))
        if isinstance(kids, list):
            for kid in kids:
                walk(kid, depth + 1)
        pairs = objs.resolve(node.get("/Names"))
        if isinstance(pairs, list):
            for value in pairs[1::2]:
                spec = objs.resolve(value)
                if not isinstance(spec, dict):
                    continue
                name = None
                for key in ("/UF", "/DOS", "/Mac", "/Unix", "/F"):
                    name = pdf_string(objs.resolve(spec.get(key)))
                    if name is not None:
                        break
                found.append((name, pdf_string(objs.resolve(spec.get("/AFRelationship")))))

    walk(names.get("/EmbeddedFiles"))
    return found


# -- XMP claims -------------------------------------------------------------------------------
PDFA_NS = "http://www.aiim.org/pdfa/ns/id/"
PDFUA_NS = "http://www.aiim.org/pdfua/ns/id/"


def _xmp_values(xmp: str, namespace: str, local: str) -> list[str]:
    values: list[str] = []
    try:
        start = xmp.find("<")
        root = ET.fromstring(xmp[start:].strip().encode("utf-8")) if start >= 0 else None
    except ET.ParseError:
        root = None
    if root is not None:
        tag = f"{{{namespace}}}{local}"
        for el in root.iter():
            if tag in el.attrib:
                values.append(el.attrib[tag].strip())
            if el.tag == tag and el.text:
                values.append(el.text.strip())
        return values
    # Not well-formed: read it as text, with the usual prefixes.
    prefix = "pdfaid" if namespace == PDFA_NS else "pdfuaid"
    values += re.findall(rf'{prefix}:{local}\s*=\s*["\']([^"\']*)["\']', xmp)
    values += re.findall(rf"<{prefix}:{local}>\s*([^<]*?)\s*</{prefix}:{local}>", xmp)
    return values


def check_validity_claim(path: str, standard: str) -> None:
    """Raises CheckError unless the XMP claims `standard` (PDF/A-1b, -2b, -3b, PDF/UA-1, -2)."""
    xmp = pdfinfo(path, "-meta")
    m = re.fullmatch(r"PDF/A-([123])b", standard)
    if m:
        part = m.group(1)
        parts = _xmp_values(xmp, PDFA_NS, "part")
        levels = [v.upper() for v in _xmp_values(xmp, PDFA_NS, "conformance")]
        accepted = {"A", "B"} if part == "1" else {"A", "B", "U"}  # a stricter level passes b's rules
        if part not in parts or not (set(levels) & accepted):
            raise CheckError(f"XMP claims pdfaid:part={parts or 'none'} conformance={levels or 'none'}, "
                             f"not {standard} (XMP claim only; veraPDF not available)")
        return
    m = re.fullmatch(r"PDF/UA-([12])", standard)
    if m:
        parts = _xmp_values(xmp, PDFUA_NS, "part")
        if m.group(1) not in parts:
            raise CheckError(f"XMP claims pdfuaid:part={parts or 'none'}, not {standard} "
                             f"(XMP claim only; veraPDF not available)")
        return
    raise CheckError(f"unknown {standard!r}")
