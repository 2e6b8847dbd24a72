#!/usr/bin/env bash
# Builds Fixtures/office-set/: 15 varied, realistic office documents for the office-conversion
# benchmark. The benchmark used to convert 20 copies of one tiny docx, which flatters a warm
# converter (the same small file, every cache hot); these differ in kind (Writer, Calc, Impress,
# text), format (OOXML, binary 97, ODF, RTF, CSV) and weight (a 1-page letter to a 570-page ledger).
#
#   bash scripts/make-office-set.sh            # ~1-2 minutes
#
# Made with real tools: images with Pillow, documents with LibreOffice through UNO (python3-uno),
# so they carry what real files carry (styles, embedded charts and pictures, formulas, footnotes,
# a table of contents). Content is deterministic (fixed seeds); the bytes are not quite (LibreOffice
# writes its own ids into some formats). Idempotent: Fixtures/office-set/ is deleted and rebuilt,
# then every file is converted once by a cold `soffice --convert-to pdf` (fresh profile each) and
# Fixtures/office-set/README.md records its size, page count and that conversion's time.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/Fixtures/office-set"
# Debian's python3: it has uno and PIL; a pyenv shim may not.
PY=/usr/bin/python3
export TZ=UTC LC_ALL=C.UTF-8 SOURCE_DATE_EPOCH=1704164645

need_pkgs=()
$PY -c 'import uno' 2>/dev/null || need_pkgs+=(python3-uno)
$PY -c 'import PIL' 2>/dev/null || need_pkgs+=(python3-pil)
for tool in pdfinfo:poppler-utils soffice:libreoffice-writer; do
  command -v "${tool%%:*}" >/dev/null || need_pkgs+=("${tool#*:}")
done
# soffice alone does not prove Calc and Impress are installed: they are packages of their own.
[ -e /usr/lib/libreoffice/program/libsclo.so ] || need_pkgs+=(libreoffice-calc)
[ -e /usr/lib/libreoffice/program/libsdlo.so ] || need_pkgs+=(libreoffice-impress)
# The documents name Liberation fonts; without them page counts drift.
[ -d /usr/share/fonts/truetype/liberation ] || need_pkgs+=(fonts-liberation)
bash "$ROOT/scripts/apt-install.sh" ${need_pkgs[@]+"${need_pkgs[@]}"}

TMP="$(mktemp -d /tmp/make-office-set.XXXXXX)"
lo_pid=""
cleanup() {
  if [ -n "$lo_pid" ]; then kill "$lo_pid" 2>/dev/null || true; wait "$lo_pid" 2>/dev/null || true; fi
  rm -rf "$TMP"
}
trap cleanup EXIT

rm -rf "$OUT"
mkdir -p "$OUT" "$TMP/img"

# ---------------------------------------------------------------------------
# 1. Pictures (Pillow): photo-like JPEGs (grain, so they compress like photos),
#    PNG diagrams and a logo. Seeded, so every run draws the same pictures.
# ---------------------------------------------------------------------------
echo "== images (Pillow)" >&2
$PY - "$TMP/img" <<'PYEOF'
import random, sys
from PIL import Image, ImageDraw, ImageFilter, ImageFont
out = sys.argv[1]
R = random.Random(7)
def font(size, bold=False):
    name = "LiberationSans-Bold.ttf" if bold else "LiberationSans-Regular.ttf"
    try:
        return ImageFont.truetype(f"/usr/share/fonts/truetype/liberation/{name}", size)
    except OSError:
        return ImageFont.load_default()

def photo(name, w, h, top, bottom):
    # a landscape-like picture: sky gradient, hills, blurred blobs, light grain
    im = Image.new("RGB", (w, h))
    d = ImageDraw.Draw(im)
    for y in range(h):
        t = y / h
        d.line([(0, y), (w, y)], fill=tuple(int(top[i] * (1 - t) + bottom[i] * t) for i in range(3)))
    for k in range(4):
        base = h * (0.45 + 0.12 * k)
        pts = [(0, h)] + [(x, base + 40 * ((x * (k + 3) // 97) % 5) - R.randint(0, 60)) for x in range(0, w + 64, 64)] + [(w, h)]
        c = (40 + 30 * k, 90 + 25 * k - R.randint(0, 30), 40 + 10 * k)
        d.polygon(pts, fill=c)
    for _ in range(30):
        x, y, r = R.randint(0, w), R.randint(0, h), R.randint(10, 80)
        d.ellipse([x - r, y - r, x + r, y + r], fill=(R.randint(150, 255), R.randint(150, 255), R.randint(100, 200)))
    im = im.filter(ImageFilter.GaussianBlur(2))
    grain = Image.effect_noise((w, h), 40).convert("RGB")
    im = Image.blend(im, grain, 0.10)
    im.save(f"{out}/{name}", "JPEG", quality=80, optimize=True)

def bars(name):
    im = Image.new("RGB", (900, 500), "white"); d = ImageDraw.Draw(im)
    d.text((30, 15), "Units shipped per quarter", fill="black", font=font(26, True))
    d.line([(60, 450), (870, 450)], fill="black", width=2); d.line([(60, 70), (60, 450)], fill="black", width=2)
    cols = [(79, 129, 189), (192, 80, 77), (155, 187, 89)]
    for q in range(4):
        for s in range(3):
            v = R.randint(80, 360); x = 90 + q * 195 + s * 55
            d.rectangle([x, 450 - v, x + 45, 450], fill=cols[s])
        d.text((90 + q * 195 + 50, 460), f"Q{q + 1}", fill="black", font=font(18))
    im.save(f"{out}/{name}", optimize=True)

def pie(name):
    im = Image.new("RGB", (900, 500), "white"); d = ImageDraw.Draw(im)
    d.text((30, 15), "Revenue by region", fill="black", font=font(26, True))
    vals = [R.randint(10, 40) for _ in range(5)]; tot = sum(vals); a = 0
    cols = [(79, 129, 189), (192, 80, 77), (155, 187, 89), (128, 100, 162), (75, 172, 198)]
    for i, v in enumerate(vals):
        b = a + 360 * v / tot
        d.pieslice([100, 80, 480, 460], a, b, fill=cols[i], outline="white")
        d.rectangle([560, 120 + i * 60, 590, 150 + i * 60], fill=cols[i])
        d.text((605, 122 + i * 60), f"{['North','South','East','West','Central'][i]}  {100 * v / tot:.0f}%", fill="black", font=font(22))
        a = b
    im.save(f"{out}/{name}", optimize=True)

def logo(name):
    im = Image.new("RGB", (400, 160), "white"); d = ImageDraw.Draw(im)
    d.polygon([(20, 140), (80, 20), (140, 140)], fill=(31, 78, 121)); d.ellipse([95, 70, 155, 130], fill=(192, 80, 77))
    d.text((170, 45), "NORTHWIND", fill=(31, 78, 121), font=font(40, True))
    d.text((172, 95), "components", fill=(90, 90, 90), font=font(26))
    im.save(f"{out}/{name}", optimize=True)

photo("cover.jpg", 1280, 800, (120, 170, 230), (250, 220, 180))
photo("photo1.jpg", 1024, 640, (90, 140, 210), (230, 230, 210))
photo("photo2.jpg", 1024, 640, (250, 170, 110), (120, 90, 140))
photo("photo3.jpg", 1024, 640, (170, 200, 230), (200, 230, 190))
bars("bars.png"); pie("pie.png"); logo("logo.png")
PYEOF

# ---------------------------------------------------------------------------
# 2. Documents: one soffice, driven through UNO (charts, pictures, tables and
#    footnotes need the API; soffice --convert-to alone cannot make them).
# ---------------------------------------------------------------------------
echo "== documents (LibreOffice + UNO)" >&2
cat > "$TMP/build.py" <<'PYEOF'
# build.py PIPE OUTDIR IMGDIR: connects to the soffice listening on PIPE, builds every document
# in memory through the API and stores it with the export filter of its format.
import os, random, sys, time, uno
from com.sun.star.beans import PropertyValue
from com.sun.star.awt import Size, Point, Rectangle
from com.sun.star.table import CellRangeAddress

pipe, out, img = sys.argv[1:4]
R = random.Random(20240102)


def pv(name, value):
    p = PropertyValue(); p.Name = name; p.Value = value; return p


local = uno.getComponentContext()
resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
for _ in range(120):
    try:
        ctx = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext"); break
    except Exception:
        time.sleep(0.5)
else:
    sys.exit("could not connect to soffice")
smgr = ctx.ServiceManager
desktop = smgr.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
graphics = smgr.createInstanceWithContext("com.sun.star.graphic.GraphicProvider", ctx)
PARA = 0  # ControlCharacter.PARAGRAPH_BREAK
AS_CHAR = uno.Enum("com.sun.star.text.TextContentAnchorType", "AS_CHARACTER")
PAGE_BREAK = uno.Enum("com.sun.star.style.BreakType", "PAGE_BEFORE")
CENTER = uno.Enum("com.sun.star.style.ParagraphAdjust", "CENTER")
RIGHT = uno.Enum("com.sun.star.style.ParagraphAdjust", "RIGHT")
LEFT = uno.Enum("com.sun.star.style.ParagraphAdjust", "LEFT")
BLOCK = uno.Enum("com.sun.star.style.ParagraphAdjust", "BLOCK")

# ---------------------------------------------------------------------------------------------
# Deterministic English-like filler
# ---------------------------------------------------------------------------------------------
WORDS = ("the a our this each every new annual quarterly regional customer supplier market product service "
         "team plan budget revenue cost margin growth risk review report project delivery schedule quality "
         "process system data analysis forecast target result performance department office board meeting "
         "contract agreement policy standard requirement change improvement increase decrease support "
         "training staff manager director client partner region north south east west central sales "
         "marketing finance operations logistics warehouse inventory order invoice payment account "
         "audit compliance security network software hardware platform release version update migration "
         "was were is are will should could may has have had been remains reached exceeded improved "
         "reduced expanded delivered approved completed started planned reviewed measured reported "
         "significantly slightly steadily again further clearly mostly largely already still also "
         "in of for to with by on from across within during after before under over between against "
         "and but while because although therefore however moreover").split()
NOUNS = ("revenue cost margin growth risk delivery schedule quality process system forecast target "
         "performance contract policy improvement training inventory order payment audit migration "
         "release budget project plan review").split()


def sentence(lo=9, hi=22):
    n = R.randint(lo, hi)
    w = [R.choice(WORDS) for _ in range(n)]
    w[0] = w[0].capitalize()
    s = " ".join(w)
    if n > 12 and R.random() < 0.5:
        k = R.randint(4, n - 4)
        parts = s.split(" ")
        parts[k] += ","
        s = " ".join(parts)
    return s + "."


def paragraph(n_sent=None):
    return " ".join(sentence() for _ in range(n_sent or R.randint(4, 8)))


def title_words(n=3):
    return " ".join(R.choice(NOUNS).capitalize() for _ in range(n))


def url(path):
    return uno.systemPathToFileUrl(os.path.abspath(path))


def new(kind):
    return desktop.loadComponentFromURL(f"private:factory/{kind}", "_blank", 0, (pv("Hidden", True),))


def set_props(doc, title, subject):
    p = doc.getDocumentProperties()
    p.Title = title; p.Subject = subject; p.Author = "PDF Gateway Benchmarks"
    p.Keywords = ("benchmark", "office-set")
    d = uno.createUnoStruct("com.sun.star.util.DateTime")
    d.Year, d.Month, d.Day, d.Hours, d.Minutes = 2024, 1, 2, 3, 4
    p.CreationDate = d; p.ModificationDate = d
    p.ModifiedBy = "PDF Gateway Benchmarks"; p.Generator = "make-office-set"


def store(doc, name, filt):
    if doc.supportsService("com.sun.star.text.TextDocument"):
        indexes = doc.getDocumentIndexes()  # tables of contents are filled in only on update
        for i in range(indexes.getCount()):
            indexes.getByIndex(i).update()
    doc.storeToURL(url(os.path.join(out, name)), (pv("FilterName", filt), pv("Overwrite", True)))
    print(f"  {name}", file=sys.stderr, flush=True)


def graphic(name):
    return graphics.queryGraphic((pv("URL", url(os.path.join(img, name))),))


# ---------------------------------------------------------------------------------------------
# Writer helpers
# ---------------------------------------------------------------------------------------------
class W:
    def __init__(self, title, subject):
        self.doc = new("swriter")
        set_props(self.doc, title, subject)
        self.text = self.doc.getText()
        self.cur = self.text.createTextCursor()
        self.first = True
        page = self.doc.getStyleFamilies().getByName("PageStyles").getByName("Standard")
        page.Width, page.Height = 21000, 29700
        page.LeftMargin = page.RightMargin = 2200
        page.TopMargin = page.BottomMargin = 2000
        self.page = page
        std = self.doc.getStyleFamilies().getByName("ParagraphStyles").getByName("Standard")
        std.CharFontName = "Liberation Serif"; std.CharHeight = 11

    def para(self, s, style="Text Body", adjust=None, bold=False, italic=False, page_break=False, size=None):
        # Always append: a cursor left in front of an inserted table of contents would put
        # everything after it in front of it.
        self.cur.gotoEnd(False)
        if not self.first:
            self.text.insertControlCharacter(self.cur, PARA, False)
        self.first = False
        self.cur.ParaStyleName = style
        self.cur.setPropertyValue("BreakType", PAGE_BREAK if page_break else uno.Enum("com.sun.star.style.BreakType", "NONE"))
        self.cur.ParaAdjust = adjust if adjust is not None else LEFT
        self.cur.CharWeight = 150.0 if bold else 100.0
        self.cur.CharPosture = uno.Enum("com.sun.star.awt.FontSlant", "ITALIC" if italic else "NONE")
        if size:
            self.cur.CharHeight = size
        self.text.insertString(self.cur, s, False)
        if size:
            self.cur.CharHeight = 11
        return self

    def bullets(self, items, numbered=False):
        for it in items:
            self.para(it, "List")
            self.cur.NumberingStyleName = self.list_style(numbered)
        self.para("", "Text Body")
        self.cur.NumberingStyleName = ""

    def list_style(self, numbered):
        names = self.doc.getStyleFamilies().getByName("NumberingStyles").getElementNames()
        for n in (("Numbering 123", "Numbering 1") if numbered else ("List 1", "Bullet •")):
            if n in names:
                return n
        return names[0]

    def table(self, rows, widths=None, header=True):
        self.para("", "Text Body")
        t = self.doc.createInstance("com.sun.star.text.TextTable")
        t.initialize(len(rows), len(rows[0]))
        self.text.insertTextContent(self.cur, t, False)
        t.setDataArray(tuple(tuple(r) for r in rows))
        if header:
            t.RepeatHeadline = True
            t.HeaderRowCount = 1
            r0 = t.getRows().getByIndex(0)
            r0.BackColor = 0xD9E2F3
        return t

    def image(self, name, width_mm, height_mm, caption=None):
        self.para("", "Text Body", adjust=CENTER)
        g = self.doc.createInstance("com.sun.star.text.TextGraphicObject")
        g.Graphic = graphic(name)
        g.AnchorType = AS_CHAR
        g.Size = Size(width_mm * 100, height_mm * 100)
        self.text.insertTextContent(self.cur, g, False)
        if caption:
            self.para(caption, "Text Body", adjust=CENTER, italic=True)

    def chart(self, title, rows, cols, data, kind="BarDiagram", width_mm=160, height_mm=90):
        self.para("", "Text Body", adjust=CENTER)
        obj = self.doc.createInstance("com.sun.star.text.TextEmbeddedObject")
        obj.CLSID = "12dcae26-281f-416f-a234-c3086127382e"
        obj.AnchorType = AS_CHAR
        obj.Size = Size(width_mm * 100, height_mm * 100)
        self.text.insertTextContent(self.cur, obj, False)
        ch = obj.getEmbeddedObject()
        ch.setDiagram(ch.createInstance(f"com.sun.star.chart.{kind}"))
        d = ch.getData()
        d.setData(tuple(tuple(float(x) for x in r) for r in data))
        d.setRowDescriptions(tuple(rows)); d.setColumnDescriptions(tuple(cols))
        ch.HasMainTitle = True
        ch.getTitle().String = title
        ch.HasLegend = True

    def footer_page_numbers(self, label=""):
        self.page.FooterIsOn = True
        ft = self.page.FooterText
        c = ft.createTextCursor()
        c.ParaAdjust = CENTER
        ft.insertString(c, label + "Page ", False)
        f = self.doc.createInstance("com.sun.star.text.TextField.PageNumber")
        f.NumberingType = 4; f.SubType = uno.Enum("com.sun.star.text.PageNumberType", "CURRENT")
        ft.insertTextContent(c, f, False)

    def header(self, s):
        self.page.HeaderIsOn = True
        ht = self.page.HeaderText
        c = ht.createTextCursor(); c.ParaAdjust = RIGHT; c.CharHeight = 9
        ht.insertString(c, s, False)

    def footnote(self, s):
        fn = self.doc.createInstance("com.sun.star.text.Footnote")
        self.text.insertTextContent(self.cur, fn, False)
        fn.setString(s)

    def toc(self):
        self.para("", "Text Body")
        idx = self.doc.createInstance("com.sun.star.text.ContentIndex")
        idx.CreateFromOutline = True
        idx.Title = "Contents"
        self.text.insertTextContent(self.cur, idx, False)

    def close(self):
        self.doc.close(True)


def money(x):
    return round(x, 2)


# ---------------------------------------------------------------------------------------------
# Writer documents
# ---------------------------------------------------------------------------------------------
def letter():
    w = W("Letter to a supplier", "A one-page business letter")
    w.image("logo.png", 40, 16)
    w.para("Northwind Components Ltd. · 12 Harbour Road · Springfield", "Text Body", adjust=RIGHT, size=9)
    w.para("2 January 2024", "Text Body", adjust=RIGHT)
    for line in ("Ms. Jane Porter", "Purchasing Department", "Contoso Metals plc", "48 Industrial Way", "Rivertown RT4 2BX"):
        w.para(line, "Standard")
    w.para("Subject: renewal of the annual supply agreement", "Text Body", bold=True)
    w.para("Dear Ms. Porter,", "Text Body")
    for _ in range(4):
        w.para(paragraph(R.randint(3, 5)), "Text Body", adjust=BLOCK)
    w.para("Yours sincerely,", "Text Body")
    w.para("", "Text Body"); w.para("Robert King", "Standard"); w.para("Head of Procurement", "Standard")
    store(w.doc, "letter.docx", "MS Word 2007 XML")
    w.close()


def report():
    w = W("Annual operations report 2023", "A long report with headings, tables and images")
    w.header("Northwind Components · Annual operations report 2023")
    w.footer_page_numbers()
    w.para("Annual Operations Report 2023", "Title")
    w.para("Northwind Components Ltd.", "Subtitle")
    w.image("cover.jpg", 160, 100)
    w.para("Prepared by the Operations Office for the Board of Directors.", "Text Body", adjust=CENTER, italic=True)
    w.para("", "Text Body", page_break=True)
    w.toc()
    images = ["photo1.jpg", "bars.png", "photo2.jpg", "pie.png", "photo3.jpg", "bars.png"]
    for ch in range(1, 9):
        w.para(f"{ch}. {title_words(2)}", "Heading 1", page_break=True)
        for sec in range(1, 4):
            w.para(f"{ch}.{sec} {title_words(3)}", "Heading 2")
            for _ in range(R.randint(4, 6)):
                w.para(paragraph(), "Text Body", adjust=BLOCK)
            if sec == 2:
                rows = [["Region", "Q1", "Q2", "Q3", "Q4", "Total"]]
                for reg in ("North", "South", "East", "West", "Central", "Export", "Online"):
                    q = [R.randint(800, 4000) for _ in range(4)]
                    rows.append([reg] + [f"{x:,}" for x in q] + [f"{sum(q):,}"])
                w.table(rows)
                w.para(f"Table {ch}: {title_words(2)} by region (thousand units).", "Text Body", italic=True, adjust=CENTER)
            if sec == 3 and ch <= len(images):
                name = images[ch - 1]
                w.image(name, 140, 85 if name.endswith(".jpg") else 80, f"Figure {ch}: {title_words(3)}.")
    w.para("Appendix: key figures", "Heading 1", page_break=True)
    rows = [["Indicator", "2021", "2022", "2023", "Change"]]
    for n in NOUNS[:18]:
        a, b, c = (R.randint(100, 999) for _ in range(3))
        rows.append([n.capitalize(), str(a), str(b), str(c), f"{(c - b) / b * 100:+.1f}%"])
    w.table(rows)
    store(w.doc, "report.docx", "MS Word 2007 XML")
    w.close()


def chart_doc():
    w = W("Quarterly sales with chart", "A short document with an embedded chart")
    w.footer_page_numbers()
    w.para("Quarterly Sales Summary", "Title")
    w.para(paragraph(5), "Text Body", adjust=BLOCK)
    regions = ["North", "South", "East", "West"]
    data = [[R.randint(120, 480) for _ in regions] for _ in range(4)]
    w.chart("Sales by quarter and region", ["Q1", "Q2", "Q3", "Q4"], regions, data, "BarDiagram")
    w.para("Figure 1: Sales by quarter (thousand EUR).", "Text Body", adjust=CENTER, italic=True)
    w.para(paragraph(6), "Text Body", adjust=BLOCK)
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    trend = [[R.randint(40, 90), R.randint(30, 70)] for _ in months]
    w.chart("Monthly orders", months, ["2022", "2023"], trend, "LineDiagram")
    w.para("Figure 2: Orders per month.", "Text Body", adjust=CENTER, italic=True)
    rows = [["Quarter"] + regions] + [[q] + [str(x) for x in r] for q, r in zip(["Q1", "Q2", "Q3", "Q4"], data)]
    w.table(rows)
    w.para(paragraph(4), "Text Body", adjust=BLOCK)
    store(w.doc, "chart.docx", "MS Word 2007 XML")
    w.close()


def minutes_doc():
    w = W("Minutes of the project board", "Meeting minutes, Word 97 format")
    w.footer_page_numbers()
    w.para("Project Board — Minutes", "Title")
    w.para("Meeting of 14 December 2023, 10:00–12:00, Room 3.12", "Subtitle")
    w.para("Attendees", "Heading 2")
    w.bullets(["Anne Smith (chair)", "Bob Jones", "Carla Diaz", "Dev Patel", "Eva Novak", "Frank Li"])
    for item in range(1, 7):
        w.para(f"Item {item}: {title_words(3)}", "Heading 2")
        for _ in range(R.randint(2, 4)):
            w.para(paragraph(), "Text Body", adjust=BLOCK)
        if item % 2 == 0:
            w.bullets([sentence(6, 12) for _ in range(R.randint(3, 5))], numbered=True)
    w.para("Actions", "Heading 2")
    rows = [["#", "Action", "Owner", "Due"]]
    for i in range(1, 13):
        rows.append([str(i), sentence(5, 9), R.choice(["Anne", "Bob", "Carla", "Dev", "Eva", "Frank"]),
                     f"2024-{R.randint(1, 3):02d}-{R.randint(1, 28):02d}"])
    w.table(rows)
    store(w.doc, "minutes.doc", "MS Word 97")
    w.close()


def handbook_odt():
    w = W("Staff handbook", "A long OpenDocument text with footnotes")
    w.header("Staff handbook — edition 2024")
    w.footer_page_numbers()
    w.para("Staff Handbook", "Title")
    w.para("Edition 2024", "Subtitle")
    w.toc()
    for ch in range(1, 15):
        w.para(f"Chapter {ch}: {title_words(2)}", "Heading 1", page_break=True)
        for sec in range(1, 5):
            w.para(f"{ch}.{sec} {title_words(3)}", "Heading 2")
            for k in range(R.randint(3, 6)):
                w.para(paragraph(), "Text Body", adjust=BLOCK)
                if k == 1 and R.random() < 0.6:
                    w.footnote(sentence(8, 16))
            if sec == 4 and ch % 3 == 0:
                w.bullets([sentence(5, 10) for _ in range(5)])
    store(w.doc, "handbook.odt", "writer8")
    w.close()


def contract_rtf():
    w = W("Service agreement", "A contract in RTF")
    w.footer_page_numbers()
    w.para("Service Agreement", "Title")
    w.para("between Northwind Components Ltd. (the Customer) and Fabrikam Services GmbH (the Provider)", "Subtitle")
    for clause in range(1, 13):
        w.para(f"§ {clause} {title_words(2)}", "Heading 2")
        for n in range(1, R.randint(3, 5)):
            w.para(f"({n}) " + paragraph(R.randint(2, 4)), "Text Body", adjust=BLOCK)
    w.para("Schedule A: service levels", "Heading 2")
    rows = [["Service", "Availability", "Response time", "Penalty"]]
    for s in ("Hosting", "Backup", "Helpdesk", "Monitoring", "Patching", "Reporting"):
        rows.append([s, f"{R.choice([99.0, 99.5, 99.9])}%", f"{R.choice([1, 2, 4, 8])} h", f"{R.randint(1, 10)}%"])
    w.table(rows)
    w.para("Signed for the Customer: ____________________      Signed for the Provider: ____________________", "Text Body")
    store(w.doc, "contract.rtf", "Rich Text Format")
    w.close()


# ---------------------------------------------------------------------------------------------
# Calc documents
# ---------------------------------------------------------------------------------------------
def calc(title, subject):
    doc = new("scalc")
    set_props(doc, title, subject)
    return doc


def numfmt(doc, code):
    loc = uno.createUnoStruct("com.sun.star.lang.Locale"); loc.Language = "en"; loc.Country = "US"
    nf = doc.getNumberFormats()
    key = nf.queryKey(code, loc, False)
    return key if key != -1 else nf.addNew(code, loc)


def bold_row(rng, color=0xD9E2F3):
    rng.CharWeight = 150.0
    rng.CellBackColor = color


def add_chart(doc, sheet, name, rect_mm, rng, kind, title):
    charts = sheet.getCharts()
    r = Rectangle(rect_mm[0] * 100, rect_mm[1] * 100, rect_mm[2] * 100, rect_mm[3] * 100)
    charts.addNewByName(name, r, (rng,), True, True)
    ch = charts.getByName(name).getEmbeddedObject()
    ch.setDiagram(ch.createInstance(f"com.sun.star.chart.{kind}"))
    ch.HasMainTitle = True
    ch.getTitle().String = title


def invoice_xlsx():
    doc = calc("Invoice 2024-0117", "A small invoice workbook")
    sh = doc.getSheets().getByIndex(0); sh.Name = "Invoice"
    sh.getCellRangeByName("A1").setString("INVOICE 2024-0117"); sh.getCellRangeByName("A1").CharHeight = 16
    sh.getCellRangeByName("A1").CharWeight = 150.0
    sh.getCellRangeByName("A3").setString("Bill to: Contoso Metals plc, 48 Industrial Way, Rivertown")
    sh.getCellRangeByName("A4").setString("Date: 2024-01-17     Due: 2024-02-16")
    rows = [("Item", "Description", "Qty", "Unit price", "Amount")]
    items = ["Bracket M4", "Hinge 40mm", "Bolt set", "Gasket", "Spring", "Clamp", "Cable tie", "Washer",
             "Bearing 608", "Shaft 8mm", "Pulley", "Belt GT2"]
    for i, it in enumerate(items):
        rows.append((f"P-{1000 + i * 7}", it, R.randint(1, 40), money(R.uniform(0.5, 45)), ""))
    sh.getCellRangeByName(f"A6:E{5 + len(rows)}").setDataArray(tuple(tuple(r) for r in rows))
    for r in range(7, 7 + len(items)):
        sh.getCellRangeByName(f"E{r}").setFormula(f"=C{r}*D{r}")
    last = 6 + len(items)
    sh.getCellRangeByName(f"D{last + 2}").setString("Subtotal"); sh.getCellRangeByName(f"E{last + 2}").setFormula(f"=SUM(E7:E{last})")
    sh.getCellRangeByName(f"D{last + 3}").setString("VAT 20%"); sh.getCellRangeByName(f"E{last + 3}").setFormula(f"=E{last + 2}*0.2")
    sh.getCellRangeByName(f"D{last + 4}").setString("Total"); sh.getCellRangeByName(f"E{last + 4}").setFormula(f"=E{last + 2}+E{last + 3}")
    sh.getCellRangeByName(f"D{last + 4}:E{last + 4}").CharWeight = 150.0
    bold_row(sh.getCellRangeByName("A6:E6"))
    sh.getCellRangeByName(f"D7:E{last + 4}").NumberFormat = numfmt(doc, "#,##0.00")
    cols = sh.getColumns()
    for i, wmm in enumerate((25, 55, 15, 25, 25)):
        cols.getByIndex(i).Width = wmm * 100
    store(doc, "invoice.xlsx", "Calc MS Excel 2007 XML")
    doc.close(True)


def sales_xlsx():
    doc = calc("Sales ledger 2022-2024", "Three sheets of 5,000 rows x 10 columns")
    sheets = doc.getSheets()
    regions = ["North", "South", "East", "West", "Central"]
    products = ["Bracket", "Hinge", "Bolt set", "Gasket", "Spring", "Clamp", "Bearing", "Shaft", "Pulley", "Belt"]
    reps = ["A. Smith", "B. Jones", "C. Diaz", "D. Patel", "E. Novak", "F. Li", "G. Kim", "H. Berg"]
    date_fmt = numfmt(doc, "YYYY-MM-DD"); money_fmt = numfmt(doc, "#,##0.00")
    for si, year in enumerate((2022, 2023, 2024)):
        if si == 0:
            sh = sheets.getByIndex(0); sh.Name = f"Sales {year}"
        else:
            sheets.insertNewByName(f"Sales {year}", si); sh = sheets.getByIndex(si)
        header = ("Order", "Date", "Region", "Rep", "Product", "Units", "Unit price", "Revenue", "Cost", "Margin")
        base = 44562 + (year - 2022) * 365  # 2022-01-01 as a spreadsheet serial date
        rows = [header]
        for i in range(5000):
            units = R.randint(1, 250); price = round(R.uniform(2, 60), 2)
            cost = round(units * price * R.uniform(0.45, 0.8), 2)
            rows.append((f"{year}-{i + 1:05d}", base + i * 365 // 5000, R.choice(regions), R.choice(reps),
                         R.choice(products), units, price, "", cost, ""))
        sh.getCellRangeByName("A1:J5001").setDataArray(tuple(rows))
        sh.getCellRangeByName("H2:H5001").setFormulaArray(tuple((f"=F{r}*G{r}",) for r in range(2, 5002)))
        sh.getCellRangeByName("J2:J5001").setFormulaArray(tuple((f"=H{r}-I{r}",) for r in range(2, 5002)))
        bold_row(sh.getCellRangeByName("A1:J1"))
        sh.getCellRangeByName("B2:B5001").NumberFormat = date_fmt
        sh.getCellRangeByName("G2:J5001").NumberFormat = money_fmt
        cols = sh.getColumns()
        for i, wmm in enumerate((22, 22, 18, 20, 20, 14, 18, 22, 22, 22)):
            cols.getByIndex(i).Width = wmm * 100
    store(doc, "sales-ledger.xlsx", "Calc MS Excel 2007 XML")
    doc.close(True)


def kpi_chart_xlsx():
    doc = calc("Monthly KPIs with charts", "A workbook with two charts")
    sh = doc.getSheets().getByIndex(0); sh.Name = "KPIs"
    rows = [("Month", "Revenue", "Costs", "Orders", "Returns")]
    for y in (2022, 2023):
        for m in range(1, 13):
            rev = R.randint(180, 320) * 1000
            rows.append((f"{y}-{m:02d}", rev, int(rev * R.uniform(0.55, 0.8)), R.randint(900, 1600), R.randint(10, 80)))
    sh.getCellRangeByName(f"A1:E{len(rows)}").setDataArray(tuple(rows))
    bold_row(sh.getCellRangeByName("A1:E1"))
    sh.getCellRangeByName(f"B2:C{len(rows)}").NumberFormat = numfmt(doc, "#,##0")
    n = len(rows) - 1
    sh.getCellRangeByName(f"A{n + 3}").setString("Total")
    for col in "BCDE":
        sh.getCellRangeByName(f"{col}{n + 3}").setFormula(f"=SUM({col}2:{col}{n + 1})")
    # The charts get a sheet of their own, so that neither straddles a page break of the data.
    doc.getSheets().insertNewByName("Charts", 1); charts = doc.getSheets().getByIndex(1)
    a = CellRangeAddress(); a.Sheet = 0; a.StartColumn = 0; a.StartRow = 0; a.EndColumn = 2; a.EndRow = n
    add_chart(doc, charts, "RevenueCosts", (5, 5, 145, 95), a, "LineDiagram", "Revenue and costs")
    b = CellRangeAddress(); b.Sheet = 0; b.StartColumn = 3; b.StartRow = 0; b.EndColumn = 4; b.EndRow = n
    add_chart(doc, charts, "Orders", (5, 110, 145, 95), b, "BarDiagram", "Orders and returns")
    store(doc, "kpi-charts.xlsx", "Calc MS Excel 2007 XML")
    doc.close(True)


def budget_xls():
    doc = calc("Department budget 2024", "Excel 97 workbook with cross-sheet formulas")
    sheets = doc.getSheets()
    depts = ["Sales", "Marketing", "Operations", "IT", "Finance", "HR"]
    lines = ["Salaries", "Travel", "Training", "Software", "Hardware", "Rent", "Consulting", "Other"]
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    for di, dept in enumerate(depts):
        if di == 0:
            sh = sheets.getByIndex(0); sh.Name = dept
        else:
            sheets.insertNewByName(dept, di); sh = sheets.getByIndex(di)
        rows = [("Line",) + tuple(months) + ("Year",)]
        for ln in lines:
            base = R.randint(2, 60) * 500
            rows.append((ln,) + tuple(base + R.randint(-3, 3) * 250 for _ in months) + ("",))
        sh.getCellRangeByName(f"A1:N{len(rows)}").setDataArray(tuple(rows))
        for r in range(2, len(rows) + 1):
            sh.getCellRangeByName(f"N{r}").setFormula(f"=SUM(B{r}:M{r})")
        t = len(rows) + 1
        sh.getCellRangeByName(f"A{t}").setString("Total")
        for c in "BCDEFGHIJKLMN":
            sh.getCellRangeByName(f"{c}{t}").setFormula(f"=SUM({c}2:{c}{t - 1})")
        bold_row(sh.getCellRangeByName("A1:N1")); sh.getCellRangeByName(f"A{t}:N{t}").CharWeight = 150.0
        sh.getCellRangeByName(f"B2:N{t}").NumberFormat = numfmt(doc, "#,##0")
    sheets.insertNewByName("Summary", 0); sh = sheets.getByIndex(0)
    sh.getCellRangeByName("A1:B1").setDataArray((("Department", "Year total"),))
    for i, dept in enumerate(depts, start=2):
        sh.getCellRangeByName(f"A{i}").setString(dept)
        sh.getCellRangeByName(f"B{i}").setFormula(f"=${dept}.N{len(lines) + 2}")
    sh.getCellRangeByName(f"A{len(depts) + 2}").setString("Total")
    sh.getCellRangeByName(f"B{len(depts) + 2}").setFormula(f"=SUM(B2:B{len(depts) + 1})")
    bold_row(sh.getCellRangeByName("A1:B1"))
    sh.getCellRangeByName(f"B2:B{len(depts) + 2}").NumberFormat = numfmt(doc, "#,##0")
    store(doc, "budget.xls", "MS Excel 97")
    doc.close(True)


def timesheet_ods():
    doc = calc("Project timesheet", "OpenDocument spreadsheet with formulas")
    sh = doc.getSheets().getByIndex(0); sh.Name = "Timesheet"
    people = ["Anne", "Bob", "Carla", "Dev", "Eva", "Frank", "Gita", "Hugo"]
    projects = ["Migration", "Portal", "Audit", "Support", "Training"]
    rows = [("Date", "Person", "Project", "Task", "Hours", "Rate", "Cost", "Billable")]
    for i in range(400):
        rows.append((45292 + i // 4, R.choice(people), R.choice(projects), sentence(3, 6)[:-1],
                     R.choice([1, 1.5, 2, 3, 4, 6, 8]), R.choice([55, 70, 85, 95]), "", R.choice(["yes", "no"])))
    sh.getCellRangeByName(f"A1:H{len(rows)}").setDataArray(tuple(rows))
    sh.getCellRangeByName(f"G2:G{len(rows)}").setFormulaArray(tuple((f"=E{r}*F{r}",) for r in range(2, len(rows) + 1)))
    sh.getCellRangeByName(f"A2:A{len(rows)}").NumberFormat = numfmt(doc, "YYYY-MM-DD")
    sh.getCellRangeByName(f"F2:G{len(rows)}").NumberFormat = numfmt(doc, "#,##0.00")
    bold_row(sh.getCellRangeByName("A1:H1"))
    cols = sh.getColumns()
    for i, wmm in enumerate((22, 16, 20, 60, 12, 12, 18, 14)):
        cols.getByIndex(i).Width = wmm * 100
    doc.getSheets().insertNewByName("Per person", 1); s2 = doc.getSheets().getByIndex(1)
    s2.getCellRangeByName("A1:C1").setDataArray((("Person", "Hours", "Cost"),))
    for i, p in enumerate(people, start=2):
        s2.getCellRangeByName(f"A{i}").setString(p)
        s2.getCellRangeByName(f"B{i}").setFormula(f"=SUMIF($Timesheet.B$2:B${len(rows)};A{i};$Timesheet.E$2:E${len(rows)})")
        s2.getCellRangeByName(f"C{i}").setFormula(f"=SUMIF($Timesheet.B$2:B${len(rows)};A{i};$Timesheet.G$2:G${len(rows)})")
    bold_row(s2.getCellRangeByName("A1:C1"))
    store(doc, "timesheet.ods", "calc8")
    doc.close(True)


# ---------------------------------------------------------------------------------------------
# Impress documents
# ---------------------------------------------------------------------------------------------
class P:
    def __init__(self, title, subject, width=28000, height=15750):
        self.doc = new("simpress")
        set_props(self.doc, title, subject)
        self.pages = self.doc.getDrawPages()
        self.n = 0
        self.w, self.h = width, height
        p0 = self.pages.getByIndex(0)
        p0.Width, p0.Height = width, height

    def slide(self, layout):
        page = self.pages.getByIndex(0) if self.n == 0 else self.pages.insertNewByIndex(self.n - 1)
        self.n += 1
        page.Layout = layout
        return page

    def placeholders(self, page):
        title = body = None
        for i in range(page.getCount()):
            s = page.getByIndex(i)
            if s.ShapeType.endswith("TitleTextShape"):
                title = s
            elif s.ShapeType.endswith(("OutlinerShape", "SubtitleShape")):
                body = s
        return title, body

    def shape(self, page, kind, x, y, w, h, fill=None, text=None, line=None):
        s = self.doc.createInstance(f"com.sun.star.drawing.{kind}")
        page.add(s)
        s.Position = Point(x, y); s.Size = Size(w, h)
        if fill is not None:
            s.FillColor = fill
        if line is not None:
            s.LineColor = line
        if text:
            s.setString(text)
        return s

    def picture(self, page, name, x, y, w, h):
        s = self.doc.createInstance("com.sun.star.drawing.GraphicObjectShape")
        page.add(s)
        s.Graphic = graphic(name)
        s.Position = Point(x, y); s.Size = Size(w, h)
        return s

    def background(self, page, color):
        bg = self.doc.createInstance("com.sun.star.drawing.Background")
        bg.FillStyle = uno.Enum("com.sun.star.drawing.FillStyle", "SOLID"); bg.FillColor = color
        page.Background = bg


def deck(p, n_slides, images, accent):
    # title slide
    page = p.slide(0)
    t, b = p.placeholders(page)
    t.setString("Operations Review 2023")
    if b is not None:
        b.setString("Northwind Components · Board meeting, January 2024")
    p.shape(page, "RectangleShape", 0, p.h - 1200, p.w, 1200, fill=accent)
    for k in range(1, n_slides):
        kind = k % 4
        page = p.slide(1)
        t, b = p.placeholders(page)
        t.setString(f"{k}. {title_words(2)}")
        bullets = "\n".join(sentence(5, 10)[:-1] for _ in range(R.randint(3, 5)))
        if b is not None:
            b.setString(bullets)
        if kind == 1 and images:
            if b is not None:
                b.Size = Size(p.w // 2 - 1500, b.Size.Height)
            p.picture(page, images[k % len(images)], p.w // 2 + 500, 3800, p.w // 2 - 2000, (p.w // 2 - 2000) * 10 // 16)
        elif kind == 2:
            if b is not None:
                b.Size = Size(p.w // 2 - 1500, b.Size.Height)
            x0 = p.w // 2 + 500
            for j, (shape, col) in enumerate((("RectangleShape", 0x4F81BD), ("EllipseShape", 0xC0504D),
                                               ("RectangleShape", 0x9BBB59))):
                p.shape(page, shape, x0 + j * 4200, 5000, 3600, 2600, fill=col, text=title_words(1))
            for j in range(2):
                c = p.shape(page, "ConnectorShape", x0 + j * 4200 + 3600, 6300, 600, 0, line=0x333333)
                c.EndPosition = Point(x0 + (j + 1) * 4200, 6300)
            p.shape(page, "TextShape", x0, 8500, 12000, 1500, text=sentence(6, 10))
        elif kind == 3:
            vals = [R.randint(20, 100) for _ in range(6)]
            if b is not None:
                b.Size = Size(p.w // 2 - 1500, b.Size.Height)
            x0 = p.w // 2 + 800
            for j, v in enumerate(vals):
                hgt = v * 80
                p.shape(page, "RectangleShape", x0 + j * 1900, 12000 - hgt, 1400, hgt, fill=accent)
            p.shape(page, "LineShape", x0 - 300, 12000, 12000, 0, line=0x000000)
        p.shape(page, "RectangleShape", 0, p.h - 500, p.w, 500, fill=accent)


def decks():
    p = P("Operations review 2023", "12 slides with images and shapes")
    deck(p, 12, ["photo1.jpg", "photo2.jpg", "photo3.jpg", "bars.png", "pie.png"], 0x1F4E79)
    store(p.doc, "operations-review.pptx", "Impress MS PowerPoint 2007 XML")
    p.doc.close(True)
    p = P("Product roadmap", "8 slides, OpenDocument presentation")
    deck(p, 8, ["photo2.jpg", "pie.png"], 0x7F3F00)
    for i in range(p.pages.getCount()):
        p.background(p.pages.getByIndex(i), 0xFFF8EE)
    store(p.doc, "roadmap.odp", "impress8")
    p.doc.close(True)
    p = P("Training kick-off", "6 slides, PowerPoint 97", width=25400, height=19050)
    deck(p, 6, ["photo3.jpg"], 0x375623)
    store(p.doc, "training.ppt", "MS PowerPoint 97")
    p.doc.close(True)


try:
    for f in (letter, report, chart_doc, minutes_doc, handbook_odt, contract_rtf,
              invoice_xlsx, sales_xlsx, kpi_chart_xlsx, budget_xls, timesheet_ods, decks):
        f()
finally:
    try:
        desktop.terminate()
    except Exception:
        pass
PYEOF
pipe="officeset$$"
soffice "-env:UserInstallation=file://$TMP/lo-profile" --headless --invisible --norestore --nolockcheck \
  "--accept=pipe,name=$pipe;urp;" >"$TMP/soffice.log" 2>&1 &
lo_pid=$!
timeout 600 $PY "$TMP/build.py" "$pipe" "$OUT" "$TMP/img" || { cat "$TMP/soffice.log" >&2; exit 1; }
# desktop.terminate() lets soffice exit by itself; give it a moment before the trap kills it.
for _ in $(seq 1 30); do kill -0 "$lo_pid" 2>/dev/null || break; sleep 1; done
kill "$lo_pid" 2>/dev/null || true
wait "$lo_pid" 2>/dev/null || true
lo_pid=""

# ---------------------------------------------------------------------------
# 3. orders.csv: 20,000 rows written by Python (a CSV has nothing LibreOffice must make).
# ---------------------------------------------------------------------------
echo "== orders.csv" >&2
$PY - "$OUT/orders.csv" <<'PYEOF'
import csv, random, sys
R = random.Random(20240103)
products = [("Bracket", 2.40), ("Hinge", 3.15), ("Bolt set", 4.35), ("Gasket", 0.85), ("Spring", 1.20),
            ("Clamp", 5.60), ("Bearing", 7.90), ("Shaft", 12.50), ("Pulley", 9.75), ("Belt", 6.30)]
countries = ["DE", "FR", "GB", "NL", "BE", "AT", "CH", "IT", "ES", "PL", "SE", "DK"]
statuses = ["shipped"] * 8 + ["open", "cancelled", "returned"]
with open(sys.argv[1], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["order", "date", "customer", "country", "product", "qty", "unit_price", "total", "status"])
    for i in range(20000):
        name, price = R.choice(products)
        qty = R.randint(1, 120)
        day = 1 + i * 365 // 20000
        month, dom = min(12, 1 + (day - 1) // 31), 1 + (day - 1) % 28
        w.writerow([100001 + i, f"2023-{month:02d}-{dom:02d}", f"C{R.randint(1, 2500):04d}", R.choice(countries),
                    name, qty, f"{price:.2f}", f"{qty * price:.2f}", R.choice(statuses)])
PYEOF

# ---------------------------------------------------------------------------
# 4. Measure: a cold `soffice --convert-to pdf` per file (fresh profile each, as the
#    benchmark's baseline runs it), pdfinfo for the pages; write README.md.
# ---------------------------------------------------------------------------
echo "== measuring cold conversions" >&2
$PY - "$OUT" "$TMP" <<'PYEOF'
import os, shutil, subprocess, sys, tempfile, time
out, tmp = sys.argv[1], sys.argv[2]
WHAT = {
    "letter.docx": "1-page business letter: logo picture, address blocks, justified body",
    "report.docx": "annual report: title page with a photo, table of contents, 8 chapters of Heading 1/2 and body text, 8 tables, 6 pictures (JPEG photos, PNG diagrams), header and page-number footer",
    "chart.docx": "2-page summary with two embedded charts (bar, line) and a table",
    "minutes.doc": "meeting minutes in Word 97 format: bullet and numbered lists, an action table",
    "handbook.odt": "long OpenDocument text: table of contents, 14 chapters, footnotes, lists, header/footer",
    "contract.rtf": "contract in RTF: numbered clauses, a service-level table",
    "invoice.xlsx": "small invoice: 12 line items, formulas (products, subtotal, VAT, total), number formats",
    "sales-ledger.xlsx": "3 sheets x 5,000 rows x 10 columns (dates, text, numbers), 30,000 formulas",
    "kpi-charts.xlsx": "24 months of KPIs with a line chart and a bar chart",
    "budget.xls": "Excel 97 workbook: 6 department sheets + a summary of cross-sheet formulas",
    "timesheet.ods": "OpenDocument spreadsheet: 400-row timesheet with formulas, a SUMIF summary sheet",
    "orders.csv": "20,000 rows x 9 columns of order data",
    "operations-review.pptx": "12 slides (16:9): title/content layouts, photos, diagrams, shapes, connectors, a bar chart drawn with shapes",
    "roadmap.odp": "8 slides (16:9) with a background fill, a picture and shapes",
    "training.ppt": "6 slides (4:3) in PowerPoint 97 format",
}
ORDER = list(WHAT)
missing = [f for f in ORDER if not os.path.exists(os.path.join(out, f))]
extra = [f for f in os.listdir(out) if f not in WHAT]
if missing or extra:
    sys.exit(f"office-set: missing {missing}, unexpected {extra}")

rows, total = [], 0
for name in ORDER:
    path = os.path.join(out, name)
    size = os.path.getsize(path)
    total += size
    if size >= 1_500_000:
        sys.exit(f"office-set: {name} is {size} bytes (limit 1.5 MB)")
    profile = tempfile.mkdtemp(dir=tmp, prefix="cold-")
    pdfdir = tempfile.mkdtemp(dir=tmp, prefix="pdf-")
    start = time.monotonic()
    r = subprocess.run(["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--norestore",
                        "--nolockcheck", "--convert-to", "pdf", "--outdir", pdfdir, path],
                       capture_output=True, timeout=300)
    seconds = time.monotonic() - start
    pdf = os.path.join(pdfdir, os.path.splitext(name)[0] + ".pdf")
    pages = None
    if r.returncode == 0 and os.path.exists(pdf):
        info = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True, timeout=60).stdout
        pages = next((int(l.split()[1]) for l in info.splitlines() if l.startswith("Pages:")), None)
    if pages is None:
        sys.exit(f"office-set: soffice could not convert {name}: {r.stderr.decode(errors='replace')}")
    shutil.rmtree(profile, ignore_errors=True); shutil.rmtree(pdfdir, ignore_errors=True)
    print(f"  {name:24} {size:>9,} B {pages:>4} pages  {seconds:5.1f} s", file=sys.stderr)
    rows.append(f"| `{name}` | {size:,} | {pages} | {seconds:.1f} | {WHAT[name]} |")
if total >= 6_000_000:
    sys.exit(f"office-set: {total} bytes in all (limit 6 MB)")

with open(os.path.join(out, "README.md"), "w") as f:
    f.write(f"""# Office set (benchmark inputs)

Generated by `bash scripts/make-office-set.sh` (deletes and rebuilds this folder; Pillow for the
pictures, LibreOffice through UNO for the documents, Python for the CSV). Do not edit by hand.
Content is deterministic (fixed seeds); the bytes may differ between runs.

Pages: what a cold `soffice --headless --convert-to pdf` makes of the file (`pdfinfo`).
Cold s: that conversion's wall time on the machine that generated the set (one soffice per file,
each with a fresh `-env:UserInstallation` profile): a rough figure, not a benchmark result.

| file | bytes | pages | cold s | what |
| --- | ---: | ---: | ---: | --- |
""" + "\n".join(rows) + f"""

{len(rows)} files, {total:,} bytes in all.
""")
PYEOF

du -sh "$OUT" >&2
echo "done: $OUT" >&2
