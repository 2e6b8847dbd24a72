"""The UNO worker each warm LibreOffice slot runs beside its soffice (DESIGN §4).

Run by the gateway (LibreOfficePool, inside the converter sandbox), which writes this file into
the pool's private directory as pdfgate_uno_worker.py and starts it with Debian's
/usr/bin/python3, the interpreter that has `import uno` (python3-uno):

    python3 pdfgate_uno_worker.py PIPE TIMEOUT PARENT

PIPE is the name of the UNO pipe soffice accepts on, TIMEOUT the seconds to wait for it, PARENT
the gateway's pid to watch (0 in a sandbox, where it is not ours to see).

Protocol: stdin and stdout are the gateway's socket. One JSON object per line in ("op": ping,
convert or quit), one reply line per request out; the Swift side is WorkerRequest/WorkerReply.
"""

import base64, hashlib, json, os, re, select, sys, threading, time, zipfile, zlib
import xml.etree.ElementTree as ElementTree

# Replies go to the real stdout; anything UNO or Python prints goes to stderr (the log).
_replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException
from com.sun.star.lang import IllegalArgumentException, DisposedException
from com.sun.star.io import IOException
from com.sun.star.uno import Exception as UnoException, RuntimeException
from com.sun.star.style.BreakType import PAGE_BEFORE
from com.sun.star.text.ControlCharacter import PARAGRAPH_BREAK

PLAIN_TEXT = {"txt", "text", "csv", "tsv", "tab", "log", "md", "asc"}
EXPORT_FILTERS = [
    ("com.sun.star.sheet.SpreadsheetDocument", "calc_pdf_Export"),
    ("com.sun.star.presentation.PresentationDocument", "impress_pdf_Export"),
    ("com.sun.star.drawing.DrawingDocument", "draw_pdf_Export"),
    ("com.sun.star.text.WebDocument", "writer_web_pdf_Export"),
    ("com.sun.star.text.GlobalDocument", "writer_globaldocument_pdf_Export"),
    ("com.sun.star.text.TextDocument", "writer_pdf_Export"),
    ("com.sun.star.formula.FormulaProperties", "math_pdf_Export"),
]


def reply(obj):
    _replies.write(json.dumps(obj) + "\n")
    _replies.flush()


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def watch_parent(parent):
    # If the gateway dies without shutting us down, take soffice (our process group) with us.
    while True:
        time.sleep(1)
        if os.getppid() != parent:
            os.killpg(os.getpgrp(), 9)


def watch_socket():
    # Our stdin is the gateway's socket. When the gateway goes (killed, crashed), the peer
    # hangs up; notice it even in the middle of a conversion, without reading a byte, and
    # take soffice along. In a sandbox this is the only watch: the parent pid is not ours.
    poller = select.poll()
    poller.register(0, select.POLLRDHUP)
    while True:
        for _, event in poller.poll(1000):
            if event & (select.POLLRDHUP | select.POLLHUP | select.POLLERR):
                os.killpg(os.getpgrp(), 9)


def connect(pipe, timeout):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    end = time.monotonic() + timeout
    while True:
        try:
            ctx = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
            return ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        except NoConnectException:
            if time.monotonic() > end:
                raise
            time.sleep(0.05)


def looks_encrypted(path):
    # Encrypted OOXML is an OLE2 container holding an "EncryptedPackage" stream; encrypted
    # ODF declares encryption-data in its manifest (stored uncompressed often enough).
    try:
        with open(path, "rb") as f:
            head = f.read(1 << 20)
    except OSError:
        return False
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        return "EncryptedPackage".encode("utf-16-le") in head
    return b"manifest:encryption-data" in head


# ODF 1.4's whole-package encryption (LibreOffice 24.2 and later write it): the real
# document is one zip, raw-deflated and then sealed with AES-256-GCM as the entry
# "encrypted-package"; its manifest says how the key was made. LibreOffice 7.4 reads only
# the older per-file encryption, so the worker unseals such a file itself and loads what
# was inside.
WHOLE_PACKAGE = "encrypted-package"
MANIFEST = "{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}"
LOEXT = "{urn:org:documentfoundation:names:experimental:office:xmlns:loext:1.0}"
AES256_GCM = "http://www.w3.org/2009/xmlenc11#aes256-gcm"
SHA256 = "http://www.w3.org/2001/04/xmlenc#sha256"
ARGON2ID = "urn:org:documentfoundation:names:experimental:office:manifest:argon2id"
# Beyond what LibreOffice writes (3 passes, 64 MiB, 4 lanes) by far: a file asking more is
# built to exhaust the worker, not to be opened.
ARGON2_LIMITS = {"iterations": 64, "memory": 1 << 20, "lanes": 16}
# The inner document may be at most this big once inflated (the declared size also binds).
WHOLE_PACKAGE_MAX_BYTES = 1 << 30
EXTENSIONS = {"text": "odt", "spreadsheet": "ods", "presentation": "odp", "graphics": "odg", "formula": "odf"}


class Refused(Exception):
    # A worker reply that ends the conversion before LibreOffice sees the document.
    def __init__(self, answer):
        Exception.__init__(self, answer.get("message"))
        self.answer = answer


def whole_package_entry(path):
    # The manifest's entry for "encrypted-package", or None for any other file.
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if WHOLE_PACKAGE not in names or "META-INF/manifest.xml" not in names:
                return None
            if archive.getinfo("META-INF/manifest.xml").file_size > 1 << 20:
                return None
            manifest = ElementTree.fromstring(archive.read("META-INF/manifest.xml"))
    except (zipfile.BadZipFile, ElementTree.ParseError, OSError, ValueError, KeyError, NotImplementedError):
        return None
    for entry in manifest.iter(MANIFEST + "file-entry"):
        if entry.get(MANIFEST + "full-path") == WHOLE_PACKAGE and entry.find(MANIFEST + "encryption-data") is not None:
            return entry
    return None


def open_whole_package(path, entry, name, password, directory):
    # Writes the document sealed in `path` into `directory` and answers its path; a wrong
    # password fails GCM's tag check. Raises Refused with the reply otherwise.
    def cannot(why):
        return Refused(rejected("unsupported_encryption", "%s is encrypted as LibreOffice 24.2 and later do it, but %s" % (name, why)))

    data = entry.find(MANIFEST + "encryption-data")
    algorithm = data.find(MANIFEST + "algorithm")
    start = data.find(MANIFEST + "start-key-generation")
    derivation = data.find(MANIFEST + "key-derivation")
    if algorithm is None or derivation is None:
        raise Refused(unreadable(name, "its manifest lacks how it was encrypted"))
    cipher = algorithm.get(MANIFEST + "algorithm-name")
    kdf = derivation.get(MANIFEST + "key-derivation-name")
    start_name = SHA256 if start is None else start.get(MANIFEST + "start-key-generation-name")
    if cipher != AES256_GCM or kdf != ARGON2ID or start_name != SHA256:
        raise cannot("with a scheme pdfgate does not know (%s, %s, %s)" % (cipher, kdf, start_name))
    try:
        iv = base64.b64decode(algorithm.get(MANIFEST + "initialisation-vector") or "", validate=True)
        salt = base64.b64decode(derivation.get(MANIFEST + "salt") or "", validate=True)
        cost = {k: int(derivation.get(LOEXT + "argon2-" + k) or 0) for k in ARGON2_LIMITS}
        key_size = int(derivation.get(MANIFEST + "key-size") or 32)
        declared = entry.get(MANIFEST + "size")
        declared = int(declared) if declared is not None else None
    except ValueError:
        raise Refused(unreadable(name, "its manifest is damaged"))
    if key_size != 32 or len(iv) != 12 or not salt or any(not 0 < cost[k] <= ARGON2_LIMITS[k] for k in ARGON2_LIMITS):
        raise Refused(unreadable(name, "its manifest asks for key settings beyond what LibreOffice writes"))
    try:
        from argon2.low_level import Type, hash_secret_raw
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError:
        raise cannot("this gateway lacks Debian's python3-argon2 or python3-cryptography to open it; ask its operator")
    start_key = hashlib.sha256(password.encode("utf-8")).digest()
    key = hash_secret_raw(
        start_key, salt, time_cost=cost["iterations"], memory_cost=cost["memory"], parallelism=cost["lanes"], hash_len=32, type=Type.ID
    )
    with zipfile.ZipFile(path) as archive:
        sealed = archive.read(WHOLE_PACKAGE)
    # LibreOffice writes the IV once more in front of the ciphertext; GCM's tag is at the end.
    if sealed[:12] == iv:
        sealed = sealed[12:]
    try:
        packed = AESGCM(key).decrypt(iv, sealed, None)
    except InvalidTag:
        raise Refused(protected(name, password))
    del sealed
    media = entry.get(MANIFEST + "media-type") or ""
    kind = media.rsplit(".", 1)[-1].split("-")[0]
    output = os.path.join(directory, "decrypted." + EXTENSIONS.get(kind, "odt"))
    limit = min(declared, WHOLE_PACKAGE_MAX_BYTES) if declared is not None else WHOLE_PACKAGE_MAX_BYTES
    written = 0
    try:
        with open(output, "wb") as out:
            if packed.startswith(b"PK\x03\x04"):
                # Stored rather than deflated: the zip itself.
                written = len(packed)
                if written <= limit:
                    out.write(packed)
            else:
                inflater = zlib.decompressobj(-15)
                chunk = inflater.decompress(packed, 1 << 20)
                while chunk and written <= limit:
                    out.write(chunk)
                    written += len(chunk)
                    chunk = inflater.decompress(inflater.unconsumed_tail, 1 << 20)
    except zlib.error:
        raise Refused(unreadable(name, "the document inside its encryption is damaged"))
    if written > limit or (declared is not None and written != declared):
        raise Refused(unreadable(name, "the document inside its encryption is not the size its manifest declares"))
    return output


def rejected(code, message):
    return {"ok": False, "kind": "rejected", "code": code, "message": message}


def transient(code, message, fatal):
    return {"ok": False, "kind": "transient", "code": code, "message": message, "fatal": fatal}


def unreadable(name, why):
    return rejected("unreadable_document", "LibreOffice cannot read %s: %s" % (name, why))


def protected(name, password):
    # Never the password itself: the message reaches the client and the logs.
    if password:
        return rejected("wrong_password", "%s did not open with the password given; check \"password\"" % name)
    return rejected("password_protected", "%s is password-protected; send its password in \"password\" with the job" % name)


def turn_landscape(doc):
    # What the client's `landscape` means for a document laid out already: every page
    # style (Writer, Calc) or every slide and master (Impress, Draw) becomes landscape.
    if doc.supportsService("com.sun.star.drawing.GenericDrawingDocument"):
        for pages in (doc.getDrawPages(), doc.getMasterPages()):
            for i in range(pages.getCount()):
                page = pages.getByIndex(i)
                if page.Width < page.Height:
                    page.Width, page.Height = page.Height, page.Width
        return
    styles = doc.getStyleFamilies().getByName("PageStyles")
    for style_name in styles.getElementNames():
        style = styles.getByName(style_name)
        style.IsLandscape = True
        if style.Width < style.Height:
            style.Width, style.Height = style.Height, style.Width


# Word's page layout, where LibreOffice 7.4's import of a .docx departs from it in a way the
# worker can restore after loading (issue 60; the WordPageCount test and make bench measure the effect
# against the page counts Word saved in the files). Only for the .docx family of import filters:
# the .doc import already lays endnotes out as Word does, and keeps a closing page break.
WORD_XML_IMPORTS = ("MS Word 2007 XML", "Office Open XML Text")
# What still puts something on the page after a page break, in a paragraph's XML.
AFTER_BREAK = re.compile(rb"<w:(t|tab|ptab|br|cr|sym|drawing|pict|object|fldSimple|fldChar|instrText|footnoteReference|endnoteReference|noBreakHyphen|softHyphen)[\s>/]")


def ends_with_page_break(path):
    # Whether the body of the .docx at `path` ends with a paragraph whose last content is a page
    # break. Word then puts that paragraph's mark on a page of its own (always since Word 2007,
    # and in older documents that ask for it with splitPgBreakAndParaMark); LibreOffice 7.4
    # drops such a break, and with it Word's last page.
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            part = "word/document.xml"
            if "_rels/.rels" in names:
                for rel in ElementTree.fromstring(archive.read("_rels/.rels")):
                    if rel.get("Type", "").endswith("/officeDocument") and rel.get("Target"):
                        part = rel.get("Target").lstrip("/")
            if part not in names or archive.getinfo(part).file_size > 256 << 20:
                return False
            xml = archive.read(part)
            settings = archive.read("word/settings.xml") if "word/settings.xml" in names else b""
    except (zipfile.BadZipFile, ElementTree.ParseError, OSError, ValueError, KeyError, NotImplementedError):
        return False
    mode = re.search(rb'w:name="compatibilityMode"[^>]*w:val="([0-9]+)"', settings)
    if mode and int(mode.group(1)) < 12 and b"splitPgBreakAndParaMark" not in settings:
        return False
    end = xml.rfind(b"</w:body>")
    last = xml.rfind(b"</w:p>", 0, end)
    if end < 0 or last < 0:
        return False
    # Only the body's closing section properties may follow the last paragraph.
    if not re.fullmatch(rb"\s*(<w:bookmarkEnd[^>]*/>\s*)*(<w:sectPr[\s>/].*)?", xml[last + 6:end], re.S):
        return False
    if any(xml.find(tag, last, end) >= 0 for tag in (b"<w:tbl>", b"<w:p ", b"<w:p>", b"<w:p/>")):
        return False
    starts = [m.start() for m in re.finditer(rb"<w:p[\s>]", xml[max(0, last - (1 << 20)):last])]
    if not starts:
        return False
    paragraph = xml[max(0, last - (1 << 20)) + starts[-1]:last]
    brk = paragraph.rfind(b'w:type="page"')
    if b"</w:p>" in paragraph or brk < 0 or paragraph.rfind(b"<w:br", 0, brk) < paragraph.rfind(b">", 0, brk):
        return False
    return AFTER_BREAK.search(paragraph, brk) is None


def word_layout(desktop, doc, path, props, copy):
    # The document to export: `doc`, changed where needed, or a copy of it (written to `copy`)
    # reloaded with settings that only take effect before the first layout; `doc` is then closed.
    # Each step is an improvement, never a condition: one that fails leaves the document as
    # LibreOffice imported it.
    try:
        if ends_with_page_break(path):
            text = doc.getText()
            if text.createTextCursorByRange(text.getEnd()).BreakType.value == "NONE":
                text.insertControlCharacter(text.getEnd(), PARAGRAPH_BREAK, False)
                text.createTextCursorByRange(text.getEnd()).BreakType = PAGE_BEFORE
    except (UnoException, AttributeError) as e:
        print("word layout: closing page break not restored: %r" % (e,), file=sys.stderr)
    # Word sets endnotes right after the text; LibreOffice 7.4 gives them a page of their own
    # unless ContinuousEndnotes is set, which its .docx import does not do and which counts only
    # when set before the document is laid out: set it, and lay out a copy.
    try:
        if doc.getEndnotes().getCount():
            settings = doc.createInstance("com.sun.star.text.DocumentSettings")
            if not settings.getPropertyValue("ContinuousEndnotes"):
                settings.setPropertyValue("ContinuousEndnotes", True)
                doc.storeToURL(uno.systemPathToFileUrl(copy), (prop("FilterName", "writer8"),))
                reloaded = desktop.loadComponentFromURL(
                    uno.systemPathToFileUrl(copy), "_blank", 0, tuple(p for p in props if p.Name != "Password"))
                if reloaded is not None:
                    close(doc)
                    return reloaded
    except (UnoException, AttributeError) as e:
        print("word layout: endnotes left on a page of their own: %r" % (e,), file=sys.stderr)
    return doc


def close(doc):
    try:
        doc.close(True)
    except Exception:
        try:
            doc.dispose()
        except Exception:
            pass


def page_count(doc):
    # 0 when it cannot be told; the export's own failure then speaks.
    try:
        if doc.supportsService("com.sun.star.text.TextDocument"):
            return doc.getCurrentController().PageCount
        return doc.getRendererCount(doc, (prop("IsPrinter", True),))
    except Exception:
        return 0


def beyond_document(name, ranges, pages):
    counted = " (%d pages)" % pages if pages else ""
    return rejected("page_ranges_beyond_document", "options.page_ranges \"%s\" asks for pages beyond the end of %s%s" % (ranges, name, counted))


def clip_ranges(ranges, pages):
    # "1-4,7" of a 2-page document is "1-2"; "" when no page is left.
    kept = []
    for piece in ranges.split(","):
        bounds = piece.split("-")
        first = int(bounds[0])
        last = pages if len(bounds) > 1 and bounds[1] == "" else int(bounds[-1])
        if first <= pages:
            kept.append("%d-%d" % (first, min(last, pages)) if min(last, pages) != first else str(first))
    return ",".join(kept)


def convert(desktop, req):
    path, name = req["input"], req.get("name") or os.path.basename(req["input"])
    ext = os.path.splitext(name)[1].lower().lstrip(".")
    password = req.get("password") or ""
    filter_data = req.get("filter_data") or {}
    props = (
        prop("Hidden", True),  # Calc fails without it, and crashes on the next load
        prop("ReadOnly", True),
        prop("MacroExecutionMode", 0),  # NEVER_EXECUTE
        prop("UpdateDocMode", 0),  # NO_UPDATE: no fetching of linked content
        prop("Password", password),  # a protected file without one fails at once instead of prompting
    )
    whole = whole_package_entry(path)
    if whole is not None:
        if not password:
            return protected(name, password)
        try:
            path = open_whole_package(path, whole, name, password, os.path.dirname(req["output"]))
        except Refused as refusal:
            return refusal.answer
    try:
        doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(path), "_blank", 0, props)
    except IllegalArgumentException as e:
        if "aborted" in e.Message or looks_encrypted(path):
            return protected(name, password)
        return unreadable(name, "it is damaged or not in a format LibreOffice imports")
    except IOException as e:
        if looks_encrypted(path):
            return protected(name, password)
        return unreadable(name, "it is damaged (%s)" % (e.Message or "input/output error"))
    if doc is None:
        if looks_encrypted(path):
            return protected(name, password)
        return unreadable(name, "it is damaged or not in a format LibreOffice imports")
    copy = None
    try:
        detected = next((p.Value for p in doc.getArgs() if p.Name == "FilterName"), "")
        # Anything LibreOffice cannot recognise still opens as plain text; a .docx that only
        # opens as text is garbage, and its "PDF" would be pages of mojibake.
        if detected.startswith("Text") and ext not in PLAIN_TEXT:
            return unreadable(name, "it is not a valid .%s file (it only opens as plain text)" % ext if ext else "it only opens as plain text")
        if detected.startswith(WORD_XML_IMPORTS) and doc.supportsService("com.sun.star.text.TextDocument"):
            copy = os.path.join(os.path.dirname(req["output"]), "pdfgate-word-layout-%d.odt" % os.getpid())
            doc = word_layout(desktop, doc, path, props, copy)
        if req.get("landscape"):
            turn_landscape(doc)
        ranges = filter_data.get("PageRange")
        # One page per sheet changes what a page is: the export itself then judges the ranges.
        if ranges and not filter_data.get("SinglePageSheets"):
            pages = page_count(doc)
            if pages and max(int(n) for n in re.findall(r"[0-9]+", ranges)) > pages:
                # Gotenberg's routes keep the pages that exist, as LibreOffice does there.
                clipped = clip_ranges(ranges, pages) if req.get("clip_page_ranges") else ""
                if not clipped:
                    return beyond_document(name, ranges, pages)
                filter_data = dict(filter_data, PageRange=clipped)
        export = next((f for service, f in EXPORT_FILTERS if doc.supportsService(service)), "writer_pdf_Export")
        args = [prop("FilterName", export)]
        if filter_data:
            data = tuple(prop(k, v) for k, v in sorted(filter_data.items()))
            args.append(prop("FilterData", uno.Any("[]com.sun.star.beans.PropertyValue", data)))
        try:
            doc.storeToURL(uno.systemPathToFileUrl(req["output"]), tuple(args))
        except IOException:
            # A range that selects no page at all makes the PDF export fail as an I/O error.
            if ranges:
                return beyond_document(name, ranges, 0)
            raise
        return {"ok": True, "filter": export, "import": detected}
    finally:
        close(doc)
        if copy is not None and copy != path:
            try:
                os.unlink(copy)
            except OSError:
                pass


def main():
    pipe, timeout, parent = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    if parent > 0:
        threading.Thread(target=watch_parent, args=(parent,), daemon=True).start()
    threading.Thread(target=watch_socket, daemon=True).start()
    try:
        desktop = connect(pipe, timeout)
    except Exception as e:
        print("could not connect to soffice: %r" % (e,), file=sys.stderr)
        sys.exit(3)
    reply({"ok": True, "ready": True})
    for line in sys.stdin:
        try:
            req = json.loads(line)
        except ValueError:
            reply(transient("bad_request", "garbled request", False))
            continue
        op = req.get("op")
        try:
            if op == "ping":
                desktop.getFrames().getCount()
                reply({"ok": True})
            elif op == "convert":
                reply(convert(desktop, req))
            elif op == "quit":
                try:
                    desktop.terminate()
                except Exception:
                    pass
                return
            else:
                reply(transient("bad_request", "unknown op %r" % (op,), False))
        except DisposedException as e:
            # The bridge is gone: soffice died under us. Say so, then exit so the slot restarts.
            reply(transient("converter_crashed", "LibreOffice went away during the conversion (%s)" % e.Message, True))
            return
        except (UnoException, RuntimeException) as e:
            print("conversion failed: %s: %s" % (type(e).__name__, getattr(e, "Message", e)), file=sys.stderr)
            reply(transient("conversion_failed", "LibreOffice failed: %s" % getattr(e, "Message", str(e)).split(" at ./")[0], True))
        except Exception as e:
            print("worker error: %r" % (e,), file=sys.stderr)
            reply(transient("conversion_failed", "the LibreOffice worker failed: %s" % (e,), True))
    # stdin ended without a quit: the gateway is gone (killed, or crashed) and nobody
    # will stop soffice, whose soffice.bin would outlive us; take the whole group along.
    os.killpg(os.getpgrp(), 9)


main()
