#!/usr/bin/python3
"""Builds the web set: a small static site of 8 HTML pages for the HTML-conversion benchmark.

    /usr/bin/python3 scripts/make-web-set.py Fixtures/web-set      # ~20 s (most of it Chromium)

A benchmark that prints one small page twenty times measures a hot cache, not a converter; these
pages differ in what makes printing cost something: pictures to decode, a 600-row table to split
across pages with a repeated header, CSS grid and multi-column fragmentation, inline SVG, a script
that builds the document at load time, long preformatted code. They print to 1 to ~16 pages.

Every subresource is a relative file next to the pages (or a data: URL), so the benchmark can serve
the folder from any local HTTP server or file:// and nothing reaches the network; fonts are the
generic families, which resolve to the Liberation/DejaVu fonts a Debian install has.

Deterministic: text and pictures come from fixed seeds, and nothing records a date or a path, so two
runs write the same bytes (given the same Pillow/libjpeg); only the timings in README.md change. OUTDIR is deleted and rebuilt; then every
page is printed once by a cold headless Chromium (fresh profile each) and OUTDIR/README.md records
its size, page count and that print's time. Needs Debian's python3-pil, chromium and poppler-utils.
"""
import html
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

from PIL import Image, ImageDraw, ImageFilter, ImageFont

if len(sys.argv) != 2:
    sys.exit("usage: make-web-set.py OUTDIR")
OUT = os.path.abspath(sys.argv[1])
E = html.escape

# ---------------------------------------------------------------------------------------------
# Prose: a small grammar over fixed word lists, so paragraphs read like text (and wrap
# and justify like text) rather than like a shuffled dictionary. One seed per page: changing one
# page's length leaves the others' text alone.
# ---------------------------------------------------------------------------------------------
SUBJECTS = ["the council", "the harbour authority", "residents", "the transit agency", "local traders",
            "the new mayor", "engineers", "the planning committee", "volunteers", "the regional board",
            "a group of students", "the operators", "the city's cyclists", "shop owners", "the inspectors",
            "families on the east side", "the contractor", "the finance office", "critics", "supporters"]
VERBS = ["approved", "questioned", "delayed", "welcomed", "funded", "reviewed", "rejected", "expanded",
         "studied", "announced", "defended", "rebuilt", "measured", "redesigned", "postponed", "praised",
         "opened", "restored", "mapped", "challenged"]
OBJECTS = ["the ferry timetable", "a second bridge", "the flood barrier", "the night bus network",
           "the market hall", "a plan for cheaper housing", "the old rail yard", "the school meals budget",
           "the waterfront promenade", "a pilot for electric buses", "the library extension",
           "the harbour dredging contract", "the tram line to the airport", "new cycle lanes",
           "the parking charges", "the district heating scheme", "the stadium lease", "a tree survey"]
TAILS = ["after months of debate", "despite the cost", "before the winter storms", "at Tuesday's meeting",
         "for the third time this year", "without a public vote", "in a close decision",
         "under pressure from the unions", "with little warning", "as the deadline approached",
         "in front of a packed hall", "to the surprise of many", "while the audit continues",
         "ahead of the spring elections", "on a narrow majority"]
LINKS = ["Meanwhile,", "However,", "In the end,", "At the same time,", "According to the minutes,",
         "By the evening,", "Still,", "For now,", "Even so,", "As a result,", "Last spring,", "In March,"]
COMMENTS = ["it is not the first time", "nobody expects a quick answer", "the numbers tell a mixed story",
            "the details matter more than the headline", "the figures have since been revised",
            "the mood in the room was cautious", "the argument is far from settled",
            "most people simply want the buses to run on time", "that promise will be tested soon"]


class Prose:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def sentence(self):
        r = self.r
        kind = r.random()
        if kind < 0.45:
            s = f"{r.choice(SUBJECTS)} {r.choice(VERBS)} {r.choice(OBJECTS)} {r.choice(TAILS)}"
        elif kind < 0.7:
            s = f"{r.choice(LINKS)} {r.choice(SUBJECTS)} {r.choice(VERBS)} {r.choice(OBJECTS)}"
        elif kind < 0.85:
            s = (f"{r.choice(SUBJECTS)} said that {r.choice(COMMENTS)}, and that {r.choice(SUBJECTS)} "
                 f"had {r.choice(VERBS)} {r.choice(OBJECTS)}")
        else:
            s = (f"{r.choice(LINKS)} {r.choice(COMMENTS)}: {r.choice(SUBJECTS)} {r.choice(VERBS)} "
                 f"{r.choice(OBJECTS)} and {r.choice(VERBS)} {r.choice(OBJECTS)} {r.choice(TAILS)}")
        return s[0].upper() + s[1:] + "."

    def paragraph(self, lo=3, hi=6):
        return " ".join(self.sentence() for _ in range(self.r.randint(lo, hi)))

    def title(self):
        r = self.r
        s = f"{r.choice(SUBJECTS)} {r.choice(VERBS)} {r.choice(OBJECTS)}"
        return s[0].upper() + s[1:]


# ---------------------------------------------------------------------------------------------
# Pictures (Pillow). Photo-like JPEGs carry a little grain so they compress like photographs (a
# flat gradient would be a few KB and decode in no time); diagrams and the logo are PNGs.
# ---------------------------------------------------------------------------------------------
IMG_R = random.Random(4711)


def font(size, bold=False):
    name = "LiberationSans-Bold.ttf" if bold else "LiberationSans-Regular.ttf"
    try:
        return ImageFont.truetype(f"/usr/share/fonts/truetype/liberation/{name}", size)
    except OSError:
        return ImageFont.load_default()


def gradient(w, h, top, bottom):
    im = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(im)
    for y in range(h):
        t = y / h
        d.line([(0, y), (w, y)], fill=tuple(int(top[i] * (1 - t) + bottom[i] * t) for i in range(3)))
    return im, d


def grain(im, amount):
    noise = Image.effect_noise(im.size, 48).convert("RGB")
    return Image.blend(im, noise, amount)


def photo(name, w, h, top, bottom, quality=80):
    """A landscape: sky, hills, a few blurred lights, houses on the shore, grain."""
    R = IMG_R
    im, d = gradient(w, h, top, bottom)
    for k in range(4):
        base = h * (0.42 + 0.13 * k)
        pts = [(0, h)] + [(x, base + 30 * ((x * (k + 3) // 97) % 5) - R.randint(0, 50))
                          for x in range(0, w + 60, 60)] + [(w, h)]
        d.polygon(pts, fill=(35 + 28 * k, 85 + 22 * k - R.randint(0, 25), 45 + 12 * k))
    for _ in range(22):
        x, y, r = R.randint(0, w), R.randint(0, h // 2), R.randint(8, 60)
        d.ellipse([x - r, y - r, x + r, y + r], fill=(R.randint(170, 255), R.randint(160, 240), R.randint(120, 210)))
    im = im.filter(ImageFilter.GaussianBlur(2.5))
    d = ImageDraw.Draw(im)
    x = R.randint(0, 60)
    while x < w:
        bw, bh = R.randint(20, 55), R.randint(25, 90)
        y = int(h * 0.78) - bh
        d.rectangle([x, y, x + bw, int(h * 0.8)], fill=(R.randint(120, 230), R.randint(90, 200), R.randint(70, 180)))
        for wy in range(y + 8, y + bh - 8, 14):
            for wx in range(x + 5, x + bw - 8, 12):
                d.rectangle([wx, wy, wx + 5, wy + 7], fill=(250, 230, 150) if R.random() < 0.5 else (60, 60, 70))
        x += bw + R.randint(2, 40)
    im = grain(im, 0.10)
    im.save(os.path.join(OUT, name), "JPEG", quality=quality, optimize=True)


def product(name, w, h, hue, shape):
    """A studio product shot: a plain backdrop, an object, its shadow, light grain."""
    R = IMG_R
    im, d = gradient(w, h, (246, 244, 240), (222, 220, 214))
    cx, cy = w // 2, h // 2 + 10
    d.ellipse([cx - 80, cy + 60, cx + 80, cy + 82], fill=(190, 188, 182))
    dark = tuple(max(0, c - 60) for c in hue)
    if shape == "mug":
        d.rounded_rectangle([cx - 55, cy - 60, cx + 45, cy + 70], 12, fill=hue)
        d.ellipse([cx + 25, cy - 30, cx + 85, cy + 30], outline=hue, width=14)
    elif shape == "lamp":
        d.polygon([(cx - 70, cy - 10), (cx + 70, cy - 10), (cx + 35, cy - 80), (cx - 35, cy - 80)], fill=hue)
        d.rectangle([cx - 6, cy - 10, cx + 6, cy + 60], fill=dark)
        d.ellipse([cx - 45, cy + 55, cx + 45, cy + 75], fill=dark)
    elif shape == "chair":
        d.rectangle([cx - 50, cy - 90, cx + 50, cy - 10], fill=hue)
        d.rectangle([cx - 60, cy - 10, cx + 60, cy + 10], fill=dark)
        for lx in (cx - 55, cx + 45):
            d.rectangle([lx, cy + 10, lx + 10, cy + 75], fill=dark)
    elif shape == "bottle":
        d.rounded_rectangle([cx - 35, cy - 40, cx + 35, cy + 75], 18, fill=hue)
        d.rectangle([cx - 12, cy - 85, cx + 12, cy - 40], fill=hue)
        d.rectangle([cx - 14, cy - 95, cx + 14, cy - 82], fill=dark)
    elif shape == "bag":
        d.rounded_rectangle([cx - 70, cy - 40, cx + 70, cy + 75], 10, fill=hue)
        d.arc([cx - 40, cy - 95, cx + 40, cy - 5], 180, 360, fill=dark, width=10)
    else:  # box
        d.polygon([(cx - 70, cy - 30), (cx, cy - 70), (cx + 70, cy - 30), (cx, cy + 10)], fill=hue)
        d.polygon([(cx - 70, cy - 30), (cx, cy + 10), (cx, cy + 80), (cx - 70, cy + 40)], fill=dark)
        d.polygon([(cx + 70, cy - 30), (cx, cy + 10), (cx, cy + 80), (cx + 70, cy + 40)],
                  fill=tuple(max(0, c - 30) for c in hue))
    im = im.filter(ImageFilter.GaussianBlur(0.8))
    im = grain(im, 0.07)
    im.save(os.path.join(OUT, name), "JPEG", quality=78, optimize=True)


def infographic(name):
    im = Image.new("RGB", (720, 340), "white")
    d = ImageDraw.Draw(im)
    d.text((20, 12), "Weekday ferry passengers, thousands", fill=(30, 30, 30), font=font(22, True))
    d.line([(50, 300), (700, 300)], fill="black", width=2)
    vals = [IMG_R.randint(40, 230) for _ in range(12)]
    for i, v in enumerate(vals):
        x = 60 + i * 53
        d.rectangle([x, 300 - v, x + 38, 300], fill=(31, 95, 140) if i < 11 else (200, 80, 60))
        d.text((x + 4, 306), ["J", "F", "M", "A", "M", "J", "J", "A", "S", "O", "N", "D"][i], fill="black", font=font(16))
        d.text((x + 2, 282 - v), str(v), fill=(60, 60, 60), font=font(14))
    im.save(os.path.join(OUT, name), optimize=True)


def logo(name):
    im = Image.new("RGB", (440, 120), "white")
    d = ImageDraw.Draw(im)
    d.polygon([(14, 104), (60, 16), (106, 104)], fill=(31, 78, 121))
    d.ellipse([72, 52, 120, 100], fill=(200, 80, 60))
    d.text((134, 28), "HARBOURTON", fill=(31, 78, 121), font=font(34, True))
    d.text((136, 70), "city press & supply", fill=(90, 90, 90), font=font(20))
    im.save(os.path.join(OUT, name), optimize=True)


# ---------------------------------------------------------------------------------------------
# Shared pieces
# ---------------------------------------------------------------------------------------------
SITE_CSS = """/* Site-wide stylesheet, linked by every page. */
:root { --ink: #1d2430; --muted: #5b6472; --accent: #1f5f8c; --rule: #d5d9e0; --zebra: #f1f4f8; }
/* Printed backgrounds (zebra rows, tiles, code blocks) are part of these pages. */
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0; color: var(--ink); font: 16px/1.55 serif; }
header.site { display: flex; align-items: center; gap: 16px; padding: 10px 0 12px; border-bottom: 3px solid var(--accent); }
header.site img { height: 44px; }
header.site nav { margin-left: auto; font: 13px sans-serif; }
header.site nav a { color: var(--accent); margin-left: 12px; text-decoration: none; }
main { padding: 8px 0; }
h1, h2, h3, h4 { font-family: sans-serif; line-height: 1.2; break-after: avoid; }
h1 { font-size: 30px; margin: 18px 0 8px; }
h2 { font-size: 22px; margin: 26px 0 8px; }
h3 { font-size: 17px; margin: 18px 0 6px; }
a { color: var(--accent); }
figure { margin: 18px 0; break-inside: avoid; }
figure img { display: block; width: 100%; height: auto; }
figcaption { font: italic 13px/1.4 sans-serif; color: var(--muted); margin-top: 4px; }
table { border-collapse: collapse; }
th, td { padding: 3px 8px; }
footer.site { margin-top: 28px; padding-top: 8px; border-top: 1px solid var(--rule); font: 12px sans-serif; color: var(--muted); }
.byline { font: 13px sans-serif; color: var(--muted); }
.lede { font-size: 19px; line-height: 1.45; }
blockquote.pull { margin: 20px 40px; padding: 6px 16px; border-left: 5px solid var(--accent);
  font: italic 21px/1.35 serif; color: var(--accent); }
.muted { color: var(--muted); }
"""


def page(name, title, body, head_extra="", nav=True):
    links = "".join(f'<a href="{h}">{E(t)}</a>' for h, t in
                    [("article.html", "News"), ("catalogue.html", "Shop"), ("dashboard.html", "Figures"),
                     ("docs.html", "Developers")])
    header = (f'<header class="site"><img src="logo.png" alt="Harbourton">'
              f'<nav>{links}</nav></header>' if nav else "")
    doc = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{E(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="site.css">
{head_extra}</head>
<body>
{header}
{body}
</body>
</html>
"""
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
        f.write(doc)


# ---------------------------------------------------------------------------------------------
# 1. article.html: a long news feature with pictures and pull quotes
# ---------------------------------------------------------------------------------------------
def article():
    p = Prose(101)
    parts = ['<main><article>',
             '<p class="byline">CITY &middot; Saturday 6 January 2024 &middot; By Mara Ellison and Tom Okafor</p>',
             '<h1>The harbour that wants to be a city again</h1>',
             f'<p class="lede">{E(p.paragraph(2, 3))}</p>',
             '<figure><img src="harbour-dawn.jpg" width="800" height="500" alt="The harbour at dawn">'
             '<figcaption>The inner harbour at dawn, seen from the old customs pier.</figcaption></figure>']
    pictures = [("market-hall.jpg", "Traders setting up in the market hall before seven."),
                ("ferry-pier.jpg", "The ferry pier, where the new timetable starts in April."),
                ("ferry-chart.png", "Passengers on weekday ferries last year; December is an estimate."),
                ("east-side.jpg", "Houses on the east side, the district most exposed to flooding."),
                ("rail-yard.jpg", "The old rail yard, empty since 2009.")]
    for section in range(9):
        parts.append(f"<h2>{E(p.title())}</h2>")
        for k in range(4):
            parts.append(f"<p>{E(p.paragraph())}</p>")
            if k == 1 and section % 3 == 1:
                parts.append(f'<blockquote class="pull">&ldquo;{E(p.sentence())}&rdquo;</blockquote>')
        if section < len(pictures):
            src, cap = pictures[section]
            dims = 'width="720" height="340"' if src.endswith(".png") else 'width="800" height="500"'
            parts.append(f'<figure><img src="{src}" {dims} alt="{E(cap)}"><figcaption>{E(cap)}</figcaption></figure>')
    parts.append('<p class="muted"><em>Corrections: an earlier version of this article gave the wrong year '
                 'for the closure of the rail yard.</em></p></article></main>')
    parts.append('<footer class="site">&copy; Harbourton City Press. Pictures: staff photographers.</footer>')
    page("article.html", "The harbour that wants to be a city again", "\n".join(parts))


# ---------------------------------------------------------------------------------------------
# 2. report.html: a data report around a 600-row table (the header repeats on every printed page)
# ---------------------------------------------------------------------------------------------
def report():
    R = random.Random(202)
    regions = ["North", "South", "East", "West", "Central", "Harbour"]
    cats = ["Groceries", "Hardware", "Garden", "Books", "Clothing", "Toys", "Electronics", "Pharmacy"]
    rows, tot_units, tot_rev, tot_cost = [], 0, 0.0, 0.0
    for i in range(600):
        month, day = 1 + i * 12 // 600, 1 + (i * 7) % 28
        units = R.randint(3, 900)
        price = R.choice([2.49, 4.99, 7.5, 12.0, 19.99, 24.5, 39.0, 89.9])
        rev = units * price
        cost = rev * R.uniform(0.45, 0.92)
        tot_units += units; tot_rev += rev; tot_cost += cost
        rows.append(f"<tr><td>2023-{month:02d}-{day:02d}</td><td>{R.choice(regions)}</td>"
                    f"<td>S-{R.randint(100, 999)}</td><td>{R.choice(cats)}</td><td class=n>{units:,}</td>"
                    f"<td class=n>{rev:,.2f}</td><td class=n>{cost:,.2f}</td>"
                    f"<td class=n>{100 * (rev - cost) / rev:.1f}%</td></tr>")
    css = """<style>
.report table.data { width: 100%; font: 12px/1.3 sans-serif; }
.report table.data thead th { background: #1f5f8c; color: white; text-align: left; }
.report table.data tbody tr:nth-child(even) { background: var(--zebra); }
.report table.data td.n, .report table.data th.n { text-align: right; font-variant-numeric: tabular-nums; }
.report table.data tfoot td { border-top: 2px solid var(--ink); font-weight: bold; }
.report table.data tr { break-inside: avoid; }
.summary { display: flex; gap: 12px; margin: 12px 0 18px; }
.summary div { flex: 1; padding: 10px; background: var(--zebra); border-top: 4px solid var(--accent); font: 13px sans-serif; }
.summary b { display: block; font-size: 22px; }
</style>
"""
    p = Prose(203)
    body = f"""<main class="report">
<h1>Store sales 2023: line-item report</h1>
<p class="byline">Finance office &middot; generated for the annual review &middot; all amounts in EUR</p>
<div class="summary"><div><b>{tot_units:,}</b>units sold</div><div><b>{tot_rev:,.0f}</b>revenue</div>
<div><b>{tot_rev - tot_cost:,.0f}</b>gross margin</div><div><b>{100 * (tot_rev - tot_cost) / tot_rev:.1f}%</b>margin rate</div></div>
<p>{E(p.paragraph(3, 4))}</p>
<table class="data">
<thead><tr><th>Date</th><th>Region</th><th>Store</th><th>Category</th><th class=n>Units</th>
<th class=n>Revenue</th><th class=n>Cost</th><th class=n>Margin</th></tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody>
<tfoot><tr><td colspan=4>Total (600 lines)</td><td class=n>{tot_units:,}</td><td class=n>{tot_rev:,.2f}</td>
<td class=n>{tot_cost:,.2f}</td><td class=n>{100 * (tot_rev - tot_cost) / tot_rev:.1f}%</td></tr></tfoot>
</table>
<p class="muted">Margins are before overheads. Lines are sorted by date, then by order of entry.</p>
</main>"""
    page("report.html", "Store sales 2023: line-item report", body, css)


# ---------------------------------------------------------------------------------------------
# 3. catalogue.html: a CSS grid of product cards, each with its picture
# ---------------------------------------------------------------------------------------------
PRODUCTS = [("Harbour mug", "mug", (31, 95, 140)), ("Desk lamp", "lamp", (200, 160, 40)),
            ("Oak chair", "chair", (150, 100, 60)), ("Water bottle", "bottle", (60, 150, 110)),
            ("Canvas tote", "bag", (190, 170, 130)), ("Gift box", "box", (180, 60, 70)),
            ("Espresso cup", "mug", (230, 230, 225)), ("Reading lamp", "lamp", (40, 40, 45)),
            ("Stool", "chair", (90, 120, 150)), ("Travel flask", "bottle", (120, 120, 130)),
            ("Market bag", "bag", (70, 110, 70)), ("Storage crate", "box", (170, 130, 80)),
            ("Soup mug", "mug", (200, 90, 40)), ("Floor lamp", "lamp", (140, 140, 140)),
            ("Kitchen chair", "chair", (200, 200, 190)), ("Glass bottle", "bottle", (140, 190, 200))]


def catalogue():
    R = random.Random(303)
    adjectives = ["hand-finished", "recycled", "stackable", "dishwasher-safe", "locally made", "lightweight",
                  "sturdy", "classic", "compact", "limited-edition"]
    uses = ["for the office", "for long walks along the harbour", "for small kitchens", "for reading in bed",
            "for the market", "as a gift", "for camping", "for everyday use"]
    cards = []
    for i in range(30):
        name, shape, hue = PRODUCTS[i % len(PRODUCTS)]
        label = name if i < len(PRODUCTS) else f"{name}, {R.choice(['large', 'set of two', 'travel size', 'blue', 'grey'])}"
        price = R.choice([9.5, 12.0, 14.9, 19.0, 24.5, 32.0, 45.0, 59.0, 89.0, 129.0])
        stars = R.randint(3, 5)
        desc = (f"A {R.choice(adjectives)}, {R.choice(adjectives)} {name.lower()} {R.choice(uses)}. "
                f"Ships in {R.randint(1, 5)} days.")
        badge = '<span class="badge">New</span>' if R.random() < 0.2 else ""
        cards.append(f"""<div class="card">{badge}<img src="product-{i % len(PRODUCTS) + 1:02d}.jpg" width="300" height="225" alt="{E(label)}">
<h3>{E(label)}</h3><p class="price">&euro; {price:.2f}</p>
<p class="stars" aria-label="{stars} of 5">{"&#9733;" * stars}{"&#9734;" * (5 - stars)}</p><p>{E(desc)}</p>
<p class="sku">SKU HB-{1000 + i * 37}</p></div>""")
    css = """<style>
.grid { display: grid; grid-template-columns: repeat(3, 1fr); gap: 14px; }
.card { position: relative; border: 1px solid var(--rule); border-radius: 8px; padding: 10px; break-inside: avoid;
  font: 13px/1.4 sans-serif; background: #fff; }
.card img { width: 100%; height: auto; border-radius: 4px; }
.card h3 { margin: 8px 0 2px; font-size: 15px; }
.card .price { font-size: 17px; font-weight: bold; color: var(--accent); margin: 2px 0; }
.card .stars { color: #d08a00; margin: 0; letter-spacing: 2px; }
.card .sku { color: var(--muted); font-size: 11px; }
.card .badge { position: absolute; top: 16px; left: 16px; background: #c8503c; color: #fff; padding: 1px 8px;
  border-radius: 10px; font-size: 11px; }
.filters { display: flex; gap: 8px; flex-wrap: wrap; margin: 8px 0 16px; font: 12px sans-serif; }
.filters span { border: 1px solid var(--rule); border-radius: 12px; padding: 2px 10px; background: var(--zebra); }
</style>
"""
    chips = "".join(f"<span>{c}</span>" for c in ["All", "Kitchen", "Lighting", "Furniture", "Outdoors", "Gifts", "Under &euro;20"])
    body = f"""<main>
<h1>Harbourton Supply: spring catalogue</h1>
<p class="byline">30 products &middot; prices include VAT &middot; free delivery over &euro; 50</p>
<div class="filters">{chips}</div>
<div class="grid">
{chr(10).join(cards)}
</div>
</main>
<footer class="site">Harbourton Supply, Pier Road 4. Prices valid until 31 May 2024.</footer>"""
    page("catalogue.html", "Harbourton Supply: spring catalogue", body, css)


# ---------------------------------------------------------------------------------------------
# 4. dashboard.html: KPI tiles and inline SVG charts (bar, line, pie, stacked area)
# ---------------------------------------------------------------------------------------------
PALETTE = ["#1f5f8c", "#c8503c", "#6a9a3a", "#8064a2", "#d08a00", "#4bacc6"]


def svg_bar(R, w=340, h=220):
    vals = [R.randint(20, 100) for _ in range(12)]
    bw = (w - 40) / 12
    out = [f'<svg viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="Monthly orders">']
    for g in range(0, 101, 25):
        y = h - 25 - g * (h - 45) / 100
        out.append(f'<line x1="30" x2="{w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#dde"/>'
                   f'<text x="2" y="{y + 4:.1f}" font-size="10" fill="#667">{g}</text>')
    for i, v in enumerate(vals):
        bh = v * (h - 45) / 100
        out.append(f'<rect x="{34 + i * bw:.1f}" y="{h - 25 - bh:.1f}" width="{bw - 5:.1f}" height="{bh:.1f}" fill="{PALETTE[0]}"/>'
                   f'<text x="{34 + i * bw + 2:.1f}" y="{h - 10}" font-size="10" fill="#667">{"JFMAMJJASOND"[i]}</text>')
    out.append("</svg>")
    return "".join(out)


def svg_line(R, w=700, h=240, series=3, points=52):
    out = [f'<svg viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="Weekly traffic">']
    for g in range(5):
        y = 20 + g * (h - 50) / 4
        out.append(f'<line x1="40" x2="{w - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e4e7ee"/>')
    for s in range(series):
        v, pts = R.uniform(30, 70), []
        for i in range(points):
            v = max(5, min(95, v + R.uniform(-8, 8)))
            pts.append(f"{40 + i * (w - 50) / (points - 1):.1f},{h - 30 - v * (h - 50) / 100:.1f}")
        out.append(f'<path d="M{" L".join(pts)}" fill="none" stroke="{PALETTE[s]}" stroke-width="2"/>')
        out.append(f'<text x="{w - 120}" y="{16 + s * 14}" font-size="11" fill="{PALETTE[s]}">&#9632; {["Web", "Phone", "Counter"][s]}</text>')
    for i in range(0, points, 13):
        out.append(f'<text x="{40 + i * (w - 50) / (points - 1):.1f}" y="{h - 10}" font-size="10" fill="#667">week {i + 1}</text>')
    out.append("</svg>")
    return "".join(out)


def svg_pie(R, labels, w=340, h=220, donut=False):
    vals = [R.randint(5, 40) for _ in labels]
    tot, a = sum(vals), -math.pi / 2
    cx, cy, r = 110, h / 2, 90
    out = [f'<svg viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="Share">']
    for i, v in enumerate(vals):
        b = a + 2 * math.pi * v / tot
        large = 1 if b - a > math.pi else 0
        x1, y1, x2, y2 = cx + r * math.cos(a), cy + r * math.sin(a), cx + r * math.cos(b), cy + r * math.sin(b)
        out.append(f'<path d="M{cx},{cy:.1f} L{x1:.2f},{y1:.2f} A{r},{r} 0 {large} 1 {x2:.2f},{y2:.2f} Z" '
                   f'fill="{PALETTE[i % len(PALETTE)]}" stroke="#fff" stroke-width="1.5"/>')
        out.append(f'<rect x="225" y="{30 + i * 22}" width="12" height="12" fill="{PALETTE[i % len(PALETTE)]}"/>'
                   f'<text x="243" y="{40 + i * 22}" font-size="12">{labels[i]} {100 * v / tot:.0f}%</text>')
        a = b
    if donut:
        out.append(f'<circle cx="{cx}" cy="{cy}" r="48" fill="#fff"/><text x="{cx}" y="{cy + 5}" font-size="16" '
                   f'text-anchor="middle" font-weight="bold">{tot}</text>')
    out.append("</svg>")
    return "".join(out)


def svg_area(R, w=700, h=220, series=4, points=24):
    out = [f'<svg viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="Energy mix">']
    base = [0.0] * points
    for s in range(series):
        top = [base[i] + R.uniform(8, 40) / series * 2 for i in range(points)]
        xs = [40 + i * (w - 50) / (points - 1) for i in range(points)]
        up = " L".join(f"{xs[i]:.1f},{h - 25 - top[i] * (h - 40) / 100:.1f}" for i in range(points))
        down = " L".join(f"{xs[i]:.1f},{h - 25 - base[i] * (h - 40) / 100:.1f}" for i in reversed(range(points)))
        out.append(f'<path d="M{up} L{down} Z" fill="{PALETTE[s + 2]}" fill-opacity="0.85"/>')
        base = top
    out.append("</svg>")
    return "".join(out)


def dashboard():
    R = random.Random(404)
    tiles = "".join(f'<div class="tile"><span>{label}</span><b>{value}</b><i class="{cls}">{delta}</i></div>'
                    for label, value, delta, cls in
                    [("Ferry passengers", "1.42 M", "+6.1%", "up"), ("Bus punctuality", "87.4%", "-1.2 pt", "down"),
                     ("Bike trips", "312 k", "+18%", "up"), ("Complaints", "1,204", "-9%", "up"),
                     ("Permits issued", "3,918", "+2.4%", "up"), ("Open repairs", "416", "+33", "down")])
    rows = "".join(f"<tr><td>{n}</td><td class=n>{R.randint(50, 999)}</td><td class=n>{R.uniform(60, 99):.1f}%</td>"
                   f"<td class=n>{R.uniform(-9, 12):+.1f}%</td></tr>"
                   for n in ["Line 1 Harbour", "Line 2 Airport", "Line 3 University", "Line 4 East side",
                             "Line 5 Market", "Line 6 Hospital", "Night N1", "Night N2", "Ferry F1", "Ferry F2"])
    css = """<style>
.tiles { display: grid; grid-template-columns: repeat(3, 1fr); gap: 10px; margin: 10px 0 16px; }
.tile { background: var(--zebra); border-radius: 6px; padding: 8px 12px; font: 12px sans-serif; }
.tile span { display: block; color: var(--muted); } .tile b { font-size: 24px; margin-right: 8px; }
.tile i.up { color: #2f7d32; font-style: normal; } .tile i.down { color: #b23b2a; font-style: normal; }
.charts { display: grid; grid-template-columns: 1fr 1fr; gap: 14px; }
.panel { border: 1px solid var(--rule); border-radius: 6px; padding: 8px 10px; break-inside: avoid; }
.panel.wide { grid-column: 1 / -1; }
.panel h3 { margin: 0 0 6px; font-size: 14px; }
.panel svg { width: 100%; height: auto; font-family: sans-serif; }
table.lines { width: 100%; font: 12px sans-serif; } table.lines td.n { text-align: right; }
table.lines tr:nth-child(even) { background: var(--zebra); } table.lines th { text-align: left; border-bottom: 1px solid var(--ink); }
</style>
"""
    body = f"""<main>
<h1>City services dashboard: 2023</h1>
<p class="byline">Transport and permits, year to date &middot; figures from the operators' monthly returns</p>
<div class="tiles">{tiles}</div>
<div class="charts">
<div class="panel"><h3>Orders per month</h3>{svg_bar(R)}</div>
<div class="panel"><h3>Trips by mode</h3>{svg_pie(R, ["Bus", "Tram", "Ferry", "Bike", "Walk"])}</div>
<div class="panel wide"><h3>Weekly enquiries by channel</h3>{svg_line(R)}</div>
<div class="panel"><h3>Permits by district</h3>{svg_pie(R, ["North", "South", "East", "West", "Harbour", "Old town"], donut=True)}</div>
<div class="panel"><h3>Repairs closed per month</h3>{svg_bar(R)}</div>
<div class="panel wide"><h3>Energy mix of the bus fleet, by month (share)</h3>{svg_area(R)}</div>
<div class="panel wide"><h3>Punctuality by line</h3><table class="lines"><thead><tr><th>Line</th>
<th>Trips/day</th><th>On time</th><th>vs 2022</th></tr></thead><tbody>{rows}</tbody></table></div>
<div class="panel wide"><h3>Daily boardings, ferry and tram (365 days)</h3>{svg_line(R, h=260, series=2, points=365)}</div>
</div>
</main>"""
    page("dashboard.html", "City services dashboard: 2023", body, css)


# ---------------------------------------------------------------------------------------------
# 5. events.html + events.js: the document is built by a script on DOMContentLoaded. The script
# has its own seeded generator (mulberry32), so the page prints the same every time.
# ---------------------------------------------------------------------------------------------
EVENTS_JS = r"""// Builds the events listing at load time: 288 events grouped by month, each with a paragraph.
// Seeded (mulberry32), so every load builds the same document.
(function () {
  "use strict";
  function mulberry32(a) {
    return function () {
      a |= 0; a = (a + 0x6D2B79F5) | 0;
      var t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  var rnd = mulberry32(505);
  function pick(list) { return list[Math.floor(rnd() * list.length)]; }
  var kinds = ["Concert", "Guided walk", "Market", "Lecture", "Workshop", "Film night", "Open day",
               "Reading", "Tasting", "Exhibition", "Family day", "Harbour tour"];
  var topics = ["sea shanties", "the old rail yard", "urban beekeeping", "the 1953 flood", "bread baking",
                "local birds", "jazz standards", "bicycle repair", "maps of the city", "winter vegetables",
                "the ferry fleet", "printmaking", "street photography", "tide tables", "knitting for beginners"];
  var places = ["Market hall", "Central library", "Customs pier", "East side community centre", "Town hall",
                "Museum of the harbour", "University aula", "St. Olaf's church", "Rail yard sheds", "Botanic garden"];
  var notes = ["Free entry", "Booking required", "Suitable for all ages", "Coffee and tea afterwards",
               "Step-free access from the north side", "Limited places, so come early", "Bring your own tools",
               "Led by volunteers from the neighbourhood", "Children under twelve with an adult",
               "Tickets at the door or in the library", "Part of the winter programme",
               "Bike racks by the entrance", "In English and Norwegian", "Dress for the weather",
               "Followed by a short question time", "Materials are provided", "Doors open half an hour before"];
  var months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                "October", "November", "December"];
  function sentence() {
    var n = 1 + Math.floor(rnd() * 3), parts = [];
    for (var i = 0; i < n; i++) parts.push(pick(notes));
    return parts.join(". ") + ".";
  }
  function build() {
    var root = document.getElementById("events");
    var toc = document.getElementById("months");
    var count = 0;
    for (var m = 0; m < 12; m++) {
      var section = document.createElement("section");
      section.id = "m" + (m + 1);
      var h = document.createElement("h2");
      h.textContent = months[m] + " 2024";
      section.appendChild(h);
      var list = document.createElement("ol");
      list.className = "events";
      var days = [];
      for (var e = 0; e < 24; e++) days.push([1 + Math.floor(rnd() * 28), 9 + Math.floor(rnd() * 12)]);
      days.sort(function (x, y) { return x[0] - y[0] || x[1] - y[1]; });
      for (e = 0; e < 24; e++) {
        var li = document.createElement("li");
        var day = days[e][0], hour = days[e][1];
        var title = pick(kinds) + ": " + pick(topics);
        li.innerHTML = '<span class="when">' + day + " " + months[m].slice(0, 3) + ", " + hour + ":00</span> " +
          '<strong></strong> <span class="where"></span><p></p>';
        li.querySelector("strong").textContent = title;
        li.querySelector(".where").textContent = "\u2014 " + pick(places);
        li.querySelector("p").textContent = sentence() + " " + sentence();
        list.appendChild(li);
        count++;
      }
      section.appendChild(list);
      root.appendChild(section);
      var a = document.createElement("a");
      a.href = "#m" + (m + 1);
      a.textContent = months[m];
      toc.appendChild(a);
    }
    document.getElementById("count").textContent = count + " events";
    document.body.setAttribute("data-built", "yes");
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", build);
  else build();
})();
"""


def events():
    css = """<style>
#months { display: flex; flex-wrap: wrap; gap: 6px 14px; font: 13px sans-serif; margin-bottom: 8px; }
ol.events { list-style: none; padding: 0; margin: 0; }
ol.events li { padding: 5px 0; border-bottom: 1px dotted var(--rule); font: 13px/1.35 sans-serif; break-inside: avoid; }
ol.events li p { margin: 2px 0 0; color: var(--muted); font-family: serif; font-size: 14px; }
ol.events .when { display: inline-block; min-width: 100px; color: var(--accent); font-weight: bold; }
</style>
<script src="events.js"></script>
"""
    body = """<main>
<h1>What's on in Harbourton, 2024</h1>
<p class="byline">Listings from the city's venues &middot; <span id="count">loading&hellip;</span></p>
<nav id="months"></nav>
<div id="events"></div>
<noscript><p>This listing is built by a script.</p></noscript>
</main>
<footer class="site">Listings are supplied by the venues; times may change.</footer>"""
    with open(os.path.join(OUT, "events.js"), "w", encoding="utf-8") as f:
        f.write(EVENTS_JS)
    page("events.html", "What's on in Harbourton, 2024", body, css)


# ---------------------------------------------------------------------------------------------
# 6. docs.html: developer documentation, sidebar navigation, table of contents, code blocks
# ---------------------------------------------------------------------------------------------
CODE_PY = '''import harbourton

client = harbourton.Client(token=os.environ["HARBOURTON_TOKEN"], timeout=30)

def departures(stop_id, limit=10):
    """Returns the next departures from one stop, soonest first."""
    page = client.get(f"/v2/stops/{stop_id}/departures", params={"limit": limit})
    for item in page["items"]:
        yield item["line"], item["due"], item.get("platform", "-")

for line, due, platform in departures("HB-0042"):
    print(f"{line:>6}  {due:%H:%M}  platform {platform}")'''
CODE_JSON = '''{
  "items": [
    {"line": "F1", "due": "2024-01-06T07:42:00+01:00", "platform": "2", "vehicle": "MV Sundew"},
    {"line": "3",  "due": "2024-01-06T07:44:00+01:00", "platform": null, "vehicle": "tram 311"}
  ],
  "next": "/v2/stops/HB-0042/departures?cursor=eyJvIjoxMH0",
  "generated": "2024-01-06T07:40:12+01:00"
}'''
CODE_SH = '''$ export HARBOURTON_TOKEN=...
$ curl -s -H "Authorization: Bearer $HARBOURTON_TOKEN" \\
    "$HARBOURTON_API/v2/stops?near=59.91,10.75&radius=400" | jq '.items[].name'
"Customs pier"
"Market hall"
"Pier Road"'''
CODE_ERR = '''HTTP/1.1 429 Too Many Requests
Retry-After: 12
Content-Type: application/problem+json

{"type": "rate-limited", "title": "Too many requests", "detail": "60 requests per minute per token"}'''


def docs():
    p = Prose(606)
    sections = [("Overview", "overview"), ("Authentication", "auth"), ("Stops", "stops"), ("Departures", "departures"),
                ("Vehicles", "vehicles"), ("Disruptions", "disruptions"), ("Pagination", "pagination"),
                ("Errors and rate limits", "errors"), ("Webhooks", "webhooks"), ("Client libraries", "clients"),
                ("Changelog", "changelog")]
    codes = [CODE_SH, CODE_PY, CODE_JSON, CODE_ERR]
    toc = "".join(f'<li><a href="#{a}">{E(t)}</a></li>' for t, a in sections)
    R = random.Random(607)
    parts = []
    for n, (t, anchor) in enumerate(sections):
        parts.append(f'<h2 id="{anchor}">{n + 1}. {E(t)}</h2><p>{E(p.paragraph(2, 4))}</p>')
        parts.append(f"<h3>{n + 1}.1 Request</h3><p>{E(p.paragraph(2, 3))}</p>")
        parts.append(f'<pre><code>{E(codes[n % len(codes)])}</code></pre>')
        params = "".join(f"<tr><td><code>{name}</code></td><td>{kind}</td><td>{'yes' if R.random() < 0.4 else 'no'}</td>"
                         f"<td>{E(p.sentence())}</td></tr>"
                         for name, kind in R.sample([("limit", "integer"), ("cursor", "string"), ("near", "lat,lon"),
                                                     ("radius", "metres"), ("line", "string"), ("since", "RFC 3339"),
                                                     ("lang", "BCP 47"), ("include", "list")], 4))
        parts.append(f'<table class="params"><thead><tr><th>Parameter</th><th>Type</th><th>Required</th>'
                     f'<th>Description</th></tr></thead><tbody>{params}</tbody></table>')
        parts.append(f"<h3>{n + 1}.2 Response</h3><p>{E(p.paragraph(2, 4))}</p>")
        if n % 3 == 2:
            parts.append(f'<div class="note"><b>Note</b> {E(p.sentence())}</div>')
        if n % 2 == 1:
            parts.append(f'<pre><code>{E(codes[(n + 2) % len(codes)])}</code></pre>')
    css = """<style>
.layout { display: grid; grid-template-columns: 170px 1fr; gap: 24px; }
.sidebar { font: 13px/1.6 sans-serif; border-right: 1px solid var(--rule); padding-right: 12px; }
.sidebar ul { list-style: none; padding: 0; margin: 0 0 14px; } .sidebar a { text-decoration: none; }
.sidebar h4 { margin: 12px 0 4px; text-transform: uppercase; font-size: 11px; color: var(--muted); }
.content { min-width: 0; font-family: sans-serif; font-size: 14px; }
.toc { background: var(--zebra); padding: 8px 14px; border-radius: 6px; columns: 2; font-size: 13px; }
.toc ol { margin: 0; }
pre { background: #f6f8fa; border: 1px solid var(--rule); border-radius: 4px; padding: 8px 10px; overflow: hidden;
  white-space: pre-wrap; font: 12px/1.45 monospace; break-inside: avoid; }
code { font-family: monospace; }
table.params { width: 100%; font-size: 12px; margin: 8px 0; } table.params th { text-align: left; border-bottom: 2px solid var(--rule); }
table.params td { border-bottom: 1px solid var(--rule); vertical-align: top; }
.note { border-left: 4px solid #d08a00; background: #fff7e6; padding: 6px 10px; margin: 10px 0; }
</style>
"""
    side = "".join(f"<h4>{g}</h4><ul>" + "".join(f'<li><a href="#{a}">{E(t)}</a></li>' for t, a in items) + "</ul>"
                   for g, items in [("Start", sections[:2]), ("Endpoints", sections[2:6]), ("Guides", sections[6:])])
    body = f"""<div class="layout">
<aside class="sidebar"><p><b>Harbourton Transit API</b><br>v2.4</p>{side}
<h4>Other pages</h4><ul><li><a href="report.html">Sales report</a></li><li><a href="events.html">Events</a></li></ul></aside>
<main class="content">
<h1>Transit API reference</h1>
<p class="byline">Version 2.4 &middot; last changed 6 January 2024</p>
<nav class="toc"><b>Contents</b><ol>{toc}</ol></nav>
{"".join(parts)}
</main></div>"""
    page("docs.html", "Transit API reference", body, css)


# ---------------------------------------------------------------------------------------------
# 7. invoice.html: a one-page invoice
# ---------------------------------------------------------------------------------------------
def invoice():
    R = random.Random(707)
    items, sub = [], 0.0
    for i, (name, _, _) in enumerate(PRODUCTS[:11]):
        qty, price = R.randint(1, 24), R.choice([4.5, 9.5, 12.0, 14.9, 19.0, 24.5, 32.0])
        sub += qty * price
        items.append(f"<tr><td>{i + 1}</td><td>{E(name)}</td><td class=n>{qty}</td><td class=n>{price:.2f}</td>"
                     f"<td class=n>{qty * price:,.2f}</td></tr>")
    vat = sub * 0.25
    css = """<style>
body { font: 13px/1.45 sans-serif; }
.top { display: flex; justify-content: space-between; align-items: flex-start; margin-bottom: 26px; }
.top img { height: 60px; } .top .meta { text-align: right; }
.addresses { display: flex; gap: 60px; margin-bottom: 24px; }
table.items { width: 100%; } table.items th { text-align: left; border-bottom: 2px solid var(--ink); }
table.items td { border-bottom: 1px solid var(--rule); } table.items .n { text-align: right; }
table.totals { margin-left: auto; margin-top: 10px; } table.totals td { padding: 2px 8px; text-align: right; }
table.totals tr.grand td { font-weight: bold; font-size: 16px; border-top: 2px solid var(--ink); }
.terms { margin-top: 30px; color: var(--muted); font-size: 12px; }
</style>
"""
    body = f"""<main>
<div class="top"><img src="logo.png" alt="Harbourton"><div class="meta"><h1 style="margin:0">Invoice</h1>
No. 2024-0117<br>Date: 6 January 2024<br>Due: 5 February 2024</div></div>
<div class="addresses"><div><b>From</b><br>Harbourton Supply Ltd<br>Pier Road 4<br>4410 Harbourton<br>VAT NO-998 877 665</div>
<div><b>Bill to</b><br>East Side Community Centre<br>Attn. Ms. R. Lindqvist<br>Quay Street 18<br>4415 Harbourton</div></div>
<table class="items"><thead><tr><th>#</th><th>Item</th><th class=n>Qty</th><th class=n>Unit (&euro;)</th>
<th class=n>Amount (&euro;)</th></tr></thead><tbody>{"".join(items)}</tbody></table>
<table class="totals"><tr><td>Subtotal</td><td>{sub:,.2f}</td></tr><tr><td>VAT 25%</td><td>{vat:,.2f}</td></tr>
<tr class="grand"><td>Total due</td><td>&euro; {sub + vat:,.2f}</td></tr></table>
<p class="terms">Payment within 30 days to IBAN NO93 8601 1117 947, quoting the invoice number.
Thank you for your order.</p>
</main>"""
    page("invoice.html", "Invoice 2024-0117", body, css, nav=False)


# ---------------------------------------------------------------------------------------------
# 8. newspaper.html: a front page in CSS multi-column layout
# ---------------------------------------------------------------------------------------------
def newspaper():
    p = Prose(808)
    stories = []
    for k in range(9):
        paras = "".join(f"<p>{E(p.paragraph(3, 5))}</p>" for _ in range(3 + k % 3))
        fig = ('<figure><img src="east-side.jpg" width="800" height="500" alt="The east side">'
               '<figcaption>Sandbags on Quay Street.</figcaption></figure>' if k == 2 else "")
        quote = f'<blockquote class="pull">&ldquo;{E(p.sentence())}&rdquo;</blockquote>' if k == 4 else ""
        stories.append(f'<article class="story"><h2>{E(p.title())}</h2>{fig}{paras[:len(paras) // 2]}'
                       f'{quote}{paras[len(paras) // 2:]}</article>')
    css = """<style>
.masthead { text-align: center; border-bottom: 4px double var(--ink); margin-bottom: 8px; }
.masthead h1 { font: bold 46px/1 serif; letter-spacing: 2px; margin: 8px 0 2px; }
.masthead p { font: 12px sans-serif; margin: 4px 0 6px; display: flex; justify-content: space-between; }
.lead { display: grid; grid-template-columns: 2fr 1fr; gap: 16px; border-bottom: 1px solid var(--ink); padding-bottom: 10px; }
.lead h2 { font: bold 32px/1.1 serif; margin: 6px 0; }
.lead aside { font: 13px/1.4 sans-serif; border-left: 1px solid var(--rule); padding-left: 12px; }
.columns { columns: 3; column-gap: 20px; column-rule: 1px solid var(--rule); font-size: 14px; text-align: justify; margin-top: 12px; }
.story h2 { font: bold 19px/1.15 serif; margin: 0 0 4px; }
.story { margin-bottom: 14px; }
.story p { margin: 0 0 6px; text-indent: 1em; }
.columns blockquote.pull { margin: 8px 0; font-size: 17px; }
</style>
"""
    briefs = "".join(f"<p><b>{E(p.title())}.</b> {E(p.sentence())}</p>" for _ in range(5))
    body = f"""<div class="masthead"><h1>The Harbourton Courier</h1>
<p><span>No. 18,204</span><span>Saturday 6 January 2024</span><span>&euro; 3.50</span></p></div>
<div class="lead"><div><h2>{E(p.title())}</h2>
<figure><img src="harbour-dawn.jpg" width="800" height="500" alt="The harbour"><figcaption>The inner harbour this week.</figcaption></figure>
<p class="lede">{E(p.paragraph(3, 4))}</p></div>
<aside><h3>In brief</h3>{briefs}</aside></div>
<div class="columns">{"".join(stories)}</div>
<footer class="site">The Harbourton Courier is printed on recycled paper.</footer>"""
    page("newspaper.html", "The Harbourton Courier", body, css, nav=False)


# ---------------------------------------------------------------------------------------------
# Build, check, print, describe
# ---------------------------------------------------------------------------------------------
WHAT = {
    "invoice.html": "one-page invoice: logo, address blocks, 11 line items, totals",
    "dashboard.html": "dashboard: KPI tiles and 8 panels of inline SVG charts (bars, lines with up to 365 points, pie, donut, stacked area), a small table",
    "newspaper.html": "newspaper front page: grid lead story with a photo, 9 stories in 3 justified CSS columns",
    "catalogue.html": "shop catalogue: CSS grid of 30 product cards (16 JPEG pictures, price, rating stars, badges)",
    "docs.html": "API documentation: sidebar nav (CSS grid), table of contents, 11 sections with monospace code blocks and parameter tables",
    "article.html": "long news feature: 9 sections, 5 JPEG photos and a PNG chart, pull quotes",
    "events.html": "events listing built at load time by events.js (288 items in 12 sections, seeded generator)",
    "report.html": "data report: 600-row x 8-column table, zebra stripes, header repeated on every page, totals",
}
# The order the benchmark requests them in: small and large interleaved, so neither end of the run
# is all cheap pages.
ORDER = ["article.html", "invoice.html", "report.html", "dashboard.html", "events.html", "catalogue.html",
         "newspaper.html", "docs.html"]
ASSETS = {
    "site.css": "site-wide stylesheet (every page)",
    "events.js": "script that builds events.html at load time",
    "logo.png": "logo (PNG, every page but the newspaper)",
    "harbour-dawn.jpg": "photo, 800x500 JPEG (article, newspaper)",
    "market-hall.jpg": "photo, 800x500 JPEG (article)",
    "ferry-pier.jpg": "photo, 800x500 JPEG (article)",
    "east-side.jpg": "photo, 800x500 JPEG (article, newspaper)",
    "rail-yard.jpg": "photo, 800x500 JPEG (article)",
    "ferry-chart.png": "bar chart, 720x340 PNG (article)",
}
for i, (name, shape, _) in enumerate(PRODUCTS):
    ASSETS[f"product-{i + 1:02d}.jpg"] = f"product shot, 300x225 JPEG ({name.lower()}; catalogue)"


def build():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    logo("logo.png")
    photo("harbour-dawn.jpg", 800, 500, (250, 190, 140), (120, 150, 200))
    photo("market-hall.jpg", 800, 500, (110, 150, 210), (230, 225, 205))
    photo("ferry-pier.jpg", 800, 500, (150, 190, 230), (210, 230, 240))
    photo("east-side.jpg", 800, 500, (90, 95, 110), (170, 170, 160))
    photo("rail-yard.jpg", 800, 500, (240, 160, 100), (110, 80, 130))
    infographic("ferry-chart.png")
    for i, (name, shape, hue) in enumerate(PRODUCTS):
        product(f"product-{i + 1:02d}.jpg", 300, 225, hue, shape)
    with open(os.path.join(OUT, "site.css"), "w", encoding="utf-8") as f:
        f.write(SITE_CSS)
    article(); report(); catalogue(); dashboard(); events(); docs(); invoice(); newspaper()
    with open(os.path.join(OUT, "index.txt"), "w") as f:
        f.write("".join(n + "\n" for n in ORDER))


def check_links():
    """Every src/href/url() must name a file of the set, an #anchor or a data: URL."""
    files = set(os.listdir(OUT))
    expected = set(WHAT) | set(ASSETS) | {"index.txt"}
    if files != expected:
        sys.exit(f"web-set: unexpected files {sorted(files - expected)}, missing {sorted(expected - files)}")
    used = set()
    for name in sorted(files):
        if not name.endswith((".html", ".css", ".js")):
            continue
        text = open(os.path.join(OUT, name), encoding="utf-8").read()
        if re.search(r"(?i)(https?:|ftp:|wss?:)?//[a-z0-9.-]+\.[a-z]{2,}", text.replace("*/", "").replace("/*", "")):
            sys.exit(f"web-set: {name} names a remote host")
        for ref in re.findall(r'(?:src|href)="([^"]*)"', text) + re.findall(r"url\(([^)]*)\)", text):
            if ref.startswith(("#", "data:")):
                continue
            if ref not in files:
                sys.exit(f"web-set: {name} refers to {ref!r}, which is not in the set")
            used.add(ref)
    unused = set(ASSETS) - used
    if unused:
        sys.exit(f"web-set: assets no page uses: {sorted(unused)}")


def chromium():
    for c in ("/usr/lib/chromium/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if c and os.path.exists(c):
            return c
    sys.exit("web-set: chromium not found (apt-get install chromium)")


def measure():
    """Prints every page once with a cold headless Chromium, as the benchmark's cold peer does."""
    exe, results = chromium(), {}
    tmp = tempfile.mkdtemp(prefix="make-web-set.")
    try:
        for name in ORDER:
            pdf = os.path.join(tmp, name + ".pdf")
            profile = tempfile.mkdtemp(dir=tmp, prefix="profile-")
            start = time.monotonic()
            r = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
                                f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                                f"--print-to-pdf={pdf}", "file://" + os.path.join(OUT, name)],
                               capture_output=True, text=True, timeout=180)
            seconds = time.monotonic() - start
            # Script errors and failed loads show up as console messages on stderr.
            bad = [l for l in r.stderr.splitlines()
                   if re.search(r"CONSOLE|Uncaught|ERR_FILE_NOT_FOUND|net::ERR", l)]
            if r.returncode != 0 or not os.path.exists(pdf) or bad:
                sys.exit(f"web-set: chromium could not print {name} cleanly (exit {r.returncode}):\n"
                         + "\n".join(bad or r.stderr.splitlines()[-20:]))
            info = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True, timeout=60).stdout
            pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
            text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, timeout=60).stdout
            # The events page must have been built by its script, not printed as the empty shell.
            if name == "events.html" and "288 events" not in text:
                sys.exit("web-set: events.html printed without its script's content")
            results[name] = (pages, seconds)
            print(f"  {name:16} {os.path.getsize(os.path.join(OUT, name)):>9,} B {pages:>3} pages  {seconds:5.1f} s",
                  file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return results


def readme(results):
    sizes = {n: os.path.getsize(os.path.join(OUT, n)) for n in os.listdir(OUT)}
    total = sum(sizes.values())
    if total >= 1_500_000:
        sys.exit(f"web-set: {total} bytes in all (limit 1.5 MB)")
    images = sum(s for n, s in sizes.items() if n.endswith((".png", ".jpg")))
    if images >= 600_000:
        sys.exit(f"web-set: pictures are {images} bytes in all (limit 600 KB)")
    page_rows = "\n".join(f"| `{n}` | {sizes[n]:,} | {results[n][0]} | {results[n][1]:.1f} | {WHAT[n]} |" for n in ORDER)
    asset_rows = "\n".join(f"| `{n}` | {sizes[n]:,} | {ASSETS[n]} |" for n in ASSETS)
    pages = sum(p for p, _ in results.values())
    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write(f"""# Web set (benchmark inputs)

Generated by `/usr/bin/python3 scripts/make-web-set.py Fixtures/web-set` (deletes and rebuilds this
folder; Pillow for the pictures, Python for the pages, SVG and script). Do not edit by hand.
Deterministic: fixed seeds, no dates or paths recorded; only the timings below change between runs.

A small static site: 8 pages that share `site.css` and the logo, with their pictures and script as
relative files next to them, so the folder can be served as it is (or opened through file://).
Nothing refers to another host; fonts are the generic families (Liberation/DejaVu on Debian).
`index.txt` lists the pages in the order the benchmark requests them.

Pages: what a cold `chromium --headless --no-pdf-header-footer --print-to-pdf` makes of the page
(default paper, US Letter; `pdfinfo`). Cold s: that print's wall time on the machine that generated
the set (fresh profile each): a rough figure, not a benchmark result.

| page | bytes | pages | cold s | what |
| --- | ---: | ---: | ---: | --- |
{page_rows}

| file | bytes | what |
| --- | ---: | --- |
{asset_rows}

{len(WHAT)} pages ({pages} printed pages) and {len(ASSETS)} subresources ({images:,} bytes of pictures):
{total:,} bytes in all, not counting this README.
""")


if __name__ == "__main__":
    build()
    check_links()
    readme(measure())
    print(f"done: {OUT}", file=sys.stderr)
