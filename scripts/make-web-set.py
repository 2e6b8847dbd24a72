#!/usr/bin/python3
"""Builds the web set, a small static site of 8 HTML pages for the HTML-conversion benchmark; the
code is the package scripts/fixtures/web_set.

    /usr/bin/python3 scripts/make-web-set.py Fixtures/web-set      # ~20 s (most of it Chromium)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixtures.__main__ import main  # noqa: E402 (after the path it is found on)

main(["web-set", *sys.argv[1:]])
