"""The scenarios' "webhook server" / "static server": one HTTP server (Gotenberg's server.go
serves both roles from the same routes), here on 127.0.0.1 only, in a thread.

Routes, as server.go's echo router has them:
  POST|PATCH|PUT /webhook        records the request, saves the body under
                                 WORKDIR/<its Gotenberg-Trace>/<Content-Disposition filename>
                                 (a zip is also unpacked there); no Content-Disposition is an error
  POST|PATCH|PUT /webhook/error  records the request and its body
  POST /webhook/events           keeps the body as "the webhook event" (does not record the request)
  GET /static/<path>             records the request, answers the file TESTDIR/<path> as an attachment
                                 (a path with "teststore" in it: WORKDIR/<request trace>/<base name>)
  GET /html/<path>               records the request, answers TESTDIR/<path> as text/html
  GET /redirect-to-private       records the request, 302 to http://127.0.0.1:9999/redirected
Anything else is echo's 404 (405 for a known path with another method), not recorded.

"The last request" (`req`) is what the header/cookie/body steps read, as in server.go.
`webhook_done` is server.go's errChan: one item per finished /webhook or /webhook/error handler
(None, or the handler's error).
"""

from __future__ import annotations

import email.utils
import http.server
import io
import mimetypes
import os
import queue
import threading
import urllib.parse
import uuid
import zipfile
from dataclasses import dataclass
from email.message import Message
from pathlib import Path

from gohttp import wire_text


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: Message  # .get(name) is Go's Header.Get (first value), case-insensitive
    route: str  # "webhook", "webhook-error", "static", "html", "redirect"

    def header(self, name: str) -> str:
        return wire_text(self.headers.get(name, "") or "")

    def header_values(self, name: str) -> list[str]:
        return [wire_text(v) for v in (self.headers.get_all(name) or [])]


def parse_content_disposition(value: str) -> tuple[str, dict[str, str]]:
    """mime.ParseMediaType for a Content-Disposition value: (type, params), RFC 2231 `filename*`
    decoded and preferred, as Go does. Raises ValueError on a value Go would refuse."""
    if not value.strip():
        raise ValueError("mime: no media type")
    msg = Message()
    msg["Content-Disposition"] = value
    disp = msg.get_content_disposition()
    if disp is None:
        raise ValueError("mime: no media type")
    params: dict[str, str] = {}
    for key, val in msg.get_params(header="Content-Disposition")[1:]:
        key = key.lower()
        if isinstance(val, tuple):  # RFC 2231
            val = email.utils.collapse_rfc2231_value(val)
        params[key.rstrip("*")] = val
    return disp, params


class HelperServer:
    def __init__(self, testdir: Path, workdir: Path):
        self.testdir = testdir
        self.workdir = workdir
        self.lock = threading.Lock()
        self.req: RecordedRequest | None = None
        self.body_copy: bytes = b""
        self.event_body: bytes | None = None
        self.webhook_done: queue.Queue = queue.Queue()
        self._httpd: http.server.ThreadingHTTPServer | None = None
        self.port = 0

    # -- lifecycle -----------------------------------------------------------------------------
    def start(self) -> int:
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format, *args):  # noqa: A002
                pass

            def do_GET(self):
                owner._dispatch(self, "GET")

            def do_POST(self):
                owner._dispatch(self, "POST")

            def do_PUT(self):
                owner._dispatch(self, "PUT")

            def do_PATCH(self):
                owner._dispatch(self, "PATCH")

            def do_HEAD(self):
                owner._dispatch(self, "HEAD")

            def do_DELETE(self):
                owner._dispatch(self, "DELETE")

        httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        httpd.daemon_threads = True
        self._httpd = httpd
        self.port = httpd.server_address[1]
        threading.Thread(target=httpd.serve_forever, name=f"helper-{self.port}", daemon=True).start()
        return self.port

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    # -- plumbing ------------------------------------------------------------------------------
    @staticmethod
    def _read_body(h: http.server.BaseHTTPRequestHandler) -> bytes:
        if "chunked" in (h.headers.get("Transfer-Encoding") or "").lower():
            out = bytearray()
            while True:
                size_line = h.rfile.readline()
                size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while h.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return bytes(out)
                out.extend(h.rfile.read(size))
                h.rfile.readline()
        length = int(h.headers.get("Content-Length") or 0)
        return h.rfile.read(length) if length else b""

    @staticmethod
    def _send(h, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        h.send_response(status)
        h.send_header("Content-Type", content_type)
        for k, v in (extra or {}).items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        if h.command != "HEAD":
            h.wfile.write(body)

    def _record(self, h, route: str) -> RecordedRequest:
        rec = RecordedRequest(h.command, h.path, h.headers, route)
        with self.lock:
            self.req = rec
        return rec

    def _dispatch(self, h, method: str) -> None:
        path = h.path.split("?", 1)[0]
        try:
            if path in ("/webhook", "/webhook/error"):
                if method not in ("POST", "PATCH", "PUT"):
                    return self._send(h, 405, b'{"message":"Method Not Allowed"}\n', "application/json")
                return self._webhook(h) if path == "/webhook" else self._webhook_error(h)
            if path == "/webhook/events":
                if method != "POST":
                    return self._send(h, 405, b'{"message":"Method Not Allowed"}\n', "application/json")
                body = self._read_body(h)
                with self.lock:
                    self.event_body = body
                return self._send(h, 200, b"OK", "text/plain; charset=UTF-8")
            for prefix, route in (("/static/", "static"), ("/html/", "html")):
                if path.startswith(prefix) and len(path) > len(prefix):
                    if method != "GET":
                        return self._send(h, 405, b'{"message":"Method Not Allowed"}\n', "application/json")
                    rel = urllib.parse.unquote(path[len(prefix):])
                    return self._static(h, rel) if route == "static" else self._html(h, rel)
            if path == "/redirect-to-private":
                if method != "GET":
                    return self._send(h, 405, b'{"message":"Method Not Allowed"}\n', "application/json")
                self._record(h, "redirect")
                return self._send(h, 302, b"", "text/plain; charset=UTF-8",
                                  {"Location": "http://127.0.0.1:9999/redirected"})
            self._read_body(h)
            return self._send(h, 404, b'{"message":"Not Found"}\n', "application/json")
        except (BrokenPipeError, ConnectionResetError):
            pass

    # -- routes --------------------------------------------------------------------------------
    def _webhook(self, h) -> None:
        rec = self._record(h, "webhook")
        err: str | None = None
        body = b""
        try:
            body = self._read_body(h)
            with self.lock:
                self.body_copy = body
            err = self._save_webhook_file(rec, body)
        except Exception as e:  # noqa: BLE001 - reported to the wait step, as errChan does
            err = f"read request body: {e}"
        if err is None:
            self._send(h, 200, b"OK", "text/plain; charset=UTF-8")
        else:
            self._send(h, 500, b'{"message":"Internal Server Error"}\n', "application/json")
        self.webhook_done.put(err)

    def _save_webhook_file(self, rec: RecordedRequest, body: bytes) -> str | None:
        cd = rec.header("Content-Disposition")
        if not cd:
            return "no Content-Disposition header"
        try:
            _, params = parse_content_disposition(cd)
        except ValueError as e:
            return f"parse Content-Disposition header: {e}"
        filename = params.get("filename")
        content_type = rec.header("Content-Type")
        if filename is None:
            filename = str(uuid.uuid4())
            if content_type == "application/zip":
                filename += ".zip"
            elif content_type == "application/pdf":
                filename += ".pdf"
            else:
                return "no filename in Content-Disposition header"
        dir_path = Path(f"{self.workdir}/{rec.header('Gotenberg-Trace')}")
        dir_path.mkdir(parents=True, exist_ok=True)
        return save_answer_file(dir_path, filename, body, unzip=content_type == "application/zip")

    def _webhook_error(self, h) -> None:
        self._record(h, "webhook-error")
        err = None
        try:
            body = self._read_body(h)
            with self.lock:
                self.body_copy = body
        except Exception as e:  # noqa: BLE001
            err = f"read request body: {e}"
        self._send(h, 200 if err is None else 500, b"OK" if err is None else b'{"message":"Internal Server Error"}\n',
                   "text/plain; charset=UTF-8" if err is None else "application/json")
        self.webhook_done.put(err)

    def _static(self, h, rel: str) -> None:
        rec = self._record(h, "static")
        base = os.path.basename(rel)
        if "teststore" in rel:
            target = Path(f"{self.workdir}/{rec.header('Gotenberg-Trace')}/{base}")
        else:
            target = self.testdir / rel
        if target.is_dir():
            target = target / "index.html"  # http.ServeFile's directory index
        if not target.is_file():
            return self._send(h, 404, b'{"message":"Not Found"}\n', "application/json")
        data = target.read_bytes()
        ctype = _go_content_type(target.name, data)
        # echo's c.Attachment: `attachment; filename="<name>"` with Go's %q quoting.
        quoted = '"' + base.replace("\\", "\\\\").replace('"', '\\"') + '"'
        self._send(h, 200, data, ctype, {
            "Content-Disposition": f"attachment; filename={quoted}",
            "Accept-Ranges": "bytes",
            "Last-Modified": email.utils.formatdate(target.stat().st_mtime, usegmt=True),
        })

    def _html(self, h, rel: str) -> None:
        self._record(h, "html")
        target = self.testdir / rel
        try:
            data = target.read_bytes()
        except OSError as e:
            return self._send(h, 500, f"open file {str(target)!r}: {e}".encode(), "text/plain; charset=UTF-8")
        self._send(h, 200, data, "text/html; charset=UTF-8")


def _go_content_type(name: str, data: bytes) -> str:
    """http.ServeContent's type: by extension (Go's table for the common ones), else sniffed."""
    ext = os.path.splitext(name)[1].lower()
    go_types = {
        ".html": "text/html; charset=utf-8", ".htm": "text/html; charset=utf-8",
        ".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
        ".json": "application/json", ".pdf": "application/pdf", ".png": "image/png",
        ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".svg": "image/svg+xml",
        ".webp": "image/webp", ".xml": "text/xml; charset=utf-8", ".wasm": "application/wasm",
        ".avif": "image/avif", ".mjs": "text/javascript; charset=utf-8",
    }
    if ext in go_types:
        return go_types[ext]
    guess = mimetypes.guess_type(name)[0]
    if guess:
        return guess
    if data[:5] == b"%PDF-":
        return "application/pdf"
    if data[:4] == b"PK\x03\x04":
        return "application/zip"
    return "application/octet-stream"


def save_answer_file(dir_path: Path, filename: str, body: bytes, unzip: bool) -> str | None:
    """Write an answer's file as scenario.go/server.go do: DIR/<filename>, and when it is a zip
    every entry DIR/<entry base name>. Returns an error text, or None. A name that would land
    outside DIR is refused (Go would follow it; we do not write outside our scratch space)."""
    target = Path(f"{dir_path}/{filename}")
    try:
        resolved = target.resolve()
        if not str(resolved).startswith(str(dir_path.resolve()) + os.sep):
            return f"create file {str(target)!r}: file name escapes the answer directory"
        target.write_bytes(body)
    except OSError as e:
        return f"create file {str(target)!r}: {e}"
    if unzip:
        try:
            with zipfile.ZipFile(io.BytesIO(body)) as z:
                for info in z.infolist():
                    if info.is_dir():
                        continue
                    name = os.path.basename(info.filename)
                    (dir_path / name).write_bytes(z.read(info))
        except (zipfile.BadZipFile, OSError, ValueError) as e:
            return f"extract zip {filename!r}: {e}"
    return None
