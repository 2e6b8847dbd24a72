#!/usr/bin/env python3
"""Writes hostile office/HTML/ebook documents for the converter sandbox tests; the code is the
package scripts/fixtures/hostile (its docstring says what every case is).

    python3 scripts/hostile-documents.py OUTDIR --listener http://127.0.0.1:PORT [--secret FILE ...] [--kind KIND ...] [--only FILE ...]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixtures.hostile import main  # noqa: E402 (after the path it is found on)

main()
