"""Lays a scan's page images out as one PDF with img2pdf, one page per image, in order.

Run by the gateway (ScanConverter, inside the converter sandbox) once per job, with Debian's
/usr/bin/python3 (the one with python3-img2pdf, the same library its command line is); the
gateway passes this text with -c:

    python3 -c SOURCE scan.json

scan.json holds "images" (paths, in page order), "output" (the PDF's path), and either "paper"
(points, width and height: every image fits into it) or "fallback_paper" (for an image whose
DPI is missing or 72 and below, which phones write though it says nothing; other images keep
their own size at their DPI).

img2pdf embeds a JPEG's bytes as they are (no decoding, no re-encoding) and a PNG's or a TIFF's
compressed data where PDF can hold it; EXIF orientation becomes the page's /Rotate. Its command
line cannot size each page by its own image's DPI with a paper fallback, which is why this is a
program with a layout function and not img2pdf with flags; one process for all pages, since
starting Python per page costs more than laying the page out.
"""

import json, sys
import img2pdf

config = json.load(open(sys.argv[1]))
# img2pdf reports a missing DPI as its module default: make that default a value no
# image claims, so the layout function can tell "none" from a real 96.
img2pdf.default_dpi = 1.0

def fit(paper):
    return img2pdf.get_layout_fun(tuple(paper), fit=img2pdf.FitMode.into, auto_orient=True)

if config.get("paper"):
    layout = fit(config["paper"])
else:
    fallback = fit(config["fallback_paper"])
    def layout(width_px, height_px, dpi):
        if dpi[0] <= 72 or dpi[1] <= 72:
            return fallback(width_px, height_px, dpi)
        return img2pdf.default_layout_fun(width_px, height_px, dpi)

with open(config["output"], "wb") as out:
    img2pdf.convert(*config["images"], layout_fun=layout, outputstream=out)
