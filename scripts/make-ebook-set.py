#!/usr/bin/python3
"""Builds the ebook set, 5 EPUBs of different kinds and weights for the ebook-conversion benchmark;
the code is the package scripts/fixtures/ebook_set.

    /usr/bin/python3 scripts/make-ebook-set.py Fixtures/ebook-set      # ~2-3 minutes (calibre)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixtures.__main__ import main  # noqa: E402 (after the path it is found on)

main(["ebook-set", *sys.argv[1:]])
