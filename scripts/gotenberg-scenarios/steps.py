"""Gotenberg's step definitions (test/integration/scenario/scenario.go, InitializeScenario),
reimplemented one for one: same regular expressions, in the same order, same semantics.

Where this file departs from the Go code, it says so at the spot:
  - the PDF checks run Debian's Poppler/qpdf instead of the integration-tools container, and
    veraPDF validation is replaced by the XMP claim (pdfchecks.py), so a validity step's
    "tolerance of N failed rules" has nothing to count and is not used;
  - "I wait for the asynchronous request to the webhook" waits for a /webhook or /webhook/error
    delivery to finish. The Go step also returns at once when *any* request reached the helper
    server before (a page fetched by Chromium, a downloadFrom): a race in Go's harness that
    would fail scenarios on timing alone, so it is not copied;
  - every request has a timeout (Go's client has none);
  - messages are shortened where Go would print whole logs or bodies.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pdfchecks
import pngimage
from gateway import Gateway, GatewayError, container_env
from gherkin import DocString
from gohttp import RequestError, Response, do_request, multipart_body
from servers import HelperServer, parse_content_disposition, save_answer_file


class StepFailed(Exception):
    pass


def q(value, limit: int = 4000) -> str:
    """Go's %q, near enough: a double-quoted string with escapes; long texts shortened."""
    text = value if isinstance(value, str) else str(value)
    if len(text) > limit:
        text = text[:limit] + f"…[{len(text) - limit} more chars]"
    return json.dumps(text, ensure_ascii=False)


def body_text(body: bytes) -> str:
    """An answer's body for a message: binary files are named, not dumped."""
    for magic, kind in ((b"%PDF-", "PDF"), (b"PK\x03\x04", "zip"), (b"\x89PNG", "PNG"), (b"\xff\xd8\xff", "JPEG"),
                        (b"RIFF", "RIFF/WebP")):
        if body.startswith(magic):
            return f"<{len(body)}-byte {kind}>"
    return body.decode("utf-8", errors="replace")


def line_diff(expected: str, actual: str) -> str:
    """For multi-line texts: which lines are missing, which are unexpected, or only the order."""
    exp, act = expected.split("\n"), actual.split("\n")
    if len(exp) < 2 and len(act) < 2:
        return ""
    # Gotenberg's multi-error bodies put "Invalid form data: " before the first error only.
    lead = "Invalid form data: "
    if exp[0].startswith(lead) and act[0].startswith(lead):
        exp[0], act[0] = exp[0][len(lead):], act[0][len(lead):]
    missing = [ln for ln in exp if ln not in act]
    extra = [ln for ln in act if ln not in exp]
    if not missing and not extra:
        return " [same lines, in another order]"
    parts = []
    common_exp = [ln for ln in exp if ln in act]
    common_act = [ln for ln in act if ln in exp]
    if common_exp != common_act:
        parts.append("the lines both have come in another order")
    if missing:
        parts.append(f"missing lines: {q(chr(10).join(missing), 1500)}")
    if extra:
        parts.append(f"unexpected lines: {q(chr(10).join(extra), 1500)}")
    return " [" + "; ".join(parts) + "]"


@dataclass
class RunContext:
    """What every scenario shares: the server under test and where things are."""
    gateway: Gateway
    testdir: Path  # the checkout's test/integration (Go's working directory)
    scratch: Path
    version: str  # {version} in expected bodies
    host_alias: str | None  # when not None, host.docker.internal is replaced by it in requests
    request_timeout: float = 180.0
    keep: bool = False  # keep each scenario's answers (--keep)


@dataclass
class World:
    """One scenario's state: scenario.go's `scenario` struct."""
    ctx: RunContext
    workdir: Path
    resp: Response = field(default_factory=Response)
    concurrent: list[Response] = field(default_factory=list)
    teststore_dir: str = ""
    has_container: bool = False
    server: HelperServer | None = None
    servers: list[HelperServer] = field(default_factory=list)
    host_port: int = 0
    log_mark: int = 0
    notes: list[str] = field(default_factory=list)

    def close(self) -> None:
        for srv in self.servers:
            srv.stop()

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    # -- helpers -------------------------------------------------------------------------------
    def alias(self, value: str) -> str:
        if self.ctx.host_alias is None:
            return value
        return value.replace("host.docker.internal", self.ctx.host_alias)

    def trace_dir(self) -> str:
        return f"{self.workdir}/{self.resp.header('Gotenberg-Trace')}"

    def response_file(self, name: str) -> str:
        return f"{self.trace_dir()}/{name}"

    def pdf_paths(self) -> list[str]:
        """filepath.Walk over teststoreDir, keeping names ending in .pdf (any case)."""
        d = self.teststore_dir
        if not os.path.exists(d):
            raise StepFailed(f"directory {q(d)} does not exist")
        return [p for p, name, _ in go_walk(d) if name.lower().endswith(".pdf")]

    def resolve_pdf(self, name: str) -> str:
        """A literal name: WORKDIR/<response trace>/name, which must exist. `*_x`: the first entry
        under teststoreDir whose name contains `x`, in Walk order."""
        if not name.startswith("*_"):
            path = self.response_file(name)
            if not os.path.exists(path):
                raise StepFailed(f"PDF {q(path)} does not exist")
            return path
        substr = name.replace("*_", "")
        if not os.path.exists(self.teststore_dir):
            raise StepFailed(f"walk {q(str(self.workdir))}: lstat {self.teststore_dir}: no such file or directory")
        for path, base, _ in go_walk(self.teststore_dir):
            if substr in base:
                return path
        raise StepFailed(f"no file whose name contains {q(substr)} in the response (Go would run the tool on no file)")

    def webhook_source(self, kind: str):
        if kind == "response":
            return None
        if self.server is None:
            raise StepFailed("server not initialized")
        if self.server.req is None:
            raise StepFailed("no webhook request found")
        return self.server


def go_walk(root: str):
    """filepath.Walk's order: the root, then each directory's entries sorted by name, depth first.
    Yields (path, base name, is_dir)."""
    yield root, os.path.basename(root), os.path.isdir(root)
    if not os.path.isdir(root):
        return
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if os.path.isdir(path) and not os.path.islink(path):
            yield from go_walk(path)
        else:
            yield path, name, False


# ---------------------------------------------------------------------------------------------
# Given
# ---------------------------------------------------------------------------------------------
def i_have_a_default_gotenberg_container(w: World) -> None:
    _start_container(w, None)


def i_have_a_gotenberg_container_with_env(w: World, table) -> None:
    env: dict[str, str] = {}
    for row in table or []:
        env[row[0]] = row[1]
    _start_container(w, env)


def _start_container(w: World, env: dict[str, str] | None) -> None:
    try:
        w.ctx.gateway.ensure(container_env(env))
    except GatewayError as e:
        raise StepFailed(f"create Gotenberg container: {e}") from e
    w.has_container = True
    w.log_mark = w.ctx.gateway.log_offset()


def i_have_a_server(w: World, _kind: str) -> None:
    # Like the Go step: a new server each time; the newest one is "the" server and its port the %d.
    srv = HelperServer(w.ctx.testdir, w.workdir)
    w.host_port = srv.start()
    w.server = srv
    w.servers.append(srv)


# ---------------------------------------------------------------------------------------------
# When
# ---------------------------------------------------------------------------------------------
def _require_container(w: World) -> None:
    if not w.has_container:
        raise StepFailed("no Gotenberg container")
    if not w.ctx.gateway.alive():
        raise StepFailed(f"pdfgate is not running any more: {w.ctx.gateway.log_tail(8)}")


def _send(w: World, method: str, endpoint: str, headers: dict[str, str], body: bytes | None = None) -> Response:
    try:
        return do_request(method, f"{w.ctx.gateway.base_url}{endpoint}", headers, body, w.ctx.request_timeout)
    except RequestError as e:
        alive = "" if w.ctx.gateway.alive() else f" (pdfgate died: {w.ctx.gateway.log_tail(8)})"
        raise StepFailed(f"do request: {e}{alive}") from e


def i_make_a_request(w: World, method: str, endpoint: str) -> None:
    i_make_a_request_with_headers(w, method, endpoint, None)


def i_make_a_request_with_headers(w: World, method: str, endpoint: str, table) -> None:
    _require_container(w)
    headers = {row[0]: row[1] for row in (table or [])}
    w.resp = _send(w, method, endpoint, headers)


def _go_sprintf_port(fmt: str, port: int) -> str:
    """fmt.Sprintf(value, s.hostPort) for a header value: the first %d gets the port."""
    out, used, i = [], False, 0
    while i < len(fmt):
        if fmt.startswith("%%", i):
            out.append("%")
            i += 2
        elif fmt.startswith("%d", i):
            out.append(str(port) if not used else "%!d(MISSING)")
            used = True
            i += 2
        else:
            out.append(fmt[i])
            i += 1
    return "".join(out)


def i_make_a_form_request(w: World, method: str, endpoint: str, table) -> None:
    _require_container(w)
    fields: dict[str, list[str]] = {}
    files: dict[str, list[str]] = {}
    headers: dict[str, str] = {}
    for row in table or []:
        name, value, kind = row[0], row[1], row[2]
        if kind == "field":
            if name in ("downloadFrom", "url", "cookies"):
                value = w.alias(value.replace("%d", str(w.host_port)))
            fields.setdefault(name, []).append(value)
        elif kind == "file":
            if "teststore" in value:
                if not w.teststore_dir:
                    raise StepFailed("no teststore directory available from previous requests")
                if not os.path.exists(w.teststore_dir):
                    raise StepFailed(f"directory {q(w.teststore_dir)} does not exist")
                value = value.replace("teststore", w.teststore_dir)
            else:
                value = f"{w.ctx.testdir}/{value}"
            files.setdefault(name, []).append(value)
        elif kind == "header":
            if name in ("Gotenberg-Webhook-Url", "Gotenberg-Webhook-Error-Url", "Gotenberg-Webhook-Events-Url"):
                headers[name] = w.alias(_go_sprintf_port(value, w.host_port))
                continue
            headers[name] = value
        else:
            raise StepFailed(f"unexpected {q(kind)} {q(value)}")
    try:
        body, ctype = multipart_body(fields, files)
    except OSError as e:
        raise StepFailed(f"do request: open file: {e}") from e
    headers["Content-Type"] = ctype
    w.resp = _send(w, method, endpoint, headers, body)
    resp = w.resp

    if resp.status == 204:
        # Asynchronous: the webhook server saves the files under this trace's directory.
        w.teststore_dir = f"{w.workdir}/{resp.header('Gotenberg-Trace')}"
        return
    if resp.status != 200:
        return
    cd = resp.header("Content-Disposition")
    if not cd:
        return
    try:
        _, params = parse_content_disposition(cd)
    except ValueError as e:
        raise StepFailed(f"parse Content-Disposition header: {e}") from e
    filename = params.get("filename")
    if filename is None:
        raise StepFailed("no filename in Content-Disposition header")
    dir_path = Path(w.trace_dir())
    dir_path.mkdir(parents=True, exist_ok=True)
    w.teststore_dir = str(dir_path)
    err = save_answer_file(dir_path, filename, resp.body, unzip=resp.header("Content-Type") == "application/zip")
    if err:
        raise StepFailed(err)


def i_make_concurrent_requests(w: World, count: int, method: str, endpoint: str, table) -> None:
    _require_container(w)
    fields: dict[str, list[str]] = {}
    files: dict[str, list[str]] = {}
    headers: dict[str, str] = {}
    for row in table or []:
        name, value, kind = row[0], row[1], row[2]
        if kind == "field":
            fields.setdefault(name, []).append(value)
        elif kind == "file":
            files.setdefault(name, []).append(f"{w.ctx.testdir}/{value}")
        elif kind == "header":
            headers[name] = value
        else:
            raise StepFailed(f"unexpected {q(kind)} {q(value)}")
    lock = threading.Lock()
    errors: list[str] = []
    w.concurrent = []

    def one() -> None:
        try:
            body, ctype = multipart_body(fields, files)
            resp = _send(w, method, endpoint, {**headers, "Content-Type": ctype}, body)
        except (StepFailed, OSError) as e:
            with lock:
                errors.append(str(e))
            return
        if resp.status == 200:
            cd = resp.header("Content-Disposition")
            if cd:
                try:
                    _, params = parse_content_disposition(cd)
                except ValueError:
                    params = {}
                if "filename" in params:
                    d = Path(f"{w.workdir}/{resp.header('Gotenberg-Trace')}")
                    with lock:
                        d.mkdir(parents=True, exist_ok=True)
                    save_answer_file(d, params["filename"], resp.body, unzip=False)
        with lock:
            w.concurrent.append(resp)

    threads = [threading.Thread(target=one) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise StepFailed(f"concurrent requests failed: {errors}")


def i_wait_for_the_webhook(w: World) -> None:
    if w.server is None:
        raise StepFailed("server not initialized")
    # Departure from the Go step (see the module's docstring): wait for a webhook delivery.
    try:
        err = w.server.webhook_done.get(timeout=w.ctx.request_timeout)
    except Exception as e:  # queue.Empty
        raise StepFailed(f"no request reached /webhook or /webhook/error within {w.ctx.request_timeout:.0f} s") from e
    if err:
        raise StepFailed(err)


# ---------------------------------------------------------------------------------------------
# Then
# ---------------------------------------------------------------------------------------------
def container_should_log(w: World, should: str, table) -> None:
    if not w.has_container:
        raise StepFailed("no Gotenberg container")
    expected = [row[0] for row in table or []]
    invert = should == "should NOT"

    def check() -> str | None:
        logs = w.ctx.gateway.log_since(w.log_mark)
        for entry in expected:
            if not invert and entry not in logs:
                lines = [ln for ln in logs.strip().split("\n") if ln]
                return (f"expected log entry {q(entry)} not found in pdfgate's log "
                        f"({len(lines)} lines for this scenario; last: {q((lines[-1] if lines else '')[:160])})")
            if invert and entry in logs:
                line = next((ln for ln in logs.split("\n") if entry in ln), "")
                return f"log entry {q(entry)} NOT expected, but logged: {q(line)}"
        return None

    err = None
    for _ in range(3):
        err = check()
        if err and not invert:
            time.sleep(0.5)  # not every line may be written yet
            continue
        break
    if err:
        raise StepFailed(err)


def response_status_should_be(w: World, expected: int) -> None:
    if w.resp.status != expected:
        raise StepFailed(f"expected response status code to be: {expected}, but actual is: {w.resp.status} "
                         f"{q(body_text(w.resp.body), 1500)}")


def all_concurrent_status_should_be(w: World, expected: int) -> None:
    if not w.concurrent:
        raise StepFailed("no concurrent responses recorded")
    for i, r in enumerate(w.concurrent):
        if r.status != expected:
            raise StepFailed(f"concurrent response {i + 1}: expected status {expected}, got {r.status} "
                             f"{q(body_text(r.body), 1500)}")


def all_concurrent_should_have_pdfs(w: World, expected: int) -> None:
    if not w.concurrent:
        raise StepFailed("no concurrent responses recorded")
    for i, r in enumerate(w.concurrent):
        d = f"{w.workdir}/{r.header('Gotenberg-Trace')}"
        if not os.path.exists(d):
            raise StepFailed(f"concurrent response {i + 1}: directory {q(d)} does not exist")
        n = sum(1 for _, name, _ in go_walk(d) if name.lower().endswith(".pdf"))
        if n != expected:
            raise StepFailed(f"concurrent response {i + 1}: expected {expected} PDF(s), got {n}")


def header_should_be(w: World, kind: str, name: str, expected: str) -> None:
    src = w.webhook_source(kind)
    actual = w.resp.header(name) if src is None else src.req.header(name)
    if expected != actual:
        extra = ""
        if src is not None and src.req.route == "webhook-error":
            extra = f" (that request went to /webhook/error with body {q(body_text(src.body_copy), 600)})"
        raise StepFailed(f"expected {kind} header {q(name)} to be: {q(expected)}, but actual is: {q(actual)}{extra}")


def webhook_header_should_carry_trace_id(w: World, name: str, expected: str) -> None:
    if w.server is None:
        raise StepFailed("server not initialized")
    if w.server.req is None:
        raise StepFailed("no webhook request found")
    value = w.server.req.header(name)
    if not value:
        raise StepFailed(f"expected webhook request header {q(name)} to be set, but it is empty")
    parts = value.split("-")
    if len(parts) != 4:
        raise StepFailed(f"expected webhook request header {q(name)} to be a valid traceparent, but got {q(value)}")
    if parts[1] != expected:
        raise StepFailed(f"expected webhook request header {q(name)} to carry trace id {q(expected)}, "
                         f"but actual is {q(parts[1])}")


_COOKIE_NAME = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")


def _request_cookies(values: list[str]) -> list[tuple[str, str]]:
    # net/http readCookies: `a=b; c=d`, each pair trimmed, quoted values unquoted, bad names skipped.
    out = []
    for line in values:
        for part in line.split(";"):
            part = part.strip()
            if not part or "=" not in part:
                continue
            name, val = part.split("=", 1)
            if not _COOKIE_NAME.match(name):
                continue
            if len(val) > 1 and val[0] == '"' and val[-1] == '"':
                val = val[1:-1]
            out.append((name, val))
    return out


def _set_cookies(values: list[str]) -> list[tuple[str, str]]:
    out = []
    for line in values:
        first = line.split(";", 1)[0].strip()
        if "=" in first:
            name, val = first.split("=", 1)
            if _COOKIE_NAME.match(name.strip()):
                val = val.strip()
                if len(val) > 1 and val[0] == '"' and val[-1] == '"':
                    val = val[1:-1]
                out.append((name.strip(), val))
    return out


def cookie_should_be(w: World, kind: str, name: str, expected: str) -> None:
    src = w.webhook_source(kind)
    cookies = _set_cookies(w.resp.header_values("Set-Cookie")) if src is None \
        else _request_cookies(src.req.header_values("Cookie"))
    actual = next((v for n, v in cookies if n == name), None)
    if actual is None:
        if expected != "":
            raise StepFailed(f"expected {kind} cookie {q(name)} not found")
        return
    if expected != actual:
        raise StepFailed(f"expected {kind} cookie {q(name)} to be: {q(expected)}, but actual is: {q(actual)}")


def _body(w: World, kind: str) -> bytes:
    src = w.webhook_source(kind)
    return w.resp.body if src is None else src.body_copy


def body_should_match_string(w: World, kind: str, doc: DocString) -> None:
    actual = _body(w, kind).decode("utf-8", errors="replace")
    expected = doc.content.replace("{version}", w.ctx.version)
    if actual != expected:
        raise StepFailed(f"expected {q(kind)} body to be: {q(expected)}, but actual is: {q(body_text(_body(w, kind)))}"
                         f"{line_diff(expected, actual)}")


def body_should_contain_string(w: World, kind: str, doc: DocString) -> None:
    actual = _body(w, kind).decode("utf-8", errors="replace")
    expected = doc.content.replace("{version}", w.ctx.version)
    if expected not in actual:
        raise StepFailed(f"expected {q(kind)} body to contain: {q(expected)}, but actual is: {q(body_text(_body(w, kind)))}")


def _go_json(text: str | bytes):
    """encoding/json into `any`: every number a float64; NaN/Infinity are not JSON."""
    def bad_constant(name):
        raise ValueError(f"invalid character '{name[0]}' looking for beginning of value")
    return json.loads(text, parse_int=float, parse_constant=bad_constant)


def _go_type(v) -> str:
    return {dict: "map[string]interface {}", list: "[]interface {}", str: "string", float: "float64",
            bool: "bool", type(None): "<nil>"}.get(type(v), type(v).__name__)


def _go_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(int(v)) if v.is_integer() and abs(v) < 1e21 else repr(v)
    if v is None:
        return "<nil>"
    return json.dumps(v, ensure_ascii=False)[:300] if not isinstance(v, str) else v


def compare_json(expected, actual) -> str | None:
    """compare.go's compareJson: objects compared on the expected keys ("ignore" skips one),
    arrays element by element, the rest with reflect.DeepEqual (a bool is never a number)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"expected an object, but actual is: {_go_type(actual)}"
        for key, exp in expected.items():
            if exp == "ignore" and isinstance(exp, str):
                continue
            if key not in actual:
                return f"missing expected key {json.dumps(key)}"
            err = compare_json(exp, actual[key])
            if err:
                return f"key {json.dumps(key)}: {err}"
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return f"expected an array, but actual is: {_go_type(actual)}"
        if len(expected) != len(actual):
            return f"expected array length to be: {len(expected)}, but actual is: {len(actual)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            err = compare_json(e, a)
            if err:
                return f"at index {i}: {err}"
        return None
    same = type(expected) is type(actual) and (expected == actual or (
        isinstance(expected, float) and math.isnan(expected) and math.isnan(actual)))
    if not same:
        return (f"expected {_go_value(expected)} ({_go_type(expected)}) but got "
                f"{_go_value(actual)} ({_go_type(actual)})")
    return None


def _jv(v) -> str:
    text = json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= 300 else text[:300] + "…"


def json_differences(expected, actual, path: str = "") -> list[str]:
    """Every difference compare_json would stop at, for the report (Go stops at the first one
    it meets, in map order, which is random)."""
    here = path or "."
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{here}: expected an object, got {_jv(actual)}"]
        out = []
        for key, exp in expected.items():
            if isinstance(exp, str) and exp == "ignore":
                continue
            if key not in actual:
                out.append(f"{path}.{key}: missing")
            else:
                out.extend(json_differences(exp, actual[key], f"{path}.{key}"))
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{here}: expected an array, got {_jv(actual)}"]
        if len(expected) != len(actual):
            return [f"{here}: expected {_jv(expected)}, got {_jv(actual)}"]
        out = []
        for i, (e, a) in enumerate(zip(expected, actual)):
            out.extend(json_differences(e, a, f"{path}[{i}]"))
        return out
    err = compare_json(expected, actual)
    return [f"{here}: expected {_jv(expected)}, got {_jv(actual)}"] if err else []


def _expected_and_actual(w: World, doc: DocString, body: bytes) -> tuple:
    """The step's JSON ({version} filled in) and the body's, both read as Go reads them."""
    content = doc.content.replace("{version}", w.ctx.version)
    try:
        expected = _go_json(content)
    except ValueError as e:
        raise StepFailed(f"unmarshal expected JSON: {e}") from e
    try:
        actual = _go_json(body)
    except (ValueError, UnicodeDecodeError) as e:
        raise StepFailed(f"unmarshal actual JSON: {e}; body: {q(body_text(body), 1500)}") from e
    return expected, actual


def body_should_match_json(w: World, kind: str, doc: DocString) -> None:
    expected, actual = _expected_and_actual(w, doc, _body(w, kind))
    err = compare_json(expected, actual)
    if err:
        diffs = json_differences(expected, actual)
        raise StepFailed(f"expected matching JSON: {err}; all differences ({len(diffs)}): {'; '.join(diffs)}")


def webhook_event_should_match_json(w: World, doc: DocString) -> None:
    if w.server is None:
        raise StepFailed("server not initialized")
    deadline = time.monotonic() + 5
    while True:
        with w.server.lock:
            body = w.server.event_body
        if body is not None:
            break
        if time.monotonic() > deadline:
            raise StepFailed("timed out waiting for webhook event")
        time.sleep(0.1)
    expected, actual = _expected_and_actual(w, doc, body)
    err = compare_json(expected, actual)
    if err:
        raise StepFailed(f"expected matching webhook event JSON: {err}; body: {q(body_text(body), 800)}")


def there_should_be_pdfs(w: World, expected: int, _kind: str) -> None:
    n = len(w.pdf_paths())
    if n != expected:
        raise StepFailed(f"expected {expected} PDF(s), but actual is {n}")


def there_should_be_files(w: World, _kind: str, table) -> None:
    d = w.teststore_dir
    if not os.path.exists(d):
        raise StepFailed(f"directory {q(d)} does not exist")
    names = [name for path, name, is_dir in go_walk(d) if not is_dir and path != d]
    for row in table or []:
        expected = row[0]
        found = False
        for name in names:
            if expected.startswith("*_") and expected.replace("*_", "") in name:
                found = True
            if expected.lower() == name.lower():  # strings.EqualFold
                found = True
                break
        if not found:
            raise StepFailed(f"expected file {q(expected)} not found among {q(str(names))}")


def pdfs_should_be_valid(w: World, _kind: str, standard: str, tolerance: int) -> None:
    paths = w.pdf_paths()
    if standard not in ("PDF/A-1b", "PDF/A-2b", "PDF/A-3b", "PDF/UA-1", "PDF/UA-2"):
        raise StepFailed(f"unknown {q(standard)}")
    w.note(f"{standard}: XMP claim only")
    for path in paths:
        try:
            pdfchecks.check_validity_claim(path, standard)
        except pdfchecks.CheckError as e:
            raise StepFailed(f"{os.path.basename(path)}: {e}") from e


def pdfs_should_be_flatten(w: World, _kind: str, should: str) -> None:
    invert = should == "should NOT"
    for path in w.pdf_paths():
        n = _check(pdfchecks.annotation_count, path)
        if invert and n == 0:
            raise StepFailed(f"PDF {q(path)} is flatten")
        if not invert and n > 0:
            raise StepFailed(f"PDF {q(os.path.basename(path))} is not flatten: {n} annotation(s) left")


PERMISSION_FLAGS = {"printing": "print", "copying": "copy", "modifying": "change", "annotating": "addNotes"}


def pdfs_should_allow(w: World, _kind: str, should: str, action: str) -> None:
    flag = PERMISSION_FLAGS.get(action)
    if flag is None:
        raise StepFailed(f"unsupported permission action {q(action)}")
    invert = should == "should NOT"
    for path in w.pdf_paths():
        output = _check(pdfchecks.pdfinfo, path)
        stripped = output.replace(" ", "").replace("\n", "")
        denied = f"{flag}:no" in stripped
        allowed = f"{flag}:yes" in stripped
        if invert and not denied:
            raise StepFailed(f"expected PDF {q(os.path.basename(path))} to deny {q(action)}, got: {q(_enc_line(output))}")
        if not invert and not allowed:
            raise StepFailed(f"expected PDF {q(os.path.basename(path))} to allow {q(action)}, got: {q(_enc_line(output))}")


def _enc_line(pdfinfo_output: str) -> str:
    return next((ln for ln in pdfinfo_output.split("\n") if ln.startswith("Encrypted")), pdfinfo_output[:200])


def pdfs_should_be_encrypted(w: World, _kind: str, should: str) -> None:
    invert = should == "should NOT"
    for path in w.pdf_paths():
        output = _check(pdfchecks.pdfinfo, path)
        stripped = output.replace(" ", "").replace("\n", "")
        encrypted = "CommandLineError:Incorrectpassword" in stripped
        if invert and encrypted:
            raise StepFailed(f"PDF {q(os.path.basename(path))} is encrypted")
        if not invert and not encrypted:
            raise StepFailed(f"PDF {q(os.path.basename(path))} is not encrypted (pdfinfo opens it without a "
                             f"password): {q(_enc_line(output))}")


def pdfs_should_have_embedded(w: World, _kind: str, should: str, embed: str) -> None:
    invert = should == "should NOT"
    for path in w.pdf_paths():
        files = _check(pdfchecks.embedded_files, path)
        found = any(name == embed for name, _ in files)
        if invert and found:
            raise StepFailed(f"embed {q(embed)} found")
        if not invert and not found:
            raise StepFailed(f"embed {q(embed)} not found (embedded: {[n for n, _ in files]})")


def pdfs_should_have_embedded_with_relationship(w: World, _kind: str, embed: str, relationship: str) -> None:
    for path in w.pdf_paths():
        files = _check(pdfchecks.embedded_files, path)
        match = next(((n, r) for n, r in files if n == embed), None)
        if match is None:
            raise StepFailed(f"embedded file {q(embed)} not found in verapdf output (embedded: {[n for n, _ in files]})")
        if match[1] != relationship:
            raise StepFailed(f"embedded file {q(embed)} missing afRelationship {q(relationship)} (has {q(match[1] or 'none')})")


def pdfs_should_declare_facturx(w: World, _kind: str, level: str) -> None:
    for path in w.pdf_paths():
        output = _check(pdfchecks.pdfinfo, path, "-meta")
        if "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#" not in output:
            raise StepFailed("missing Factur-X namespace in XMP")
        if "pdfaExtension:schemas" not in output:
            raise StepFailed("missing PDF/A extension schema in XMP")
        if f"<fx:ConformanceLevel>{level}</fx:ConformanceLevel>" not in output:
            raise StepFailed(f"missing fx:ConformanceLevel {q(level)} in XMP")


def _check(fn: Callable, *args):
    try:
        return fn(*args)
    except pdfchecks.CheckError as e:
        raise StepFailed(str(e)) from e


def pdf_should_have_pages(w: World, name: str, pages: int) -> None:
    path = w.resolve_pdf(name)
    output = _check(pdfchecks.pdfinfo, path).replace(" ", "")
    m = re.search(r"Pages:(\d+)", output)
    if not m:
        raise StepFailed(f"expected pages (pdfinfo: {q(output.strip()[:200])})")
    if int(m.group(1)) != pages:
        raise StepFailed(f"expected {pages} pages, but actual is {m.group(1)}")


def pdf_should_be_landscape(w: World, name: str, should: str) -> None:
    path = w.resolve_pdf(name)
    output = _check(pdfchecks.pdfinfo, path).replace(" ", "")
    m = re.search(r"Pagesize:([\d.]+)x([\d.]+)", output)
    if not m:
        raise StepFailed("expected page size")
    width, height = float(m.group(1)), float(m.group(2))
    if should == "should NOT" and height < width:
        raise StepFailed(f"expected height {height:g} to be greater than width {width:g}")
    if should == "should" and width < height:
        raise StepFailed(f"expected width {width:g} to be greater than height {height:g}")


def pdf_should_have_outline(w: World, name: str, should: str) -> None:
    path = w.resolve_pdf(name)
    has = _check(pdfchecks.has_outline, path)
    if should == "should" and not has:
        raise StepFailed(f"PDF {q(os.path.basename(path))} has no document outline")
    if should == "should NOT" and has:
        raise StepFailed(f"PDF {q(os.path.basename(path))} has a document outline")


def pdf_should_have_content_at_page(w: World, name: str, should: str, page: int, doc: DocString) -> None:
    output = _check(pdfchecks.page_text, w.resolve_pdf(name), page)
    if should == "should" and doc.content not in output:
        raise StepFailed(f"expected {q(doc.content)} not found in {q(output)}")
    if should == "should NOT" and doc.content in output:
        raise StepFailed(f"{q(doc.content)} found in {q(output)}")


def pdf_should_have_content_matching(w: World, name: str, should: str, pattern: str, page: int) -> None:
    output = _check(pdfchecks.page_text, w.resolve_pdf(name), page)
    try:
        rx = re.compile(pattern)
    except re.error as e:
        raise StepFailed(f"compile pattern {q(pattern)}: {e}") from e
    if should == "should" and not rx.search(output):
        raise StepFailed(f"pattern {q(pattern)} not found in {q(output)}")
    if should == "should NOT" and rx.search(output):
        raise StepFailed(f"pattern {q(pattern)} found in {q(output)}")


def pdf_should_have_images(w: World, name: str, images: int) -> None:
    path = w.response_file(name)
    if not os.path.exists(path):
        raise StepFailed(f"PDF {q(path)} does not exist")
    n = _check(pdfchecks.image_count, path)
    if n != images:
        raise StepFailed(f"expected {images} image(s), but actual is {n}")


def _read_image(w: World, name: str) -> bytes:
    path = w.response_file(name)
    try:
        return Path(path).read_bytes()
    except OSError as e:
        raise StepFailed(f"open image {q(path)}: {e}") from e


def image_should_be_pixels(w: World, name: str, width: int, height: int) -> None:
    data = _read_image(w, name)
    try:
        wd, ht = pngimage.size(data)
    except pngimage.ImageError as e:
        raise StepFailed(f"decode image {q(name)}: {e}") from e
    if (wd, ht) != (width, height):
        raise StepFailed(f"expected png image {width}x{height}, but actual is {wd}x{ht}")


def image_pixel_should_be(w: World, name: str, x: int, y: int, want: str) -> None:
    data = _read_image(w, name)
    try:
        got = pngimage.pixel_hex(data, x, y)
    except (pngimage.ImageError, Exception) as e:  # noqa: BLE001 - any decode failure
        raise StepFailed(f"decode image {q(name)}: {e}") from e
    if got.lower() != want.lower():
        raise StepFailed(f"expected png pixel at {x},{y} to be {want}, but actual is {got}")


def file_size_should_be(w: World, name: str, comparator: str, size_kb: int) -> None:
    path = w.response_file(name)
    try:
        size = os.stat(path).st_size
    except OSError as e:
        raise StepFailed(f"stat {q(path)}: {e}") from e
    limit = size_kb * 1024
    if comparator == "less" and size >= limit:
        raise StepFailed(f"expected {name} ({size} bytes) to be smaller than {size_kb} KB")
    if comparator == "greater" and size <= limit:
        raise StepFailed(f"expected {name} ({size} bytes) to be larger than {size_kb} KB")


# ---------------------------------------------------------------------------------------------
# The registry: InitializeScenario's list, in its order. (pattern, function, argument kinds)
# "t" a table, "d" a doc string, "i" an integer group, "s" a string group.
# ---------------------------------------------------------------------------------------------
STEPS: list[tuple[re.Pattern, Callable, str]] = [(re.compile(p), f, a) for p, f, a in [
    (r'^I have a default Gotenberg container$', i_have_a_default_gotenberg_container, ""),
    (r'^I have a Gotenberg container with the following environment variable\(s\):$', i_have_a_gotenberg_container_with_env, "t"),
    (r'^I have a (webhook|static) server$', i_have_a_server, "s"),
    (r'^I make a "(GET|HEAD)" request to Gotenberg at the "([^"]*)" endpoint$', i_make_a_request, "ss"),
    (r'^I make a "(GET|HEAD)" request to Gotenberg at the "([^"]*)" endpoint with the following header\(s\):$', i_make_a_request_with_headers, "sst"),
    (r'^I make a "(POST)" request to Gotenberg at the "([^"]*)" endpoint with the following form data and header\(s\):$', i_make_a_form_request, "sst"),
    (r'^I make (\d+) concurrent "(POST)" requests to Gotenberg at the "([^"]*)" endpoint with the following form data and header\(s\):$', i_make_concurrent_requests, "isst"),
    (r'^I wait for the asynchronous request to the webhook$', i_wait_for_the_webhook, ""),
    (r'^the Gotenberg container (should|should NOT) log the following entries:$', container_should_log, "st"),
    (r'^the response status code should be (\d+)$', response_status_should_be, "i"),
    (r'^all concurrent response status codes should be (\d+)$', all_concurrent_status_should_be, "i"),
    (r'^all concurrent responses should have (\d+) PDF\(s\)$', all_concurrent_should_have_pdfs, "i"),
    (r'^the (response|webhook request|file request|server request) header "([^"]*)" should be "([^"]*)"$', header_should_be, "sss"),
    (r'^the webhook request header "([^"]*)" should carry trace id "([^"]*)"$', webhook_header_should_carry_trace_id, "ss"),
    (r'^the (response|webhook request|file request|server request) cookie "([^"]*)" should be "([^"]*)"$', cookie_should_be, "sss"),
    (r'^the (response|webhook request) body should match string:$', body_should_match_string, "sd"),
    (r'^the (response|webhook request) body should contain string:$', body_should_contain_string, "sd"),
    (r'^the (response|webhook request) body should match JSON:$', body_should_match_json, "sd"),
    (r'^the webhook event should match JSON:$', webhook_event_should_match_json, "d"),
    (r'^there should be (\d+) PDF\(s\) in the (response|webhook request)$', there_should_be_pdfs, "is"),
    (r'^there should be the following file\(s\) in the (response|webhook request):$', there_should_be_files, "st"),
    (r'^the (response|webhook request) PDF\(s\) should be valid "([^"]*)" with a tolerance of (\d+) failed rule\(s\)$', pdfs_should_be_valid, "ssi"),
    (r'^the (response|webhook request) PDF\(s\) (should|should NOT) be flatten$', pdfs_should_be_flatten, "ss"),
    (r'^the (response|webhook request) PDF\(s\) (should|should NOT) be encrypted', pdfs_should_be_encrypted, "ss"),
    (r'^the (response|webhook request) PDF\(s\) (should|should NOT) allow "([^"]*)"$', pdfs_should_allow, "sss"),
    (r'^the (response|webhook request) PDF\(s\) (should|should NOT) have the "([^"]*)" file embedded$', pdfs_should_have_embedded, "sss"),
    (r'^the (response|webhook request) PDF\(s\) should have the "([^"]*)" file embedded with relationship "([^"]*)"$', pdfs_should_have_embedded_with_relationship, "sss"),
    (r'^the (response|webhook request) PDF\(s\) should declare Factur-X XMP with conformance level "([^"]*)"$', pdfs_should_declare_facturx, "ss"),
    (r'^the "([^"]*)" PDF should have (\d+) page\(s\)$', pdf_should_have_pages, "si"),
    (r'^the "([^"]*)" PDF (should|should NOT) be set to landscape orientation$', pdf_should_be_landscape, "ss"),
    (r'^the "([^"]*)" PDF (should|should NOT) have a document outline$', pdf_should_have_outline, "ss"),
    (r'^the "([^"]*)" PDF (should|should NOT) have the following content at page (\d+):$', pdf_should_have_content_at_page, "ssid"),
    (r'^the "([^"]*)" PDF (should|should NOT) have content matching "([^"]*)" at page (\d+)$', pdf_should_have_content_matching, "sssi"),
    (r'^the "([^"]*)" PDF should have (\d+) image\(s\)$', pdf_should_have_images, "si"),
    (r'^the "([^"]*)" image should be (\d+)x(\d+) pixels$', image_should_be_pixels, "sii"),
    (r'^the "([^"]*)" image pixel at (\d+),(\d+) should be "([^"]*)"$', image_pixel_should_be, "siis"),
    (r'^the "([^"]*)" file size should be (less|greater) than (\d+) KB$', file_size_should_be, "ssi"),
]]


class UndefinedStep(Exception):
    pass


def run_step(w: World, step) -> None:
    """Matches the step text as godog does (the first definition whose expression matches) and
    calls it with its groups, then its table or doc string."""
    for rx, fn, kinds in STEPS:
        m = rx.search(step.text)
        if not m:
            continue
        args: list = []
        groups = list(m.groups())
        for kind in kinds:
            if kind == "t":
                if step.table is None:
                    raise StepFailed("step expects a data table")
                args.append(step.table)
            elif kind == "d":
                if step.doc is None:
                    raise StepFailed("step expects a doc string")
                args.append(step.doc)
            elif kind == "i":
                args.append(int(groups.pop(0)))
            else:
                args.append(groups.pop(0))
        fn(w, *args)
        return
    raise UndefinedStep(step.text)


def new_world(ctx: RunContext) -> World:
    workdir = ctx.scratch / "teststore" / str(uuid.uuid4())
    workdir.mkdir(parents=True, exist_ok=True)
    return World(ctx=ctx, workdir=workdir)
