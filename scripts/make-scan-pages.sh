#!/usr/bin/env bash
# Photographed pages for the scan benchmark: N A4 pages at 300 dpi, grey JPEGs, each with its
# own text (a seeded choice of words), a slight tilt and noise, as a phone's scanner app sends
# them. Made once with ImageMagick and cached by this script's hash under .build/bench-fixtures;
# prints the directory. Usage: make-scan-pages.sh N
set -euo pipefail
count="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/.build/bench-fixtures/scan-pages-$(sha256sum "$0" | cut -c1-12)-$count"
if [ ! -f "$dir/done" ]; then
  rm -rf "$dir" && mkdir -p "$dir"
  words=(invoice total amount due payment account number date customer order delivery address tax rate net gross
         quantity price item description reference contract period service terms signature page balance credit)
  RANDOM=42
  for n in $(seq 1 "$count"); do
    text=""
    for line in $(seq 1 40); do
      sentence=""
      for _ in $(seq 1 9); do sentence+="${words[$((RANDOM % ${#words[@]}))]} "; done
      text+="$line. ${sentence}$((RANDOM % 9000 + 1000))"$'\n'
    done
    tilt="0.$((RANDOM % 9))"
    convert -size 2480x3508 xc:white -font DejaVu-Sans -pointsize 36 -interline-spacing 30 -fill black \
      -annotate +150+250 "$text" -background white -rotate "$tilt" -gravity center -extent 2480x3508 \
      -attenuate 0.3 +noise Gaussian -colorspace Gray -units PixelsPerInch -density 300 -quality 85 \
      "$dir/page-$(printf %02d "$n").jpg"
  done
  touch "$dir/done"
fi
echo "$dir"
