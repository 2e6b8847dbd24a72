#!/usr/bin/python3
"""Builds the ebook set: 5 EPUBs of different kinds and weights for the ebook-conversion benchmark.

    /usr/bin/python3 scripts/make-ebook-set.py Fixtures/ebook-set      # ~2-3 minutes (calibre)

One tiny EPUB converted twenty times measures calibre's start-up and a hot cache; these differ in
what calibre has to do: a short story, a 90,000-word novel of 24 chapters, a picture book (one
picture per page), a technical book (tables, code listings, footnotes, an inline SVG figure) and a
poetry anthology of many small files under a two-level table of contents. They are EPUB 2 and
EPUB 3, with an NCX, a nav document or both, with and without a cover, as real shops sell them.

The EPUBs are written with zipfile directly (mimetype first and stored; every entry dated
2024-01-01 00:00:00) rather than by calibre, so the converter under test does not also get to write
its own input, and so two runs write the same bytes. Text and pictures come from fixed seeds. The
only URLs in them are XML namespace names, which nothing fetches.

OUTDIR is deleted and rebuilt; then `ebook-meta` reads each book and a cold `ebook-convert FILE
out.pdf` converts it, and OUTDIR/README.md records its size, words, PDF pages and that conversion's
time. Needs Debian's python3-pil, calibre and poppler-utils; runs epubcheck too when it is installed.
"""
import functools
import html
import io
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
import zipfile

from PIL import Image, ImageDraw, ImageFilter, ImageFont

if len(sys.argv) != 2:
    sys.exit("usage: make-ebook-set.py OUTDIR")
OUT = os.path.abspath(sys.argv[1])
STAMP = (2024, 1, 1, 0, 0, 0)
MODIFIED = "2024-01-01T00:00:00Z"


def E(s):
    return html.escape(s, quote=True)


# ---------------------------------------------------------------------------------------------
# EPUB container
# ---------------------------------------------------------------------------------------------
class Book:
    def __init__(self, name, title, author, version, lang="en", subject="", description=""):
        self.name, self.title, self.author, self.version, self.lang = name, title, author, version, lang
        self.subject, self.description = subject, description
        # uuid5: a stable identifier per book, so the OPF is the same every run
        self.uid = "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, "pdfgate-fixture:" + name))
        self.items = []     # (id, href, media-type, bytes, properties)
        self.spine = []     # (id, linear)
        self.toc = []       # (label, href, children)
        self.cover = None   # id of the cover image
        self.guide = []     # (type, title, href), EPUB 2
        self.words = 0

    def add(self, id_, href, media, data, props="", spine=False, linear=True):
        if isinstance(data, str):
            data = data.encode("utf-8")
        self.items.append((id_, href, media, data, props))
        if spine:
            self.spine.append((id_, linear))
        if media == "application/xhtml+xml":
            self.words += count_words(data.decode("utf-8"))

    def xhtml(self, title, body, css="style.css", extra_ns=""):
        ns = ' xmlns:epub="http://www.idpf.org/2007/ops"' if self.version == 3 else ""
        doctype = "<!DOCTYPE html>\n" if self.version == 3 else ""
        lang = f' xml:lang="{self.lang}"' + (f' lang="{self.lang}"' if self.version == 3 else "")
        meta = ('<meta charset="utf-8"/>' if self.version == 3 else
                '<meta http-equiv="Content-Type" content="application/xhtml+xml; charset=utf-8"/>')
        return (f'<?xml version="1.0" encoding="utf-8"?>\n{doctype}'
                f'<html xmlns="http://www.w3.org/1999/xhtml"{ns}{extra_ns}{lang}>\n<head>\n{meta}\n'
                f'<title>{E(title)}</title>\n<link rel="stylesheet" type="text/css" href="{css}"/>\n</head>\n'
                f'<body>\n{body}\n</body>\n</html>\n')

    def opf(self):
        v3 = self.version == 3
        meta = [f'<dc:identifier id="bookid">{self.uid}</dc:identifier>',
                f"<dc:title>{E(self.title)}</dc:title>",
                "<dc:creator" + ("" if v3 else ' opf:role="aut"') + f">{E(self.author)}</dc:creator>",
                f"<dc:language>{self.lang}</dc:language>",
                "<dc:publisher>PDF Gateway fixtures</dc:publisher>",
                "<dc:date>2024-01-01</dc:date>"]
        if self.subject:
            meta.append(f"<dc:subject>{E(self.subject)}</dc:subject>")
        if self.description:
            meta.append(f"<dc:description>{E(self.description)}</dc:description>")
        if v3:
            meta.append(f'<meta property="dcterms:modified">{MODIFIED}</meta>')
        if self.cover:
            meta.append(f'<meta name="cover" content="{self.cover}"/>')  # EPUB 2 readers (and calibre)
        manifest = []
        for id_, href, media, _, props in self.items:
            p = f' properties="{props}"' if (props and v3) else ""
            manifest.append(f'<item id="{id_}" href="{href}" media-type="{media}"{p}/>')
        spine = "".join(f'<itemref idref="{i}"' + ("" if lin else ' linear="no"') + "/>" for i, lin in self.spine)
        spine_attr = ' toc="ncx"' if any(i[0] == "ncx" for i in self.items) else ""
        guide = ""
        if self.guide:
            guide = "<guide>" + "".join(f'<reference type="{t}" title="{E(n)}" href="{h}"/>'
                                        for t, n, h in self.guide) + "</guide>"
        ns = 'xmlns:dc="http://purl.org/dc/elements/1.1/"' + ('' if v3 else ' xmlns:opf="http://www.idpf.org/2007/opf"')
        return (f'<?xml version="1.0" encoding="utf-8"?>\n'
                f'<package xmlns="http://www.idpf.org/2007/opf" version="{"3.0" if v3 else "2.0"}" '
                f'unique-identifier="bookid">\n<metadata {ns}>\n' + "\n".join(meta) + "\n</metadata>\n"
                "<manifest>\n" + "\n".join(manifest) + "\n</manifest>\n"
                f'<spine{spine_attr}>{spine}</spine>\n{guide}\n</package>\n')

    def ncx(self):
        order = [0]

        def points(entries, depth):
            out = []
            for label, href, children in entries:
                order[0] += 1
                out.append(f'{"  " * depth}<navPoint id="np{order[0]}" playOrder="{order[0]}">'
                           f"<navLabel><text>{E(label)}</text></navLabel><content src=\"{href}\"/>")
                out.extend(points(children, depth + 1))
                out.append(f'{"  " * depth}</navPoint>')
            return out

        body = points(self.toc, 1)
        depth = 2 if any(c for _, _, c in self.toc) else 1
        return ('<?xml version="1.0" encoding="utf-8"?>\n'
                '<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">\n'
                f'<head><meta name="dtb:uid" content="{self.uid}"/><meta name="dtb:depth" content="{depth}"/>'
                '<meta name="dtb:totalPageCount" content="0"/><meta name="dtb:maxPageNumber" content="0"/></head>\n'
                f"<docTitle><text>{E(self.title)}</text></docTitle>\n"
                f"<docAuthor><text>{E(self.author)}</text></docAuthor>\n<navMap>\n" + "\n".join(body) +
                "\n</navMap>\n</ncx>\n")

    def nav(self):
        def ol(entries):
            return "<ol>" + "".join(f'<li><a href="{h}">{E(l)}</a>{ol(c) if c else ""}</li>' for l, h, c in entries) + "</ol>"
        body = (f'<nav epub:type="toc" id="toc"><h1>Contents</h1>{ol(self.toc)}</nav>\n'
                f'<nav epub:type="landmarks" hidden="hidden"><ol>'
                f'<li><a epub:type="bodymatter" href="{self.toc[0][1].split("#")[0]}">Start</a></li></ol></nav>')
        return self.xhtml("Contents", body)

    def write(self, ncx, nav):
        if ncx:
            self.add("ncx", "toc.ncx", "application/x-dtbncx+xml", self.ncx())
        if nav:
            self.add("nav", "nav.xhtml", "application/xhtml+xml", self.nav(), props="nav")
        path = os.path.join(OUT, self.name)

        def entry(zf, name, data, compress=zipfile.ZIP_DEFLATED):
            zi = zipfile.ZipInfo(name, date_time=STAMP)
            zi.compress_type = compress
            zi.create_system = 3
            zi.external_attr = 0o644 << 16
            zf.writestr(zi, data, compress_type=compress, compresslevel=9 if compress else None)

        with zipfile.ZipFile(path, "w") as zf:
            # Readers sniff the first 58 bytes: "mimetype", stored, no extra field.
            entry(zf, "mimetype", b"application/epub+zip", zipfile.ZIP_STORED)
            entry(zf, "META-INF/container.xml",
                  '<?xml version="1.0" encoding="utf-8"?>\n'
                  '<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">\n'
                  '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
                  '</rootfiles>\n</container>\n')
            entry(zf, "OEBPS/content.opf", self.opf())
            for _, href, media, data, _ in self.items:
                # JPEG/PNG do not shrink under deflate; storing them saves the reader the work.
                entry(zf, "OEBPS/" + href, data,
                      zipfile.ZIP_STORED if media.startswith("image/") and "svg" not in media else zipfile.ZIP_DEFLATED)
        return path


def count_words(xhtml):
    body = xhtml.split("<body", 1)[-1]
    text = html.unescape(re.sub(r"<[^>]+>", " ", body))
    return len(re.findall(r"[\w’'-]+", text))


# ---------------------------------------------------------------------------------------------
# Pictures
# ---------------------------------------------------------------------------------------------
def font(size, bold=False, serif=False):
    fam = "LiberationSerif" if serif else "LiberationSans"
    name = f"{fam}-Bold.ttf" if bold else f"{fam}-Regular.ttf"
    try:
        return ImageFont.truetype(f"/usr/share/fonts/truetype/liberation/{name}", size)
    except OSError:
        return ImageFont.load_default()


def encode(im, fmt, **kw):
    buf = io.BytesIO()
    im.save(buf, fmt, **kw)
    return buf.getvalue()


def gradient(w, h, top, bottom):
    im = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(im)
    for y in range(h):
        t = y / h
        d.line([(0, y), (w, y)], fill=tuple(int(top[i] * (1 - t) + bottom[i] * t) for i in range(3)))
    return im, d


def cover(R, w, h, title, author, top, bottom, fg=(255, 255, 255), pattern="waves"):
    im, d = gradient(w, h, top, bottom)
    if pattern == "waves":
        for k in range(14):
            y0 = h * 0.5 + k * 22
            pts = [(x, y0 + 12 * math.sin(x / (40 + k * 3) + k)) for x in range(0, w + 10, 10)]
            d.line(pts, fill=tuple(min(255, c + 25) for c in bottom), width=3)
        d.ellipse([w * 0.62, h * 0.12, w * 0.86, h * 0.28], fill=(250, 235, 200))
    else:  # blocks: a technical cover
        for _ in range(40):
            x, y = R.randrange(0, w, 20), R.randrange(int(h * 0.45), h, 20)
            d.rectangle([x, y, x + 18, y + 18], fill=tuple(min(255, c + R.randint(10, 60)) for c in bottom))
    im = im.filter(ImageFilter.GaussianBlur(1.2))
    noise = Image.effect_noise((w, h), 40).convert("RGB")
    im = Image.blend(im, noise, 0.06)
    d = ImageDraw.Draw(im)
    y = int(h * 0.08)
    for line in title:
        d.text((w * 0.08, y), line, fill=fg, font=font(int(w * 0.09), True, serif=True))
        y += int(w * 0.11)
    d.text((w * 0.08, h * 0.9), author, fill=fg, font=font(int(w * 0.045)))
    return encode(im, "JPEG", quality=78, optimize=True)


# ---------------------------------------------------------------------------------------------
# Prose: a small grammar over fixed word lists (seeded), so the text reads like fiction at a
# glance, wraps like text, and does not compress to nothing.
# ---------------------------------------------------------------------------------------------
WHEN = ["in the morning", "after supper", "before the first ferry", "late that night", "on Sunday",
        "at first light", "in the grey afternoon", "when the tide turned", "the next day", "an hour later",
        "while the kettle boiled", "just after the church bells"]
WEATHER = [("rain", "drifted"), ("fog", "lay"), ("wind", "pulled"), ("snow", "settled"), ("light", "spread"),
           ("sleet", "rattled"), ("sun", "burned"), ("mist", "hung")]
THINGS = ["a letter with a foreign stamp", "a jar of cloudberries", "an old oilskin coat", "a brass key",
          "a folded map of the islands", "a photograph of the boat", "two cold cups of coffee",
          "a tin of nails", "the ledger from the shop", "a child's drawing of the lighthouse"]
VERBS_WALK = ["walked", "went", "hurried", "wandered", "climbed", "drove", "rowed", "cycled"]
DOINGS = ["mended the nets", "read the newspaper twice", "counted the money in the tin", "wrote to the bank",
          "cleaned the windows", "chopped wood for the stove", "listened to the radio", "sorted the post",
          "stacked the chairs", "scraped the hull", "peeled potatoes", "fed the hens", "swept the steps",
          "tried to fix the clock", "looked for the missing key", "watched the harbour"]
FEELINGS = ["tired", "oddly calm", "afraid", "restless", "relieved", "guilty", "hopeful", "older than usual",
            "almost happy", "lonely", "certain of nothing"]
SOUNDS = ["a dog barked twice", "the gulls quarrelled over the fish crates", "a door banged in the wind",
          "someone was whistling on the quay", "the engine of a boat coughed and died",
          "the rain ticked on the tin roof", "a radio played an old song", "the foghorn sounded"]
ADJ = ["cold", "quiet", "bright", "damp", "still", "crowded", "grey", "warm", "narrow", "empty", "dark",
       "smoky", "salty", "close"]
UTTER = ["I saw the light in {place} again", "you should have told me about {topic}",
         "we can leave before the tide turns", "nobody goes to {place} any more", "does {b} know",
         "it was never about {topic}", "let me carry that", "the boat is ready", "not tonight",
         "tell me again what {b} said", "I kept {thing}", "we will need more than that",
         "there is coffee if you want it", "you look like your mother", "who told you that",
         "it will be dark by four", "I went to {place} and waited", "that was a long time ago",
         "do you remember the winter of the storm", "I am not angry", "sit down, please",
         "they are selling the shop", "the ferry is late again", "you can stay here"]
TAGS = ["", "", " quietly", " at last", " without looking up", ", smiling", " after a while", " sharply"]


class Fiction:
    def __init__(self, seed, cast, places, topics):
        self.r, self.cast, self.places, self.topics = random.Random(seed), cast, places, topics

    def _fill(self, s, a=None):
        r = self.r
        b = r.choice([c for c in self.cast if c != a] or self.cast)
        return s.format(place=r.choice(self.places), topic=r.choice(self.topics), b=b, thing=r.choice(THINGS))

    def narrative(self):
        r, a = self.r, self.r.choice(self.cast)
        b = r.choice([c for c in self.cast if c != a])
        k = r.randrange(10)
        if k == 0:
            s = f"{a} {r.choice(VERBS_WALK)} down to {r.choice(self.places)} {r.choice(WHEN)}"
        elif k == 1:
            s = f"{r.choice(WHEN)}, {a} {r.choice(VERBS_WALK)} to {r.choice(self.places)} and {r.choice(DOINGS)}"
        elif k == 2:
            w, v = r.choice(WEATHER)
            s = f"the {w} {v} over {r.choice(self.places)}, and {a} {r.choice(DOINGS)}"
        elif k == 3:
            s = f"{a} {r.choice(DOINGS)} while {b} {r.choice(DOINGS)}"
        elif k == 4:
            s = f"{a} had not thought about {r.choice(self.topics)} for years"
        elif k == 5:
            s = f"there was {r.choice(THINGS)} on the table, and {a} looked at it for a long time"
        elif k == 6:
            s = f"{a} felt {r.choice(FEELINGS)}, though it was hard to say why"
        elif k == 7:
            s = f"outside, {r.choice(SOUNDS)}"
        elif k == 8:
            s = f"it was {r.choice(ADJ)} in {r.choice(self.places)}, {r.choice(ADJ)} and {r.choice(ADJ)}"
        else:
            s = f"{b} had said something about {r.choice(self.topics)}, and {a} had not answered"
        return s[0].upper() + s[1:] + "."

    def line(self):
        r = self.r
        a = r.choice(self.cast)
        u = self._fill(r.choice(UTTER), a)
        u = u[0].upper() + u[1:]
        if u.startswith(("Does", "Who", "Do you")):
            return f"“{u}?” {a} asked."
        return f"“{u},” {a} said{r.choice(TAGS)}."

    def paragraph(self):
        r = self.r
        if r.random() < 0.3:
            return self.line() + (" " + self.narrative() if r.random() < 0.5 else "")
        return " ".join(self.narrative() for _ in range(r.randint(3, 7)))

    def chapter(self, words):
        paras, n = [], 0
        while n < words:
            p = self.paragraph()
            paras.append(p)
            n += len(p.split())
        return paras


CSS_PROSE = """body { font-family: serif; line-height: 1.45; margin: 0 4%; }
h1 { font-size: 1.6em; text-align: center; margin: 2em 0 1.2em; page-break-before: always; }
h2 { font-size: 1.1em; text-align: center; font-weight: normal; font-style: italic; }
p { margin: 0; text-indent: 1.4em; text-align: justify; }
p.first { text-indent: 0; }
p.first::first-letter { font-size: 2.6em; float: left; line-height: 0.9; margin-right: 0.06em; }
p.break { text-align: center; text-indent: 0; margin: 0.8em 0; }
.title-page { text-align: center; margin-top: 30%; }
.title-page h1 { font-size: 2.2em; page-break-before: avoid; }
.title-page p { text-indent: 0; text-align: center; }
"""


def prose_chapter(book, n, title, paras, heading_prefix="Chapter"):
    body = [f'<h1 id="c{n}">{heading_prefix} {n}</h1>', f"<h2>{E(title)}</h2>"]
    first = True
    for i, p in enumerate(paras):
        if i and i % 23 == 0:
            body.append('<p class="break">* * *</p>')
            first = True
        body.append(("<p class=\"first\">" if first else "<p>") + f"{E(p)}</p>")
        first = False
    return book.xhtml(f"{heading_prefix} {n}: {title}", "\n".join(body))


def title_page(book, subtitle):
    return book.xhtml(book.title, f'<div class="title-page"><h1>{E(book.title)}</h1><p><i>{E(subtitle)}</i></p>'
                                  f'<p>{E(book.author)}</p></div>')


# ---------------------------------------------------------------------------------------------
# 1. short-story.epub: EPUB 3, 3 chapters, ~3,000 words, nav and NCX, no cover
# ---------------------------------------------------------------------------------------------
def short_story():
    b = Book("short-story.epub", "The Night Ferry", "Liv Aasen", 3, subject="Fiction",
             description="A short story in three parts.")
    f = Fiction(11, ["Liv", "the ferryman", "Arne", "the girl with the red scarf"],
                ["the waiting room", "the car deck", "the pier", "the wheelhouse", "the café on board"],
                ["the crossing", "her father's boat", "the storm in March", "the last ticket"])
    b.add("css", "style.css", "text/css", CSS_PROSE)
    b.add("title", "title.xhtml", "application/xhtml+xml", title_page(b, "A story"), spine=True)
    for n, t in enumerate(["The Waiting Room", "The Crossing", "The Far Pier"], 1):
        b.add(f"ch{n}", f"ch{n}.xhtml", "application/xhtml+xml", prose_chapter(b, n, t, f.chapter(980)), spine=True)
        b.toc.append((f"{n}. {t}", f"ch{n}.xhtml", []))
    b.write(ncx=True, nav=True)
    return b, "EPUB 3 (nav + NCX): short story, 3 chapters, no cover"


# ---------------------------------------------------------------------------------------------
# 2. novel.epub: EPUB 2, 24 chapters, ~90,000 words, NCX + guide, JPEG cover
# ---------------------------------------------------------------------------------------------
def novel():
    b = Book("novel.epub", "The Salt Year", "Halvard Moe", 2, subject="Fiction",
             description="A novel about one year in a small harbour town.")
    f = Fiction(22, ["Ingrid", "Tomas", "old Halvor", "Marit", "Elias", "the schoolteacher", "Sofie",
                     "the priest", "Jens", "Aunt Ragna"],
                ["the kitchen", "the quay", "the boathouse", "the church", "the station", "the lighthouse",
                 "the shop", "the school", "the fish plant", "the post office", "the hill above the town",
                 "the cemetery", "the ferry landing", "Ragna's house"],
                ["the money", "the drowned boat", "the letter from Bergen", "the sale of the shop",
                 "their mother", "the fire at the fish plant", "the winter of the storm", "the old promise",
                 "the new road", "the lighthouse keeper's son"])
    R = random.Random(23)
    b.add("css", "style.css", "text/css", CSS_PROSE)
    b.add("cover-image", "cover.jpg", "image/jpeg",
          cover(R, 600, 900, ["The Salt", "Year"], "Halvard Moe", (40, 60, 90), (150, 170, 180)))
    b.cover = "cover-image"
    b.add("cover", "cover.xhtml", "application/xhtml+xml",
          b.xhtml("Cover", '<div style="text-align:center"><img src="cover.jpg" alt="Cover" style="height:100%"/></div>'),
          spine=True)
    b.add("title", "title.xhtml", "application/xhtml+xml", title_page(b, "A novel"), spine=True)
    b.guide = [("cover", "Cover", "cover.xhtml"), ("title-page", "Title page", "title.xhtml"),
               ("text", "Beginning", "ch01.xhtml")]
    names = ["January", "The Boathouse", "A Letter from Bergen", "Ice on the Sound", "The Auction",
             "Ragna's Kitchen", "Easter", "The Road Survey", "Nets", "Midsummer", "The Drowned Boat",
             "Visitors", "The Fish Plant", "August Rain", "Sofie Leaves", "The Lighthouse", "Harvest",
             "The Storm", "After the Storm", "The Promise", "Advent", "The Sale", "Christmas Eve", "Salt"]
    for n, t in enumerate(names, 1):
        b.add(f"ch{n:02d}", f"ch{n:02d}.xhtml", "application/xhtml+xml",
              prose_chapter(b, n, t, f.chapter(R.randint(3300, 4200))), spine=True)
        b.toc.append((f"{n}. {t}", f"ch{n:02d}.xhtml", []))
    b.write(ncx=True, nav=False)
    return b, "EPUB 2 (NCX, guide): novel, 24 chapters, JPEG cover"


# ---------------------------------------------------------------------------------------------
# 3. picture-book.epub: EPUB 3, 12 illustrated pages (PNG and JPEG) with captions, cover
# ---------------------------------------------------------------------------------------------
STORY = ["Little Fox lived at the edge of the big dark wood, under the roots of an old pine.",
         "Every night the round moon came up over the hill and looked into Little Fox's den.",
         "But one night the moon did not come. The sky was black, and the hill was black too.",
         "“Where is the moon?” asked Little Fox. Nobody answered, so off he went to look.",
         "He asked the owl in the birch tree. “Not here,” said the owl. “Try the river.”",
         "He asked the river. The river only sang, and carried a yellow leaf away.",
         "He asked the hens in the red barn. They were asleep, and did not say anything at all.",
         "He climbed the hill, where the wind was cold, and looked very far across the fields.",
         "Far away, behind the clouds, something round and silver was peeping out.",
         "The clouds moved on. There was the moon, bigger and brighter than ever before.",
         "“You were only hiding,” said Little Fox, and the moon seemed to smile.",
         "Then Little Fox went home under the moonlight, and curled up, and slept."]


def fox(d, x, y, s):
    orange, white, dark = (222, 110, 40), (250, 245, 235), (60, 40, 30)
    d.ellipse([x - 70 * s, y - 10 * s, x + 10 * s, y + 30 * s], fill=orange)              # tail
    d.ellipse([x - 75 * s, y - 5 * s, x - 50 * s, y + 20 * s], fill=white)
    d.ellipse([x - 20 * s, y - 25 * s, x + 60 * s, y + 25 * s], fill=orange)              # body
    d.polygon([(x + 40 * s, y - 20 * s), (x + 95 * s, y - 15 * s), (x + 55 * s, y + 20 * s)], fill=orange)  # head
    d.polygon([(x + 45 * s, y - 18 * s), (x + 50 * s, y - 48 * s), (x + 62 * s, y - 17 * s)], fill=orange)  # ears
    d.polygon([(x + 62 * s, y - 17 * s), (x + 70 * s, y - 45 * s), (x + 78 * s, y - 16 * s)], fill=orange)
    d.ellipse([x + 90 * s, y - 18 * s, x + 98 * s, y - 10 * s], fill=dark)                # nose
    d.ellipse([x + 62 * s, y - 10 * s, x + 68 * s, y - 4 * s], fill=dark)                 # eye
    for lx in (0, 15, 35, 50):
        d.rectangle([x + lx * s - 5 * s, y + 15 * s, x + lx * s + 3 * s, y + 42 * s], fill=dark)


def illustration(R, page, w=800, h=600):
    night = page not in (0,)
    moon = page in (0, 1, 8, 9, 10, 11)
    top = (20, 30, 70) if night else (120, 170, 230)
    bottom = (70, 80, 130) if night else (200, 220, 240)
    if page == 2:
        top, bottom = (5, 5, 15), (25, 25, 40)
    im, d = gradient(w, h, top, bottom)
    if night:
        for _ in range(60):
            x, y = R.randint(0, w), R.randint(0, int(h * 0.5))
            d.ellipse([x, y, x + 3, y + 3], fill=(255, 250, 220))
    if moon:
        mx, my, mr = (w * 0.75, h * 0.2, 60) if page != 9 else (w * 0.5, h * 0.22, 90)
        d.ellipse([mx - mr, my - mr, mx + mr, my + mr], fill=(250, 245, 200))
    if page == 8:
        d.ellipse([w * 0.7, h * 0.12, w * 0.82, h * 0.28], fill=(230, 230, 215))
    if page in (8, 3):
        for k in range(5):
            cx, cy = R.randint(0, w), R.randint(40, 200)
            for j in range(4):
                d.ellipse([cx + j * 40, cy - 20, cx + j * 40 + 90, cy + 40], fill=(90, 95, 120))
    hill = [(0, h)] + [(x, h * 0.62 - 50 * math.sin(x / 160 + page)) for x in range(0, w + 20, 20)] + [(w, h)]
    d.polygon(hill, fill=(40, 90, 50) if not night else (25, 55, 35))
    for _ in range(6 + page % 4):
        tx, ty = R.randint(0, w), int(h * 0.55 + R.randint(0, 60))
        d.polygon([(tx, ty - 120), (tx - 40, ty), (tx + 40, ty)], fill=(20, 60 + R.randint(0, 30), 35))
        d.rectangle([tx - 6, ty, tx + 6, ty + 20], fill=(70, 45, 30))
    if page == 5:
        d.polygon([(0, h * 0.8), (w, h * 0.72), (w, h * 0.86), (0, h * 0.95)], fill=(60, 110, 170))
        d.ellipse([w * 0.5, h * 0.8, w * 0.53, h * 0.82], fill=(230, 200, 40))
    if page == 6:
        d.rectangle([w * 0.15, h * 0.5, w * 0.45, h * 0.78], fill=(170, 40, 35))
        d.polygon([(w * 0.12, h * 0.5), (w * 0.3, h * 0.35), (w * 0.48, h * 0.5)], fill=(120, 30, 30))
    if page == 4:
        d.ellipse([w * 0.15, h * 0.3, w * 0.25, h * 0.45], fill=(140, 110, 80))
        d.ellipse([w * 0.17, h * 0.33, w * 0.19, h * 0.36], fill=(250, 220, 60))
        d.ellipse([w * 0.21, h * 0.33, w * 0.23, h * 0.36], fill=(250, 220, 60))
    fx = [0.35, 0.5, 0.4, 0.3, 0.45, 0.6, 0.55, 0.4, 0.35, 0.4, 0.5, 0.45][page]
    fox(d, w * fx, h * 0.8, 1.0 if page != 11 else 0.8)
    if page % 2:   # the odd pages painted, as a scanned watercolour would be: soft edges, paper grain
        im = im.filter(ImageFilter.GaussianBlur(1.6))
        im = Image.blend(im, Image.effect_noise((w, h), 50).convert("RGB"), 0.07)
        return "jpg", encode(im, "JPEG", quality=76, optimize=True)
    im = im.quantize(64, dither=Image.Dither.NONE)
    return "png", encode(im, "PNG", optimize=True)


def picture_book():
    b = Book("picture-book.epub", "Little Fox and the Lost Moon", "Ada Brekke", 3, subject="Children",
             description="A picture book for bedtime.")
    R = random.Random(33)
    b.add("css", "style.css", "text/css", """body { margin: 0; font-family: sans-serif; text-align: center; }
div.page { page-break-after: always; }
div.page img { width: 100%; max-height: 80vh; object-fit: contain; }
p.caption { font-size: 1.5em; line-height: 1.35; margin: 0.8em 6%; color: #2a2a40; }
h1 { font-size: 2em; margin-top: 1em; }
""")
    art = Image.open(io.BytesIO(illustration(random.Random(30), 10)[1])).convert("RGB")
    d = ImageDraw.Draw(art)
    d.text((40, 40), "Little Fox and", fill=(255, 240, 200), font=font(56, True, serif=True))
    d.text((40, 105), "the Lost Moon", fill=(255, 240, 200), font=font(56, True, serif=True))
    b.add("cover-image", "images/cover.jpg", "image/jpeg", encode(art, "JPEG", quality=78, optimize=True),
          props="cover-image")
    b.cover = "cover-image"
    b.add("cover", "cover.xhtml", "application/xhtml+xml",
          b.xhtml("Cover", '<div class="page"><img src="images/cover.jpg" alt="Cover"/></div>'), spine=True)
    for i, text in enumerate(STORY):
        ext, data = illustration(R, i)
        media = "image/jpeg" if ext == "jpg" else "image/png"
        b.add(f"img{i + 1}", f"images/page{i + 1:02d}.{ext}", media, data)
        body = (f'<div class="page" id="p{i + 1}"><img src="images/page{i + 1:02d}.{ext}" alt="Picture for page {i + 1}"/>'
                f'<p class="caption">{E(text)}</p></div>')
        b.add(f"page{i + 1}", f"page{i + 1:02d}.xhtml", "application/xhtml+xml", b.xhtml(f"Page {i + 1}", body), spine=True)
        b.toc.append((f"Page {i + 1}", f"page{i + 1:02d}.xhtml", []))
    b.add("end", "end.xhtml", "application/xhtml+xml",
          b.xhtml("The End", f"<h1>The End</h1><p>Written and drawn by {E(b.author)}.</p>"), spine=True)
    b.toc.append(("The End", "end.xhtml", []))
    b.write(ncx=True, nav=True)
    return b, "EPUB 3 (nav + NCX): picture book, cover and 12 pages, each a picture (6 PNG, 6 JPEG) and a caption"


# ---------------------------------------------------------------------------------------------
# 4. technical-book.epub: EPUB 3 (nav only), tables, code listings, footnotes, an SVG figure
# ---------------------------------------------------------------------------------------------
def tech_prose(R, n):
    subj = ["the broker", "each consumer", "the write-ahead log", "a producer", "the scheduler",
            "the replication thread", "every partition", "the client library", "the index", "the compactor"]
    verb = ["appends", "acknowledges", "flushes", "replays", "batches", "rejects", "retries", "checkpoints",
            "compresses", "reads"]
    obj = ["the message", "a batch of records", "the segment file", "the offset", "the pending writes",
           "the lease", "a heartbeat", "the consumer group state", "the snapshot", "the tail of the log"]
    cond = ["before it returns", "once the quorum has answered", "when the segment is full",
            "unless the timeout expires first", "after a restart", "in the background", "on every commit",
            "if the disk is slow", "at most once per second", "while holding the partition lock"]
    out = []
    for _ in range(n):
        k = R.randrange(4)
        if k == 0:
            s = f"{R.choice(subj)} {R.choice(verb)} {R.choice(obj)} {R.choice(cond)}"
        elif k == 1:
            s = f"in practice, {R.choice(subj)} {R.choice(verb)} {R.choice(obj)}, so {R.choice(subj)} never sees a partial write"
        elif k == 2:
            s = f"this matters because {R.choice(subj)} {R.choice(verb)} {R.choice(obj)} {R.choice(cond)}"
        else:
            s = f"note that {R.choice(subj)} only {R.choice(verb)} {R.choice(obj)} {R.choice(cond)}"
        out.append(s[0].upper() + s[1:] + ".")
    return " ".join(out)


SECTION_HEADS = ["Design goals", "Segments and offsets", "Acknowledgements", "Timeouts", "Failure modes",
                 "Batching", "Compression", "Ordering guarantees", "Monitoring", "Tuning the flush interval",
                 "Consumer lag", "Leases and heartbeats", "Checksums", "Recovery after a crash", "Quotas",
                 "Transport security", "Rolling upgrades", "Capacity planning", "Idempotent producers",
                 "Rebalancing", "Retention and compaction", "Disk layout", "Benchmarks that lie", "Summary"]


def listing(R, kind):
    name = R.choice(["orders", "events", "metrics", "audit", "payments", "clicks"])
    if kind == "py":
        return f'''from tidelog import Client, Record

client = Client(["broker-1:7400", "broker-2:7400"], acks="quorum")

def publish_{name}(rows, batch_size={R.choice([100, 250, 500])}):
    """Sends rows to the {name} topic in batches; returns the last offset."""
    last = None
    for start in range(0, len(rows), batch_size):
        batch = [Record(key=r["id"], value=r) for r in rows[start:start + batch_size]]
        last = client.send("{name}", batch, timeout={R.randint(2, 30)})
    client.flush()
    return last'''
    if kind == "c":
        return f'''struct segment_header {{
    uint32_t magic;          /* 0x54444c47 */
    uint16_t version;        /* {R.randint(1, 4)} */
    uint16_t flags;
    uint64_t base_offset;
    uint64_t created_ms;
    uint32_t record_count;
    uint32_t crc32c;         /* of everything above */
}};

static int segment_append(struct segment *s, const void *buf, size_t len)
{{
    if (s->size + len > s->limit)
        return -ENOSPC;
    memcpy(s->data + s->size, buf, len);
    s->size += len;
    return 0;
}}'''
    if kind == "sql":
        return f'''CREATE TABLE {name}_offsets (
    consumer_group  TEXT    NOT NULL,
    partition       INTEGER NOT NULL,
    committed       BIGINT  NOT NULL,
    updated_at      TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (consumer_group, partition)
);

SELECT partition, max(committed) AS head
  FROM {name}_offsets
 WHERE consumer_group = 'billing'
 GROUP BY partition
 ORDER BY partition;'''
    if kind == "yaml":
        return f'''broker:
  id: {R.randint(1, 9)}
  listen: 0.0.0.0:7400
  data_dir: /var/lib/tidelog
log:
  segment_bytes: {R.choice([64, 128, 256])}MiB
  retention: {R.choice([3, 7, 14])}d
  flush_interval: {R.choice([50, 100, 200])}ms
replication:
  factor: 3
  min_in_sync: 2'''
    return f'''$ tidelog-admin topics create {name} --partitions {R.choice([6, 12, 24])} --replicas 3
created topic "{name}"
$ tidelog-admin groups describe billing
PARTITION  COMMITTED   HEAD        LAG
0          {R.randint(10**5, 10**6):<11} {R.randint(10**6, 2 * 10**6):<11} {R.randint(0, 900)}
1          {R.randint(10**5, 10**6):<11} {R.randint(10**6, 2 * 10**6):<11} {R.randint(0, 900)}'''


def svg_figure(R):
    boxes = []
    for i, label in enumerate(["producer", "broker 1", "broker 2", "broker 3", "consumer"]):
        x = 20 + i * 130
        boxes.append(f'<rect x="{x}" y="60" width="110" height="50" rx="8" fill="#dde8f3" stroke="#1f5f8c"/>'
                     f'<text x="{x + 55}" y="90" font-size="14" text-anchor="middle">{label}</text>')
        if i:
            boxes.append(f'<line x1="{x - 20}" y1="85" x2="{x}" y2="85" stroke="#333" stroke-width="2"/>'
                         f'<polygon points="{x},85 {x - 8},80 {x - 8},90" fill="#333"/>')
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 680 160" width="100%">'
            '<text x="340" y="30" font-size="16" text-anchor="middle" font-weight="bold">A record on its way</text>'
            + "".join(boxes) + "</svg>")


def technical_book():
    b = Book("technical-book.epub", "Logs, Brokers and Back-Pressure", "Jon Varg & Nina Holt", 3,
             subject="Computers", description="A practical guide to building and running a message broker.")
    R = random.Random(44)
    b.add("css", "style.css", "text/css", """body { font-family: serif; line-height: 1.4; margin: 0 3%; }
h1 { font-family: sans-serif; font-size: 1.7em; page-break-before: always; border-bottom: 2px solid #1f5f8c; }
h2 { font-family: sans-serif; font-size: 1.25em; margin-top: 1.4em; }
p { margin: 0.4em 0; text-align: justify; }
pre { font-family: monospace; font-size: 0.78em; line-height: 1.3; background: #f4f6f8; border: 1px solid #ccd;
  padding: 0.5em; white-space: pre-wrap; page-break-inside: avoid; }
code { font-family: monospace; }
table { border-collapse: collapse; width: 100%; margin: 0.8em 0; font-size: 0.85em; }
th, td { border: 1px solid #99a; padding: 0.2em 0.4em; text-align: left; vertical-align: top; }
th { background: #dde8f3; }
td.n { text-align: right; }
caption { font-style: italic; caption-side: bottom; padding-top: 0.3em; }
a.noteref { font-size: 0.75em; vertical-align: super; text-decoration: none; }
aside.footnote { font-size: 0.85em; border-top: 1px solid #aaa; margin-top: 0.6em; padding-top: 0.2em; }
div.figure { text-align: center; margin: 1em 0; page-break-inside: avoid; }
""")
    b.add("cover-image", "cover.jpg", "image/jpeg",
          cover(R, 600, 900, ["Logs,", "Brokers and", "Back-Pressure"], "Jon Varg & Nina Holt",
                (25, 35, 50), (31, 95, 140), pattern="blocks"), props="cover-image")
    b.cover = "cover-image"
    b.add("cover", "cover.xhtml", "application/xhtml+xml",
          b.xhtml("Cover", '<div style="text-align:center"><img src="cover.jpg" alt="Cover" style="max-width:100%"/></div>'),
          spine=True)
    chapters = ["Why a log?", "Installing a three-node cluster", "Configuration reference", "Producers",
                "Consumers and groups", "The storage format", "Replication", "Back-pressure", "Operations",
                "Measuring performance", "Appendix: error codes"]
    kinds = ["py", "c", "sql", "yaml", "sh"]
    fn = listings = tables = 0
    for n, title in enumerate(chapters, 1):
        body, notes = [f'<h1 id="ch{n}">{n}. {E(title)}</h1>'], []
        heads = R.sample(SECTION_HEADS, 5)
        for s in range(R.randint(3, 5)):
            body.append(f'<h2 id="ch{n}s{s + 1}">{n}.{s + 1} {E(heads[s])}</h2>')
            for _ in range(R.randint(2, 4)):
                text = E(tech_prose(R, R.randint(3, 6)))
                if R.random() < 0.45:
                    fn += 1
                    text += f'<a class="noteref" epub:type="noteref" href="#fn{fn}" id="fr{fn}">{fn}</a>'
                    notes.append(f'<aside class="footnote" epub:type="footnote" id="fn{fn}"><p><a href="#fr{fn}">{fn}.</a> '
                                 f'{E(tech_prose(R, R.randint(1, 2)))}</p></aside>')
                if R.random() < 0.2 and n > 1:
                    k = R.randint(1, len(chapters))
                    text += f' (See <a href="ch{k:02d}.xhtml#ch{k}">chapter {k}</a>.)'
                body.append(f"<p>{text}</p>")
            if R.random() < 0.7:
                kind = kinds[(n + s) % len(kinds)]
                body.append(f'<p><b>Listing {n}.{s + 1}</b></p><pre><code>{E(listing(R, kind))}</code></pre>')
                listings += 1
            if R.random() < 0.45 or (n in (3, 10, 11) and s == 0):
                tables += 1
                if n == 11:
                    rows = "".join(f"<tr><td><code>E{100 + i}</code></td><td>{E(tech_prose(R, 1))}</td>"
                                   f"<td>{R.choice(['yes', 'no'])}</td></tr>" for i in range(40))
                    body.append(f"<table><caption>Table {n}.{s + 1}: error codes</caption><thead><tr><th>Code</th>"
                                f"<th>Meaning</th><th>Retry</th></tr></thead><tbody>{rows}</tbody></table>")
                elif n == 3:
                    opts = ["segment_bytes", "retention", "flush_interval", "max_batch", "linger", "acks",
                            "min_in_sync", "fetch_max", "heartbeat", "session_timeout", "compression",
                            "index_interval", "max_connections", "quota_bytes", "tls_cert", "tls_key"]
                    rows = "".join(f"<tr><td><code>{o}</code></td><td>{R.choice(['integer', 'duration', 'size', 'string', 'enum'])}</td>"
                                   f"<td><code>{R.randint(1, 500)}</code></td><td>{E(tech_prose(R, 1))}</td></tr>" for o in opts)
                    body.append(f"<table><caption>Table {n}.{s + 1}: broker options</caption><thead><tr><th>Option</th>"
                                f"<th>Type</th><th>Default</th><th>Meaning</th></tr></thead><tbody>{rows}</tbody></table>")
                else:
                    rows = "".join(f"<tr><td>{size}</td>" + "".join(f'<td class="n">{R.uniform(5, 900):,.1f}</td>' for _ in range(4)) + "</tr>"
                                   for size in ["100 B", "1 KiB", "10 KiB", "100 KiB", "1 MiB"])
                    body.append(f"<table><caption>Table {n}.{s + 1}: throughput in MB/s by record size</caption><thead>"
                                f"<tr><th>Record</th><th>acks=1</th><th>acks=quorum</th><th>compressed</th><th>TLS</th></tr>"
                                f"</thead><tbody>{rows}</tbody></table>")
            if n == 6 and s == 1:
                body.append(f'<div class="figure">{svg_figure(R)}<p><i>Figure 6.1: the path of one record.</i></p></div>')
        body.extend(notes)
        props = "svg" if n == 6 else ""
        b.add(f"ch{n:02d}", f"ch{n:02d}.xhtml", "application/xhtml+xml", b.xhtml(f"{n}. {title}", "\n".join(body)),
              props=props, spine=True)
        b.toc.append((f"{n}. {title}", f"ch{n:02d}.xhtml", []))
    b.write(ncx=False, nav=True)
    return b, (f"EPUB 3 (nav only): technical book, 11 chapters, {tables} tables, {listings} code listings (pre), "
               f"{fn} footnotes (epub:type noteref/footnote), cross-references, an inline SVG figure, JPEG cover")


# ---------------------------------------------------------------------------------------------
# 5. poetry.epub: EPUB 2, 6 parts x 10-12 poems, one file per poem, two-level NCX, HTML contents
# ---------------------------------------------------------------------------------------------
P_NOUNS = ["gull", "tide", "lamp", "stone", "kettle", "window", "field", "birch", "letter", "rope", "harbour",
           "frost", "heron", "bell", "road", "coat", "moon", "salt", "bread", "shadow", "river", "ash", "orchard"]
P_ADJ = ["grey", "small", "late", "cold", "quiet", "blue", "old", "bright", "slow", "empty", "green", "thin", "low"]
P_VERBS = ["settles", "waits", "turns", "listens", "remembers", "burns", "leans", "breaks", "sleeps", "calls",
           "gathers", "forgets", "shines", "drifts"]
P_PLACES = ["on the water", "in the kitchen", "by the door", "under the hill", "across the field", "at the edge of town",
            "in my hands", "behind the church", "along the quay", "in the dark", "over the roofs"]


def poem_line(R):
    k = R.randrange(6)
    if k == 0:
        s = f"the {R.choice(P_ADJ)} {R.choice(P_NOUNS)} {R.choice(P_VERBS)} {R.choice(P_PLACES)}"
    elif k == 1:
        s = f"and {R.choice(P_NOUNS)}s {R.choice(P_VERBS)[:-1]} {R.choice(P_PLACES)}"
    elif k == 2:
        s = f"{R.choice(P_PLACES)}, a {R.choice(P_NOUNS)}"
    elif k == 3:
        s = f"I {R.choice(P_VERBS)[:-1]} like a {R.choice(P_ADJ)} {R.choice(P_NOUNS)}"
    elif k == 4:
        s = f"what the {R.choice(P_NOUNS)} knew, the {R.choice(P_NOUNS)} {R.choice(P_VERBS)}"
    else:
        s = f"{R.choice(P_ADJ)} as {R.choice(P_NOUNS)}, {R.choice(P_ADJ)} as {R.choice(P_NOUNS)}"
    return s[0].upper() + s[1:] + R.choice([",", "", "", ".", ";", " \u2014"])


def poetry():
    b = Book("poetry.epub", "Tidewater: An Anthology of Coastal Poems", "Various poets (ed. Kari Lunde)", 2,
             subject="Poetry", description="Sixty-six short poems in six parts.")
    R = random.Random(55)
    b.add("css", "style.css", "text/css", """body { font-family: serif; margin: 0 8%; }
h1 { font-size: 1.8em; text-align: center; margin-top: 35%; }
h2 { font-size: 1.25em; margin: 1.5em 0 0.2em; }
p.poet { font-style: italic; margin: 0 0 1em; color: #555; }
div.stanza { margin: 0 0 1em 1.5em; }
div.stanza p { margin: 0; text-indent: -1.5em; padding-left: 1.5em; }
div.stanza p.indent { margin-left: 2em; }
ol.contents { list-style: none; padding: 0; } ol.contents ol { list-style: none; padding-left: 1.5em; }
ol.contents span.poet { font-style: italic; color: #555; }
""")
    poets = ["Kari Lunde", "Olav Dahl", "Mette Rask", "Sigrun Vik", "Peder Holm", "Anne Fjeld", "Tor Næss",
             "Hedda Strand", "Ivar Lien", "Berit Ness"]
    parts = ["Harbour", "Weather", "Kitchen", "Night", "Roads", "Letters"]
    b.add("title", "title.xhtml", "application/xhtml+xml",
          b.xhtml(b.title, f'<h1>Tidewater</h1><p style="text-align:center">An Anthology of Coastal Poems</p>'
                           f'<p style="text-align:center"><i>edited by Kari Lunde</i></p>'), spine=True)
    b.add("contents", "contents.xhtml", "application/xhtml+xml", "", spine=True)  # filled in below
    contents, num = [], 0
    for pi, part in enumerate(parts, 1):
        b.add(f"part{pi}", f"part{pi}.xhtml", "application/xhtml+xml",
              b.xhtml(f"Part {pi}: {part}", f'<h1 id="part{pi}">{["I", "II", "III", "IV", "V", "VI"][pi - 1]}<br/>{E(part)}</h1>'),
              spine=True)
        kids, items = [], []
        for k in range(11):
            num += 1
            t = f"{R.choice(P_ADJ).capitalize()} {R.choice(P_NOUNS)}" if R.random() < 0.7 else \
                f"{R.choice(['Letter', 'Song', 'Elegy', 'Note', 'Prayer', 'Lullaby'])} for the {R.choice(P_NOUNS)}"
            poet = R.choice(poets)
            stanzas = []
            for _ in range(R.randint(1, 5)):
                lines = "".join(('<p class="indent">' if R.random() < 0.15 else "<p>") + f"{E(poem_line(R))}</p>"
                                for _ in range(R.randint(2, 6)))
                stanzas.append(f'<div class="stanza">{lines}</div>')
            href = f"poem{num:02d}.xhtml"
            b.add(f"poem{num:02d}", href, "application/xhtml+xml",
                  b.xhtml(t, f'<h2 id="poem{num}">{E(t)}</h2><p class="poet">{E(poet)}</p>{"".join(stanzas)}'), spine=True)
            kids.append((f"{t} ({poet})", href, []))
            items.append(f'<li><a href="{href}">{E(t)}</a> <span class="poet">{E(poet)}</span></li>')
        b.toc.append((f"Part {pi}: {part}", f"part{pi}.xhtml", kids))
        contents.append(f'<li><a href="part{pi}.xhtml">Part {pi}: {E(part)}</a><ol>{"".join(items)}</ol></li>')
    # The contents page was added in its spine position; now that the poems exist, write it.
    idx = next(i for i, it in enumerate(b.items) if it[0] == "contents")
    data = b.xhtml("Contents", f'<h2>Contents</h2><ol class="contents">{"".join(contents)}</ol>').encode("utf-8")
    b.items[idx] = ("contents", "contents.xhtml", "application/xhtml+xml", data, "")
    b.words += count_words(data.decode("utf-8"))
    b.toc.insert(0, ("Contents", "contents.xhtml", []))
    b.guide = [("toc", "Contents", "contents.xhtml"), ("text", "Poems", "part1.xhtml")]
    b.write(ncx=True, nav=False)
    return b, f"EPUB 2 (NCX two levels deep, guide): poetry anthology, 6 parts x 11 poems, one file per poem ({len(b.spine)} spine items), HTML contents page, no cover"


# ---------------------------------------------------------------------------------------------
# Check and measure
# ---------------------------------------------------------------------------------------------
def calibre_env():
    env = dict(os.environ)
    # calibre's Qt WebEngine renders the PDF; as root it needs its sandbox off, and there is no display.
    env.update(QTWEBENGINE_DISABLE_SANDBOX="1", QT_QPA_PLATFORM="offscreen")
    return env


def check_zip(path):
    with zipfile.ZipFile(path) as zf:
        first = zf.infolist()[0]
        assert first.filename == "mimetype" and first.compress_type == zipfile.ZIP_STORED and not first.extra
        assert zf.testzip() is None
        for info in zf.infolist():
            if info.filename.endswith((".xhtml", ".opf", ".ncx", ".css", ".xml")):
                text = zf.read(info).decode("utf-8")
                for ref in re.findall(r'(?:src|href)="([^"]*)"', text):
                    if re.match(r"[a-z]+:", ref):
                        sys.exit(f"ebook-set: {os.path.basename(path)}:{info.filename} refers to {ref}")
    with open(path, "rb") as f:
        assert f.read(58)[30:] == b"mimetypeapplication/epub+zip"


EPUBCHECK = "/usr/share/java/epubcheck.jar"


@functools.lru_cache(maxsize=None)
def epubcheck_version():
    if not (os.path.exists(EPUBCHECK) and shutil.which("java")):
        return None
    out = subprocess.run(["java", "-jar", EPUBCHECK, "--version"], capture_output=True, text=True, timeout=120)
    m = re.search(r"EPUBCheck v?([\d.]+)", out.stdout + out.stderr, re.I)
    return m.group(0) if m else "EPUBCheck"


def measure(book):
    path = os.path.join(OUT, book.name)
    env = calibre_env()
    meta = subprocess.run(["ebook-meta", path], capture_output=True, text=True, env=env, timeout=120)
    title = re.search(r"^Title\s*:\s*(.*)$", meta.stdout, re.M)
    if meta.returncode != 0 or not title or title.group(1).strip() != book.title:
        sys.exit(f"ebook-set: ebook-meta does not read {book.name}:\n{meta.stdout}{meta.stderr}")
    # Debian's /usr/bin/epubcheck is the jar itself, runnable only where binfmt_misc is set up.
    if epubcheck_version():
        r = subprocess.run(["java", "-jar", EPUBCHECK, "-q", path], capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            sys.exit(f"ebook-set: epubcheck rejects {book.name}:\n{r.stdout}{r.stderr}")
    tmp = tempfile.mkdtemp(prefix="make-ebook-set.")
    try:
        pdf = os.path.join(tmp, "out.pdf")
        start = time.monotonic()
        r = subprocess.run(["ebook-convert", path, pdf], capture_output=True, text=True, env=env, timeout=900)
        seconds = time.monotonic() - start
        if r.returncode != 0 or not os.path.exists(pdf):
            sys.exit(f"ebook-set: ebook-convert could not convert {book.name}:\n{r.stdout[-3000:]}{r.stderr[-3000:]}")
        info = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True, timeout=60).stdout
        pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return pages, seconds


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    books = [short_story(), novel(), picture_book(), technical_book(), poetry()]
    rows, total = [], 0
    for book, what in books:
        path = os.path.join(OUT, book.name)
        check_zip(path)
        size = os.path.getsize(path)
        total += size
        pages, seconds = measure(book)
        print(f"  {book.name:22} {size:>9,} B {book.words:>7,} words {pages:>4} pages  {seconds:5.1f} s", file=sys.stderr)
        rows.append(f"| `{book.name}` | {size:,} | {book.words:,} | {pages} | {seconds:.1f} | {what} |")
    if total >= 2_000_000:
        sys.exit(f"ebook-set: {total} bytes in all (limit 2 MB)")
    calibre = re.search(r"calibre [\d.]+", subprocess.run(["ebook-convert", "--version"], capture_output=True,
                                                          text=True).stdout)
    calibre = calibre.group(0) if calibre else "calibre"
    checked = (f"`ebook-meta`, epubcheck ({epubcheck_version()}) and a real conversion" if epubcheck_version()
               else "`ebook-meta` and a real conversion (epubcheck was not installed)")
    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write(f"""# Ebook set (benchmark inputs)

Generated by `/usr/bin/python3 scripts/make-ebook-set.py Fixtures/ebook-set` (deletes and rebuilds
this folder; Pillow for the pictures, Python's zipfile for the EPUBs). Do not edit by hand.
Deterministic: fixed seeds, every zip entry dated 2024-01-01 00:00:00, so the EPUBs are the same
bytes every run (given the same zlib and Pillow); only the timings below change.

Every book passed {checked}.
Nothing in them refers to another host: the only URLs are XML namespace names.

Words: words of text in the XHTML files. Pages: what a cold `ebook-convert FILE out.pdf` makes of
the book ({calibre}, default PDF settings: US Letter; `pdfinfo`). Cold s: that conversion's wall
time on the machine that generated the set: a rough figure, not a benchmark result.

| file | bytes | words | pages | cold s | what |
| --- | ---: | ---: | ---: | ---: | --- |
""" + "\n".join(rows) + f"""

{len(rows)} books, {total:,} bytes in all.
""")
    print(f"done: {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
