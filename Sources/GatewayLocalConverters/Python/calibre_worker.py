"""The worker each warm Calibre slot runs (DESIGN §4).

Run by the gateway (CalibreConverter, inside the converter sandbox), which writes this file into
the converter's private directory as pdfgate_calibre_worker.py and starts it with Calibre's own
interpreter, `calibre-debug -e pdfgate_calibre_worker.py` (the calibre-debug beside
ebook-convert), so that Calibre's modules are importable.

A cold ebook-convert spends about a second importing Calibre and starting Qt WebEngine before
it reads the book; this worker does that once and then runs conversions the way ebook-convert's
own main does (the same option parser and recommendations), one per request. Each conversion
makes its own off-the-record WebEngine profile, so no storage passes from one book to the next;
what does accumulate (those profiles, a few descriptors) is why the slot restarts the worker
after a number of books.

Protocol: stdin and stdout are the gateway's socket. One JSON object per line in ("op": ping,
quit, or a conversion with "input", "output" and ebook-convert's "arguments"), one reply line
per request out; the Swift side is WorkerRequest/WorkerReply.
"""

import json, os, sys, traceback

# Replies go to the real stdout; Calibre logs to stdout, so that becomes stderr (the log).
_replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)

from calibre.customize.conversion import OptionRecommendation
from calibre.ebooks.conversion.cli import create_option_parser
from calibre.ebooks.pdf import html_writer
from calibre.gui2 import must_use_qt
from calibre.utils.logging import Log

# PDF output waits a fixed second after each rendered file has loaded before printing it
# (settle_time=1): a book of 70 short files spends over half a minute waiting. The page
# has loaded by then; a tenth of a second gives the same text, images and pixels on
# every book we measured. Books with maths keep Calibre's wait (MathJax renders late).
_convert_html_files = html_writer.RenderManager.convert_html_files


def _settle_briefly(self, jobs, settle_time=0, wait_for_title=None, has_maths=None):
    if not any((has_maths or {}).values()):
        settle_time = min(settle_time, 0.1)
    return _convert_html_files(self, jobs, settle_time=settle_time, wait_for_title=wait_for_title, has_maths=has_maths)


html_writer.RenderManager.convert_html_files = _settle_briefly


def reply(**fields):
    _replies.write(json.dumps(fields) + "\n")
    _replies.flush()


def convert(request):
    # As ebook-convert's main: its parser, then every option as a HIGH recommendation.
    argv = ["ebook-convert", request["input"], request["output"]] + (request.get("arguments") or [])
    log = Log()
    parser, plumber = create_option_parser(argv, log)
    options, _ = parser.parse_args(argv)
    plumber.merge_ui_recommendations(
        [(option.dest, getattr(options, option.dest), OptionRecommendation.HIGH) for option in parser.options_iter() if option.dest]
    )
    plumber.run()


must_use_qt()  # the QApplication every PDF output needs, made once
reply(ok=True)
for line in sys.stdin:
    try:
        request = json.loads(line)
    except ValueError:
        reply(ok=False, kind="transient", code="conversion_failed", message="the worker got a line it cannot read")
        continue
    op = request.get("op")
    if op == "quit":
        break
    if op == "ping":
        reply(ok=True)
        continue
    try:
        convert(request)
        reply(ok=True)
    except SystemExit as exit:
        reply(ok=False, message="ebook-convert stopped (%s)" % (exit.code,))
    except BaseException:
        # The traceback's last line names the exception; the gateway tells bad books
        # from Calibre's own troubles by it, as it does for a cold ebook-convert.
        text = traceback.format_exc()
        sys.stderr.write(text)
        sys.stderr.flush()
        reply(ok=False, message=text[-4000:])
