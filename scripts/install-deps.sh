#!/usr/bin/env bash
# Installs the Debian packages PDF Gateway builds, tests and runs with (the converters
# included; `--build-only` for just what compiling needs).
# Idempotent: quiet and fast when everything is already there.
set -euo pipefail

# Build: C libraries behind the CPoppler and CCurl targets, SQLite for GRDB.
build_pkgs=(pkg-config libpoppler-glib-dev libcairo2-dev libglib2.0-dev libcurl4-openssl-dev libsqlite3-dev)
# Tests and benchmarks: the CLI peers we cross-check and measure against.
# ImageMagick reads back the pixels of screenshots (and makes the scan fixtures).
tool_pkgs=(poppler-utils hyperfine wrk curl imagemagick)
# `make lint` checks the Python under scripts/ with pyflakes too.
tool_pkgs+=(python3-pyflakes)

wanted=("${build_pkgs[@]}" "${tool_pkgs[@]}")
if [ "${1:-}" != "--build-only" ]; then
  # The local converters: LibreOffice (office), Chromium (URLs, HTML), Calibre (ebooks),
  # fonts so documents render with real glyphs, and bubblewrap, the sandbox they run in.
  # Not Debian's -nogui LibreOffice: it ships no Writer UI files, and a Writer document with
  # comments then aborts a warm soffice (its comment margin cannot find annotation.ui).
  # libreoffice-draw also imports a PDF for the pdfua operation, which exports it again tagged.
  # qpdf and Ghostscript: the PDF operations (merge, split, PDF/A, …); the benchmarks use qpdf too.
  wanted+=(qpdf ghostscript)
  # ExifTool: what Gotenberg's metadata/read answers with, read the same way.
  wanted+=(libimage-exiftool-perl)
  # /etc/mime.types: a file sent without a name is named by its Content-Type.
  wanted+=(media-types)
  wanted+=(bubblewrap libreoffice-writer libreoffice-calc libreoffice-impress libreoffice-draw libreoffice-math
           python3-uno chromium calibre)
  # Fonts for every script, the set Gotenberg's image ships and more: metric-compatible families
  # for the Microsoft names (Carlito for Calibri, Caladea for Cambria, Liberation for Arial, Times
  # New Roman and Courier New) and URW's for the PostScript ones (Helvetica, Times), Noto for CJK, Thai, Indic, Arabic, Hebrew and the rest, and colour
  # emoji. The gateway's own fontconfig file (FontConfiguration) maps the East Asian Office names
  # onto Noto CJK. Debian's fontconfig trigger builds the system font cache as they install, so
  # no converter scans the fonts at its first start.
  wanted+=(fontconfig fonts-dejavu-core fonts-dejavu-extra fonts-liberation fonts-liberation2 fonts-urw-base35
           fonts-crosextra-carlito fonts-crosextra-caladea fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji
           fonts-noto-ui-core fonts-noto-mono)
  # LibreOffice 24.2 and later encrypt an ODF file whole (one AES-256-GCM `encrypted-package`,
  # its key from Argon2id), which Debian 12's LibreOffice 7.4 cannot open: the UNO worker
  # decrypts such a file itself with these two before LibreOffice loads it.
  wanted+=(python3-argon2 python3-cryptography)
  # Scans and OCR: img2pdf lays page images out, heif-convert decodes HEIC, Tesseract reads text
  # (English and German packs; add tesseract-ocr-XXX for more). ocrmypdf is the benchmark's peer;
  # pikepdf (Python, on qpdf) turns and crops the OCR tests' fixture pages.
  wanted+=(img2pdf libheif-examples tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu ocrmypdf python3-pikepdf)
  # The cluster backend: the tests and benchmarks start throwaway PostgreSQL servers of their own.
  wanted+=(postgresql)
  # The S3 storage backend: the tests and benchmarks start throwaway one-node Ceph clusters with a
  # RADOS Gateway (scripts/s3-scratch.sh; ceph-common is the `ceph` CLI it sets the OSD up with), and
  # cross-check what lands in a bucket with boto3 (scripts/s3_peek.py), never with our own client.
  wanted+=(ceph-mon ceph-osd radosgw ceph-common python3-boto3)
  # The gotenberg-client suite's network namespace (ip, mount) and its python-magic (libmagic).
  wanted+=(iproute2 util-linux libmagic1)
  # Real WebDAV clients the tests drive against /dav/: litmus (RFC 4918 conformance) and rclone.
  wanted+=(litmus rclone)
fi

missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

bash "$(dirname "$0")/apt-install.sh" "${missing[@]}"
# The trigger already ran; this only makes sure of it where a package's trigger was deferred.
if command -v fc-cache >/dev/null; then fc-cache -s >/dev/null 2>&1 || true; fi
