#!/usr/bin/env bash
# Makes the scanned pages the OCR tests and benchmarks read: pages of known text drawn with
# ImageMagick in DejaVu Sans, turned a little, with noise, in grey, as 300-dpi JPEGs (what a
# phone or a flatbed gives), each with its ground truth beside it (pN.txt), and PDFs of them
# made with img2pdf (the JPEGs embedded byte for byte).
#
#   bash scripts/make-scan-fixtures.sh [PAGES]     # prints the directory; ~5 s a page, once
#
# Cached: the output goes to .build/test-fixtures/scans/<hash of this script and of
# scripts/fixtures/scan.py, which crops a page>-<PAGES>/, made
# in a scratch directory and renamed into place, so concurrent callers never see half a set and a
# changed script makes a new set. Needs imagemagick, img2pdf, qpdf, python3-pikepdf, fonts-dejavu-core.
#
# Files: p1.jpg … pN.jpg (+ .txt), scan.pdf (pages 1–2), sideways.jpg (page 1 with its pixels
# turned a quarter to the left), sideways.pdf (that image on a page with /Rotate 90, so it reads
# upright), cropped.pdf (page 1 with a CropBox 18 pt in from the left and without the lower half).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PAGES="${1:-3}"
[[ "$PAGES" =~ ^[0-9]+$ ]] && [ "$PAGES" -ge 2 ] && [ "$PAGES" -le 40 ] || { echo "PAGES must be 2 to 40" >&2; exit 2; }
HASH="$(cat "${BASH_SOURCE[0]}" "$ROOT/scripts/fixtures/scan.py" | sha256sum | cut -c1-16)"
OUT="$ROOT/.build/test-fixtures/scans/$HASH-$PAGES"
if [ -f "$OUT/done" ]; then echo "$OUT"; exit 0; fi

# Debian's ImageMagick 6; its policy.xml forbids `@file` text and the PDF coder, so the text goes
# in as an argument and PDFs are made by img2pdf.
CONVERT=/usr/bin/convert
for tool in "$CONVERT" /usr/bin/img2pdf /usr/bin/qpdf; do
  [ -x "$tool" ] || { echo "$tool is missing: apt-get install imagemagick img2pdf qpdf" >&2; exit 1; }
done
/usr/bin/python3 -c 'import pikepdf' 2>/dev/null || { echo "python3-pikepdf is missing: apt-get install python3-pikepdf" >&2; exit 1; }

mkdir -p "$(dirname "$OUT")"
TMP="$(mktemp -d "$(dirname "$OUT")/.making-XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

ENGLISH=(invoice contract delivery payment account balance customer order number address summary
  office meeting project report schedule budget quarter revenue service support manager letter
  signature document archive record receipt total amount period review request approval notice)
GERMAN=(Rechnung Vertrag Lieferung Zahlung Konto Kunde Bestellung Anschrift Übersicht Büro Straße
  Größe Prüfung Müller Gebühr Frühjahr Bestätigung Angebot Termin Bericht Unterschrift Betrag
  Zeitraum Antrag Genehmigung Mitteilung Schlüssel Quittung Gesamtsumme Abteilung)

# Seeded, so every machine draws the same pages.
RANDOM=30
for page in $(seq 1 "$PAGES"); do
  if [ $((page % 2)) -eq 1 ]; then words=("${ENGLISH[@]}"); else words=("${GERMAN[@]}"); fi
  text=""
  for line in $(seq 1 24); do
    sentence=""
    for _ in $(seq 1 7); do sentence+="${words[$((RANDOM % ${#words[@]}))]} "; done
    sentence+="$((RANDOM % 9000 + 1000))"
    text+="$sentence"$'\n'
  done
  printf '%s' "$text" > "$TMP/p$page.txt"
  "$CONVERT" -size 2480x3508 xc:white -font DejaVu-Sans -pointsize 36 -interline-spacing 40 \
    -fill black -annotate +150+250 "$text" -background white -rotate 1.3 -gravity center -extent 2480x3508 \
    -attenuate 0.3 +noise Gaussian -colorspace Gray -density 300 -units PixelsPerInch -quality 85 "$TMP/p$page.jpg"
done

/usr/bin/img2pdf "$TMP/p1.jpg" "$TMP/p2.jpg" -o "$TMP/scan.pdf"
"$CONVERT" "$TMP/p1.jpg" -rotate -90 -density 300 -units PixelsPerInch -quality 85 "$TMP/sideways.jpg"
/usr/bin/img2pdf "$TMP/sideways.jpg" -o "$TMP/sideways-flat.pdf"
/usr/bin/qpdf "$TMP/sideways-flat.pdf" --rotate=+90:1 -- "$TMP/sideways.pdf"
rm "$TMP/sideways-flat.pdf"
PYTHONPATH="$ROOT/scripts" /usr/bin/python3 -m fixtures scan-crop "$TMP"
chmod 755 "$TMP"
touch "$TMP/done"
# Another caller may have finished first: theirs is as good as ours.
mv -T "$TMP" "$OUT" 2>/dev/null || true
echo "$OUT"
