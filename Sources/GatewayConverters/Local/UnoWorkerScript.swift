/// The Python UNO worker each LibreOffice slot runs next to its soffice (DESIGN §4).
///
/// It is embedded rather than shipped as a resource so the gateway stays one binary; the slot
/// writes it to the pool's working directory at start. It needs Debian's python3 (the one with
/// `import uno`). Protocol: one JSON object per line on stdin, one reply line per request on
/// stdout; see `WorkerRequest` / `WorkerReply`.
enum UnoWorkerScript {
    static let fileName = "pdfgate_uno_worker.py"

    static let source = #"""
        import json, os, re, select, sys, threading, time

        # Replies go to the real stdout; anything UNO or Python prints goes to stderr (the log).
        _replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
        os.dup2(2, 1)

        import uno
        from com.sun.star.beans import PropertyValue
        from com.sun.star.connection import NoConnectException
        from com.sun.star.lang import IllegalArgumentException, DisposedException
        from com.sun.star.io import IOException
        from com.sun.star.uno import Exception as UnoException, RuntimeException

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
            try:
                detected = next((p.Value for p in doc.getArgs() if p.Name == "FilterName"), "")
                # Anything LibreOffice cannot recognise still opens as plain text; a .docx that only
                # opens as text is garbage, and its "PDF" would be pages of mojibake.
                if detected.startswith("Text") and ext not in PLAIN_TEXT:
                    return unreadable(name, "it is not a valid .%s file (it only opens as plain text)" % ext if ext else "it only opens as plain text")
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
                try:
                    doc.close(True)
                except Exception:
                    try:
                        doc.dispose()
                    except Exception:
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
        """#
}
