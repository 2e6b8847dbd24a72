"""HTTP requests as Gotenberg's scenarios send them: Go's http.DefaultClient and mime/multipart.

What the server sees should be what Go sends, or a difference in the answer could be ours, not
the server's: the User-Agent `Go-http-client/1.1`, `Accept-Encoding: gzip` added (and a gzip
answer decoded, its Content-Encoding and Content-Length dropped, as Go's transport does),
canonical header names (`traceparent` goes out as `Traceparent`), redirects followed (up to 10),
and multipart bodies laid out byte for byte as multipart.Writer writes them: fields first, then
files (`Content-Type: application/octet-stream`), a random 60-hex-digit boundary.

Unlike Go's client (no deadline), every request here has a timeout so a hang cannot stall a run.
"""

from __future__ import annotations

import gzip
import http.client
import os
import re
import urllib.parse
from dataclasses import dataclass, field

USER_AGENT = "Go-http-client/1.1"
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")


def wire_text(value: str) -> str:
    """Python's HTTP stack decodes header bytes as Latin-1; Go keeps the bytes, and the scenarios
    compare them with UTF-8 text. Re-read them as UTF-8 when they are."""
    try:
        return value.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return value


def canonical_header(name: str) -> str:
    """Go's textproto.CanonicalMIMEHeaderKey: `content-type` -> `Content-Type`; left alone when
    the name holds a character that is not a token character."""
    if not _TOKEN.match(name):
        return name
    return "-".join(part[:1].upper() + part[1:].lower() for part in name.split("-"))


@dataclass
class Response:
    status: int = 200  # httptest.NewRecorder starts at 200 with no header and no body
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""

    def header(self, name: str) -> str:
        """Go's Header.Get: the first value, or ""."""
        low = name.lower()
        for k, v in self.headers:
            if k.lower() == low:
                return v
        return ""

    def header_values(self, name: str) -> list[str]:
        low = name.lower()
        return [v for k, v in self.headers if k.lower() == low]


def _escape_quotes(s: str) -> str:
    # multipart.escapeQuotes
    return s.replace("\\", "\\\\").replace('"', '\\"')


def multipart_body(fields: dict[str, list[str]], files: dict[str, list[str]]) -> tuple[bytes, str]:
    """multipart.Writer: WriteField for every field value, then CreateFormFile for every file
    (named by its base name), then Close. Returns (body, content type)."""
    boundary = os.urandom(30).hex()
    out = bytearray()
    first = True

    def part(headers: list[tuple[str, str]]) -> None:
        nonlocal first
        out.extend((f"--{boundary}\r\n" if first else f"\r\n--{boundary}\r\n").encode())
        first = False
        for k, v in sorted(headers):  # Go writes a part's headers sorted by key
            out.extend(f"{k}: {v}\r\n".encode())
        out.extend(b"\r\n")

    for name, values in fields.items():
        for value in values:
            part([("Content-Disposition", f'form-data; name="{_escape_quotes(name)}"')])
            out.extend(value.encode())
    for name, paths in files.items():
        for path in paths:
            base = os.path.basename(path)
            part([
                ("Content-Disposition", f'form-data; name="{_escape_quotes(name)}"; filename="{_escape_quotes(base)}"'),
                ("Content-Type", "application/octet-stream"),
            ])
            with open(path, "rb") as f:
                out.extend(f.read())
    out.extend(f"\r\n--{boundary}--\r\n".encode())
    return bytes(out), f"multipart/form-data; boundary={boundary}"


class RequestError(Exception):
    pass


def do_request(method: str, url: str, headers: dict[str, str], body: bytes | None = None,
               timeout: float = 180.0) -> Response:
    """One request as Go's http.DefaultClient.Do makes it (headers set with Header.Set)."""
    hdrs = {canonical_header(k): v for k, v in headers.items()}
    for _ in range(11):
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme != "http":
            raise RequestError(f"unsupported scheme in {url!r}")
        conn = http.client.HTTPConnection(parsed.hostname, parsed.port or 80, timeout=timeout)
        path = parsed.path or "/"
        if parsed.query:
            path += "?" + parsed.query
        try:
            conn.putrequest(method, path, skip_accept_encoding=True)
            send = dict(hdrs)
            send.setdefault("User-Agent", USER_AGENT)
            added_gzip = False
            if "Accept-Encoding" not in send and "Range" not in send and method != "HEAD":
                send["Accept-Encoding"] = "gzip"
                added_gzip = True
            if body is not None:
                send["Content-Length"] = str(len(body))
            for k, v in send.items():
                conn.putheader(k, v)
            conn.endheaders(body)
            raw = conn.getresponse()
            data = raw.read()
            resp_headers = [(k, wire_text(v)) for k, v in raw.getheaders()]
            status = raw.status
        except (OSError, http.client.HTTPException) as e:
            raise RequestError(f"{method} {url}: {type(e).__name__}: {e}") from e
        finally:
            conn.close()
        resp = Response(status, resp_headers, data)
        if added_gzip and resp.header("Content-Encoding").lower() == "gzip":
            try:
                resp.body = gzip.decompress(data)
            except (OSError, EOFError) as e:
                raise RequestError(f"{method} {url}: bad gzip body: {e}") from e
            resp.headers = [(k, v) for k, v in resp.headers if k.lower() not in ("content-encoding", "content-length")]
        if status in (301, 302, 303, 307, 308) and resp.header("Location"):
            url = urllib.parse.urljoin(url, resp.header("Location"))
            if status in (301, 302, 303) and method not in ("GET", "HEAD"):
                method, body = "GET", None
                hdrs.pop("Content-Type", None)
            continue
        return resp
    raise RequestError(f"{method} {url}: stopped after 10 redirects")
