#!/usr/bin/python3
"""Builds the Word page-count corpus (issue 60): Word- and PowerPoint-saved files with the page
or slide count their application recorded.

    /usr/bin/python3 scripts/fidelity/word_corpus.py [CACHE_DIR]      (default .build/fidelity)

Downloads the pinned sdists below once into CACHE_DIR/sdists (sha256-checked), extracts every
.docx/.pptx whose docProps/app.xml names Microsoft Word or PowerPoint into CACHE_DIR/files, and
writes CACHE_DIR/manifest.json: [{file, sha256, source, application, kind, expected}], `file`
relative to CACHE_DIR. A second run with the same pins and rules returns at once.

Which files are kept (the rest are reported with the reason, with --verbose):
- <Application> is Microsoft Word / Microsoft Office Word / Microsoft Macintosh Word (and the
  PowerPoint equivalents): LibreOffice, WPS, pandoc and the like never computed a Word layout.
- The expected count exists and is positive (<Pages> for .docx; <Slides> minus <HiddenSlides>
  for .pptx, since hidden slides are not printed or exported by either application).
- Nothing rewrote the text after Word counted it. Tools that edit a package (python-docx,
  docxtpl, python-pptx) copy app.xml untouched, so its statistics go stale:
  * core.xml's lastModifiedBy or app.xml's Template names such a tool (not dc:creator: files
    begun from python-docx's or python-pptx's template keep it after Word saved them);
  * the package is a library's own blank template (docx/templates, pptx/templates) or test
    output (features/_scratch);
  * .docx: the words and non-space characters counted in word/document.xml (text boxes
    once, deleted text not, paragraphs and tabs and breaks as separators) must be within
    5 words + 25 % of <Words> and 25 characters + 25 % of <Characters>. Word's own counting
    differs in small ways (fields, numbering, symbols), which the slack absorbs; a tool's
    substitution (a template filled in, a paragraph added or removed) rarely stays inside it;
  * .pptx: the number of slides in ppt/presentation.xml must equal <Slides>.
- Files are deduplicated by sha256 (first source in PINS order wins).
"""

import hashlib, io, json, os, re, sys, tarfile, urllib.request, zipfile
import xml.etree.ElementTree as ElementTree

# (name, version, sdist URL, sha256). Only sdists that ship Word-saved test documents.
PINS = [
    ("python-docx", "1.2.0", "https://files.pythonhosted.org/packages/a9/f7/eddfe33871520adab45aaa1a71f0402a2252050c14c7e3009446c8f4701c/python_docx-1.2.0.tar.gz", "7bc9d7b7d8a69c9c02ca09216118c86552704edc23bac179283f2e38f86220ce"),
    ("python-pptx", "1.0.2", "https://files.pythonhosted.org/packages/52/a9/0c0db8d37b2b8a645666f7fd8accea4c6224e013c42b1d5c17c93590cd06/python_pptx-1.0.2.tar.gz", "479a8af0eaf0f0d76b6f00b0887732874ad2e3188230315290cd1f9dd9cc7095"),
    ("docx2python", "3.6.2", "https://files.pythonhosted.org/packages/5e/4e/955eec21dc5d68b42f163e3c12b9a556c0909bb83a2f2af5a7b129f7a57a/docx2python-3.6.2.tar.gz", "321474584384d6472a74211d2524b6580c4abcd72db8c3e27d2a6ef38b4f484c"),
    ("docxtpl", "0.5.8", "https://files.pythonhosted.org/packages/be/70/491e946fbc9b19f524b4b399da968e36a565699076d3d113e7bf5d0f5c28/docxtpl-0.5.8.tar.gz", "f1307246fe13f690fb6513239e2c94e9680cf3ba32663debaae170846f4c9f3b"),
    ("PyDocX", "0.9.10", "https://files.pythonhosted.org/packages/2b/c2/015516924e2f671d18371296a62cd0a50842a24eab59844f6c474e9f12e9/PyDocX-0.9.10.tar.gz", "07bd9bce7834f8a5e0b00130f29b54bbdda22d625711a591421913bdfa8470e3"),
    ("PyDocX", "0.3.9", "https://files.pythonhosted.org/packages/5c/13/07471911e97d88015231fb4c8921de64a4a635af3fadc1f63240e5833ae4/PyDocX-0.3.9.tar.gz", "3fce514a9235159824ac10b604f22e6bc1df960bc7b3a34cb8839b0dbb209549"),
    ("oletools", "0.60.2", "https://files.pythonhosted.org/packages/5c/2f/037f40e44706d542b94a2312ccc33ee2701ebfc9a83b46b55263d49ce55a/oletools-0.60.2.zip", "ad452099f4695ffd8855113f453348200d195ee9fa341a09e197d66ee7e0b2c3"),
    ("docx-editor", "0.8.2", "https://files.pythonhosted.org/packages/d2/eb/d1397cf9e9519d5abcd341a8d3a713603524a08967c46d4535b49204937d/docx_editor-0.8.2.tar.gz", "d93bc6e6b57a9c9165ab5daf05f12226d1454e4f3097661300bb8f4e91880ec9"),
    ("docx-revisions", "0.1.5", "https://files.pythonhosted.org/packages/ba/fd/4ef9a41a2ed36399a81598cb4a534bb73c782410615871cbcc03ee2e2cc2/docx_revisions-0.1.5.tar.gz", "b567eb521d8bc51eb87fe5b94227cf5a8f28fdbf97b18d3e58d393652fdac793"),
    ("python-docx-oss", "0.3.3", "https://files.pythonhosted.org/packages/bd/e3/e3e9a0bee7699f5a1c0f85490686538bc6c17f9ad7f1361fcee017fa27e4/python_docx_oss-0.3.3.tar.gz", "322420dc9c1ccc310705fba58c0420e3c0003af8ea7e8ebf15b56e5670fb5341"),
]
RULES_VERSION = 2  # bump when the selection rules change, so a cached manifest is rebuilt

WORD_APPS = {"Microsoft Word", "Microsoft Office Word", "Microsoft Macintosh Word"}
POWERPOINT_APPS = {"Microsoft PowerPoint", "Microsoft Office PowerPoint", "Microsoft Macintosh PowerPoint"}
TOOLS = re.compile(r"python-docx|python-pptx|docxtpl|docxcompose|openpyxl|pandoc|libreoffice|aspose|docx4j", re.I)
TEMPLATE_PATH = re.compile(r"(^|/)(docx|pptx)/templates/")
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
A_T = "{http://schemas.openxmlformats.org/drawingml/2006/main}t"
P_SLDID = "{http://schemas.openxmlformats.org/presentationml/2006/main}sldId"
MAX_MEMBER = 64 << 20


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def fetch(cache, name, version, url, digest):
    path = os.path.join(cache, "sdists", url.rsplit("/", 1)[1])
    if os.path.exists(path):
        with open(path, "rb") as f:
            if sha256(f.read()) == digest:
                return path
    print("downloading %s==%s" % (name, version), file=sys.stderr)
    with urllib.request.urlopen(url, timeout=300) as response:
        data = response.read()
    if sha256(data) != digest:
        raise SystemExit("%s: sha256 mismatch (expected %s, got %s)" % (url, digest, sha256(data)))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".part", "wb") as f:
        f.write(data)
    os.replace(path + ".part", path)
    return path


def members(archive):
    # (path inside the sdist without its top directory, bytes) of every .docx/.pptx.
    def wanted(name):
        return name.lower().endswith((".docx", ".pptx"))

    if archive.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                if not info.is_dir() and wanted(info.filename) and info.file_size <= MAX_MEMBER:
                    yield info.filename.split("/", 1)[-1], z.read(info)
    else:
        with tarfile.open(archive) as t:
            for info in t.getmembers():
                if info.isfile() and wanted(info.name) and info.size <= MAX_MEMBER:
                    yield info.name.split("/", 1)[-1], t.extractfile(info).read()


def field(xml, tag):
    m = re.search(r"<(?:\w+:)?%s>([^<]*)</(?:\w+:)?%s>" % (tag, tag), xml)
    return m.group(1).strip() if m else None


def number(xml, tag):
    value = field(xml, tag)
    return int(value) if value is not None and value.isdigit() else None


def document_text(z):
    # The body's text the way Word counts it, roughly: each paragraph, tab and break separates.
    root = ElementTree.fromstring(z.read("word/document.xml"))
    out = []

    def walk(element):
        if element.tag == MC_FALLBACK:  # the same text box again, for old readers
            return
        if element.tag == W + "t" and element.text:
            out.append(element.text)
        elif element.tag in (W + "tab", W + "br", W + "cr"):
            out.append(" ")
        for child in element:
            walk(child)
        if element.tag == W + "p":
            out.append("\n")

    walk(root)
    return "".join(out)


def close(stated, counted, absolute):
    return abs(stated - counted) <= absolute + 0.25 * max(stated, counted)


def judge(path, blob):
    """(kind, application, expected) or (None, reason, None)."""
    kind = path.rsplit(".", 1)[1].lower()
    try:
        z = zipfile.ZipFile(io.BytesIO(blob))
        app = z.read("docProps/app.xml").decode("utf-8", "replace")
    except (zipfile.BadZipFile, KeyError):
        return None, "no docProps/app.xml", None
    try:
        core = z.read("docProps/core.xml").decode("utf-8", "replace")
    except KeyError:
        core = ""
    application = field(app, "Application") or ""
    if application not in (WORD_APPS if kind == "docx" else POWERPOINT_APPS):
        return None, "saved by %r" % (application or "nobody named"), None
    if TEMPLATE_PATH.search(path):
        return None, "a library's blank template", None
    if "/_scratch/" in "/" + path:
        return None, "a library's test output", None
    value = field(core, "lastModifiedBy") or ""
    if TOOLS.search(value):
        return None, "core.xml lastModifiedBy names a tool: %r" % value, None
    if TOOLS.search(field(app, "Template") or ""):
        return None, "app.xml Template names a tool", None
    try:
        if kind == "docx":
            pages = number(app, "Pages")
            if not pages:
                return None, "no <Pages>", None
            text = document_text(z)
            words, chars = len(text.split()), len(re.sub(r"\s", "", text))
            stated_words, stated_chars = number(app, "Words") or 0, number(app, "Characters") or 0
            if not close(stated_words, words, 5) or not close(stated_chars, chars, 25):
                return None, "text changed after Word counted (words %d vs %d, characters %d vs %d)" % (
                    stated_words, words, stated_chars, chars), None
            return kind, application, pages
        slides = number(app, "Slides")
        hidden = number(app, "HiddenSlides") or 0
        root = ElementTree.fromstring(z.read("ppt/presentation.xml"))
        present = len(list(root.iter(P_SLDID)))
        if not slides:
            return None, "no slides (<Slides> 0 or missing)", None
        if slides != present:
            return None, "<Slides> %d but %d slides in the package" % (slides, present), None
        if slides - hidden <= 0:
            return None, "every slide hidden", None
        return kind, application, slides - hidden
    except (KeyError, ElementTree.ParseError, zipfile.BadZipFile) as e:
        return None, "unreadable package (%s)" % e, None


def reason_key(reason):
    # The reason without its particulars, to count skipped files by.
    if reason.startswith("saved by"):
        return "saved by an application other than Word or PowerPoint"
    return re.sub(r" \(.*|: .*", "", reason)


def stamp():
    return sha256(json.dumps([PINS, RULES_VERSION]).encode())


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "--verbose" in sys.argv or "-v" in sys.argv
    cache = os.path.abspath(args[0] if args else ".build/fidelity")
    manifest_path = os.path.join(cache, "manifest.json")
    stamp_path = os.path.join(cache, "manifest.stamp")
    if not verbose and os.path.exists(manifest_path) and os.path.exists(stamp_path):
        with open(stamp_path) as f, open(manifest_path) as g:
            same = f.read().strip() == stamp()
            entries = json.load(g)
        if same and all(os.path.exists(os.path.join(cache, e["file"])) for e in entries):
            print("%s: %d files (cached)" % (manifest_path, len(entries)))
            return
    seen, entries, skipped = set(), [], {}
    for name, version, url, digest in PINS:
        archive = fetch(cache, name, version, url, digest)
        source = "%s==%s" % (name, version)
        for inner, blob in members(archive):
            digest_file = sha256(blob)
            if digest_file in seen:
                continue
            seen.add(digest_file)
            kind, application, expected = judge(inner, blob)
            if kind is None:
                skipped.setdefault(reason_key(application), []).append("%s:%s (%s)" % (source, inner, application))
                continue
            rel = os.path.join("files", "%s-%s" % (digest_file[:12], os.path.basename(inner)))
            target = os.path.join(cache, rel)
            if not os.path.exists(target):
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as f:
                    f.write(blob)
            entries.append({
                "file": rel, "sha256": digest_file, "source": "%s:%s" % (source, inner),
                "application": application, "kind": kind, "expected": expected,
            })
    with open(manifest_path + ".part", "w") as f:
        json.dump(entries, f, indent=1)
        f.write("\n")
    os.replace(manifest_path + ".part", manifest_path)
    with open(stamp_path, "w") as f:
        f.write(stamp() + "\n")
    docx = sum(e["kind"] == "docx" for e in entries)
    multi = sum(e["expected"] > 1 for e in entries)
    print("%s: %d files (%d .docx, %d .pptx; %d with more than one page), %d skipped" % (
        manifest_path, len(entries), docx, len(entries) - docx, multi, sum(len(v) for v in skipped.values())))
    for reason, items in sorted(skipped.items()):
        print("  skipped %3d: %s" % (len(items), reason))
        if verbose:
            for item in items:
                print("      " + item)


if __name__ == "__main__":
    main()
