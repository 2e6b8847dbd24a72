"""Hooks for scripts/fuzz-api.sh: work around schemathesis' own quirks and make its own HTTP
stack cheaper; nothing of ours.

schemathesis 4.32's coverage phase, while it varies one query parameter, fills a
`content: application/json` parameter it is not varying with the placeholder `[0]` and still
counts the case as schema-valid. Our `operations` parameter is a list of objects, so the
server rightly answers 400 `invalid_operation`, and the run reports a "schema-valid request
rejected" that is not one. Only that placeholder, only in cases meant to be valid, becomes an
empty list; everything schemathesis generates for `operations` itself is sent as it is.

The rest is speed, the same bytes on the wire. A `createJob` case carries a URL of about 6 KB
(every option is a query parameter), and the fuzzer sends over 12,000 cases, on a machine that
runs the rest of the test suite beside it:
urllib3 percent-encodes a URL one byte at a time in Python, and requests un-escapes it one `%`
at a time. Both are replaced by versions that work through C (`str.translate`, regex searches)
and give the same string, checked against the originals when this module loads (any
difference, and the originals stay).
"""

import re
import sys

import requests
import requests.utils
import schemathesis
import urllib3.util.url

PLACEHOLDER = "[0]"


@schemathesis.hook
def map_case(context, case):
    query = case.query or {}
    if query.get("operations") == PLACEHOLDER and not case.meta.generation.mode.is_negative:
        query["operations"] = "[]"
    return case


# --- urllib3: one `str.translate` instead of a loop over the URL's bytes -------------------

_slow_encode = urllib3.util.url._encode_invalid_chars
_PERCENT_RE = re.compile(r"%[a-fA-F0-9]{2}")
_LOWER_ESCAPE_RE = re.compile(r"%(?:[a-f][a-fA-F0-9]|[A-F0-9][a-f])")
_tables = {}


def _translation(allowed_chars, keep_percent):
    """The byte → text table of `allowed_chars`: itself when allowed, `%XX` otherwise."""
    cached = _tables.get(id(allowed_chars))
    if cached is None or cached[0] is not allowed_chars:
        plain = {b: chr(b) if b < 128 and chr(b) in allowed_chars else "%%%02X" % b for b in range(256)}
        cached = (allowed_chars, plain, {**plain, 0x25: "%"})
        _tables[id(allowed_chars)] = cached
    return cached[2] if keep_percent else cached[1]


def _fast_encode(component, allowed_chars):
    if component is None:
        return component
    component = urllib3.util.url.to_str(component)
    if "%" not in component and component.isascii() and all(map(allowed_chars.__contains__, component)):
        return component
    # Escapes are normalized to upper case; requests writes them so, which spares the callback.
    if _LOWER_ESCAPE_RE.search(component):
        component, percent_encodings = _PERCENT_RE.subn(lambda match: match.group(0).upper(), component)
    else:
        percent_encodings = len(_PERCENT_RE.findall(component))
    uri_bytes = component.encode("utf-8", "surrogatepass")
    keep_percent = percent_encodings == uri_bytes.count(b"%")
    # Latin-1 maps each byte to the code point of the same number, which the table is keyed by.
    return uri_bytes.decode("latin-1").translate(_translation(allowed_chars, keep_percent))


# --- requests: a regex search instead of a split on every `%` -----------------------------

_slow_unquote = requests.utils.unquote_unreserved
_ESCAPE_RE = re.compile(r"%([0-9A-Za-z]{2})")
# The escapes it changes: those of unreserved characters (0-9 A-Z a-z - . _ ~), and the
# letter pairs that are not hexadecimal, which it refuses. A URI with neither stays as it is.
_CHANGED_RE = re.compile(
    r"%(?:3[0-9]|4[1-9A-Fa-f]|5[0-9Aa]|6[1-9A-Fa-f]|7[0-9Aa]|2[DdEe]|5[Ff]|7[Ee]"
    r"|(?=[0-9A-Za-z]{2})(?![0-9A-Fa-f]{2}))"
)


def _unescape(match):
    h = match.group(1)
    try:
        c = chr(int(h, 16))
    except ValueError:
        raise requests.utils.InvalidURL(f"Invalid percent-escape sequence: '{h}'")
    return c if c in requests.utils.UNRESERVED_SET else match.group(0)


def _fast_unquote(uri):
    # `str.isalnum` admits non-ASCII letters and digits, which the regex does not: such URIs
    # keep the original.
    if not uri.isascii():
        return _slow_unquote(uri)
    if not _CHANGED_RE.search(uri):
        return uri
    return _ESCAPE_RE.sub(_unescape, uri)


def _same(fast, slow, *args):
    try:
        expected = slow(*args)
    except Exception as error:  # the same refusal, or not the same function
        try:
            fast(*args)
        except Exception as other:
            return type(other) is type(error) and str(other) == str(error)
        return False
    return fast(*args) == expected


_SAMPLES = [
    "",
    "plain/path",
    "/v1/jobs?options=%7B%22a%22%3A%201%7D&x=%zz",
    "a b\"c<d>é€\U0001f600%",
    "%41%2f%2F%%41%4%e9 ~!$&'()*+,;=:@/?#[]{}|\\^`\x00\x7f",
    "%7e%7E%41%5A%30%2D%2E%5F%20%25",
    "%g1",
    "%é1",
    "x%",
]


def _install():
    allowed_sets = [
        urllib3.util.url._PATH_CHARS,
        urllib3.util.url._QUERY_CHARS,
        urllib3.util.url._USERINFO_CHARS,
        urllib3.util.url._UNRESERVED_CHARS,
    ]
    if all(_same(_fast_encode, _slow_encode, s, chars) for s in _SAMPLES for chars in allowed_sets):
        urllib3.util.url._encode_invalid_chars = _fast_encode
    else:
        print("schemathesis_hooks: urllib3's URL encoding changed; keeping it", file=sys.stderr)
    if all(_same(_fast_unquote, _slow_unquote, s) for s in _SAMPLES):
        requests.utils.unquote_unreserved = _fast_unquote
    else:
        print("schemathesis_hooks: requests' unquoting changed; keeping it", file=sys.stderr)


_install()
