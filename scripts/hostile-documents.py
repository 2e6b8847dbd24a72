#!/usr/bin/env python3
"""Writes hostile office/HTML/ebook documents for the converter sandbox tests.

    python3 scripts/hostile-documents.py OUTDIR --listener http://127.0.0.1:PORT [--secret FILE ...]

Tests run this at run time (the listener's port is dynamic), convert every file with the real
LibreOffice / Chromium / calibre inside the sandbox, and assert that the listener received no
request and that no secret's text reached the PDF. It prints a JSON manifest on stdout:
a list of {"file", "kind": "network"|"file"|"limit", "converter", "what"}.

Every network reference uses its own path under the listener, named after the case
(/docx-external-image-link.png, /ods-webservice, ...), so one hit in the listener's log tells
which case leaked. Every document also has visible text, "Linked resources test: <file>", so a
conversion that silently drops the linked content still gives a PDF to check.

Which cases are live: measured with cold, unsandboxed tools (LibreOffice 7.4.7 `soffice
--convert-to pdf`, Chromium 156 `--headless --print-to-pdf`, calibre 6.13 `ebook-convert`):
- requests today: external-image.docx (r:link only), linked-image.odt (both), linked-section.odt
  (the draw:object only), external-image.pptx (r:link and the background), remote-resources.html
  (all but dns-prefetch/preconnect), svg-in-html.html (all but the data: URI's inside);
  file-links.html puts secret text in the PDF (iframe, object, embed of a text file).
- no request by default, but the WEBSERVICE/FILTERXML, external-reference, table-source and
  cell-range-source cases of webservice.xlsx/.ods fetch once links may update (a trusted location
  with link updates on, UpdateDocMode FULL_UPDATE): they show Err:540 ("external content
  disabled") by default. The Writer fields, DDE/LINK/OLE links, template/subDoc/altChunk, XXE and
  calibre cases made no request even then: they guard against a regression or another version.
- limits: bomb.docx runs into a 120 s timeout at 3.3 GB RSS; entities.odt fails to load in ~3 s
  (libxml2 refuses the expansion); lines.txt converts in ~70 s to 3,125 pages (550 MB RSS);
  many-frames.html takes ~12 s in Chromium with ~14 processes and ~1.5 GB RSS in all.

Standard library only (Python 3.11). The XML namespace URIs below are identifiers the formats
require, not addresses anything fetches. bomb.docx takes ~13 s and ~25 MB to write.
"""
import argparse
import json
import os
import sys
import urllib.parse
import zipfile
import zlib
from xml.sax.saxutils import escape, quoteattr

MANIFEST = []


def add(file, kind, converter, what):
    MANIFEST.append({"file": file, "kind": kind, "converter": converter, "what": what})


def write_zip(path, entries):
    """entries: (name, bytes|str). A first entry named "mimetype" is stored uncompressed,
    as ODF and EPUB require (readers sniff it at offset 38)."""
    with zipfile.ZipFile(path, "w") as z:
        for name, data in entries:
            if isinstance(data, str):
                data = data.encode("utf-8")
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 2, 3, 4, 6))
            info.compress_type = zipfile.ZIP_STORED if name == "mimetype" else zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)


def title_of(name):
    return f"Linked resources test: {name}"


def file_url(path):
    return "file://" + urllib.parse.quote(os.path.abspath(path))


# ---------------------------------------------------------------------------------------------
# OOXML: Word
# ---------------------------------------------------------------------------------------------
W_NS = ('xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
        'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
        'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
        'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture" '
        'xmlns:v="urn:schemas-microsoft-com:vml" '
        'xmlns:o="urn:schemas-microsoft-com:office:office"')
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
CT_RELS = '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
CT_XML = '<Default Extension="xml" ContentType="application/xml"/>'


def rels_xml(rels):
    """rels: (id, type-suffix, target, external?)."""
    out = [f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="{PKG_RELS}">']
    for rid, typ, target, external in rels:
        mode = ' TargetMode="External"' if external else ""
        out.append(f'<Relationship Id="{rid}" Type="{REL}/{typ}" Target={quoteattr(target)}{mode}/>')
    out.append("</Relationships>")
    return "\n".join(out)


def w_p(text, bold=False):
    rpr = "<w:rPr><w:b/><w:sz w:val=\"32\"/></w:rPr>" if bold else ""
    return f'<w:p><w:r>{rpr}<w:t xml:space="preserve">{escape(text)}</w:t></w:r></w:p>'


def w_field(instr, shown="[field result]"):
    """A complex field (fldChar begin / instrText / separate / result / end) in its own paragraph."""
    return ('<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r>'
            f'<w:r><w:instrText xml:space="preserve"> {escape(instr)} </w:instrText></w:r>'
            '<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
            f'<w:r><w:t xml:space="preserve">{escape(shown)}</w:t></w:r>'
            '<w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>')


def w_simple_field(instr, shown="[simple field result]"):
    return (f'<w:p><w:fldSimple w:instr={quoteattr(" " + instr + " ")}>'
            f'<w:r><w:t xml:space="preserve">{escape(shown)}</w:t></w:r></w:fldSimple></w:p>')


def w_picture(attr, rid, n):
    """An inline DrawingML picture whose blip is r:link or r:embed to relationship rid."""
    emu = 1270000  # 100 pt
    return (f'<w:p><w:r><w:drawing><wp:inline distT="0" distB="0" distL="0" distR="0">'
            f'<wp:extent cx="{emu}" cy="{emu}"/><wp:docPr id="{n}" name="Picture {n}"/>'
            '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">'
            f'<pic:pic><pic:nvPicPr><pic:cNvPr id="{n}" name="remote{n}.png"/><pic:cNvPicPr/></pic:nvPicPr>'
            f'<pic:blipFill><a:blip {attr}="{rid}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>'
            f'<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="{emu}" cy="{emu}"/></a:xfrm>'
            '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic>'
            '</a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>')


def w_vml_picture(rid):
    return ('<w:p><w:r><w:pict><v:shape id="vmlpic" style="width:100pt;height:100pt">'
            f'<v:imagedata r:id="{rid}" o:title=""/></v:shape></w:pict></w:r></w:p>')


def write_docx(path, body, doc_rels=(), settings="", settings_rels=(), raw_document=None,
               extra_parts=()):
    """The entries of a minimal but complete WordprocessingML package. body: <w:p> elements.
    raw_document: the whole word/document.xml (for the DOCTYPE cases). extra_parts: (part name,
    content type, relationship or None); save_docx's extra_entries carries their bodies."""
    overrides = ['<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>',
                 '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>']
    rels = [("rIdStyles", "styles", "styles.xml", False)] + list(doc_rels)
    entries = []
    if settings:
        overrides.append('<Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/>')
        rels.append(("rIdSettings", "settings", "settings.xml", False))
    for part, ctype, rel in extra_parts:
        overrides.append(f'<Override PartName="/word/{part}" ContentType="{ctype}"/>')
        if rel:
            rels.append(rel)
    entries.append(("[Content_Types].xml",
                    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                    + CT_RELS + CT_XML + "".join(overrides) + "</Types>"))
    entries.append(("_rels/.rels", rels_xml([("rId1", "officeDocument", "word/document.xml", False)])))
    document = raw_document or (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document {W_NS}><w:body>'
        + body + '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/>'
        '<w:pgMar w:top="1134" w:right="1134" w:bottom="1134" w:left="1134" w:header="0" w:footer="0" w:gutter="0"/>'
        '</w:sectPr></w:body></w:document>')
    entries.append(("word/document.xml", document))
    entries.append(("word/_rels/document.xml.rels", rels_xml(rels)))
    entries.append(("word/styles.xml",
                    f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:styles {W_NS}>'
                    '<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Liberation Serif" w:hAnsi="Liberation Serif"/>'
                    '<w:sz w:val="24"/></w:rPr></w:rPrDefault></w:docDefaults>'
                    '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>'
                    '</w:styles>'))
    if settings:
        entries.append(("word/settings.xml",
                        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:settings {W_NS}>{settings}</w:settings>'))
        if settings_rels:
            entries.append(("word/_rels/settings.xml.rels", rels_xml(settings_rels)))
    return entries


# settings.xml asking Word to update every field when the document opens.
UPDATE_FIELDS = '<w:updateFields w:val="true"/>'


def save_docx(path, body, **kw):
    extra_entries = kw.pop("extra_entries", ())
    entries = write_docx(path, body, **kw)
    write_zip(path, entries + list(extra_entries))


# ---------------------------------------------------------------------------------------------
# ODF (zipped): Writer and Calc
# ---------------------------------------------------------------------------------------------
ODF_NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
          'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
          'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
          'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
          'xmlns:xlink="http://www.w3.org/1999/xlink" '
          'xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" '
          'office:version="1.3"')
ODT_MIME = "application/vnd.oasis.opendocument.text"
# A wide first column, so the labels and results of the spreadsheet cases are readable in the PDF.
ODS_STYLES = ('<office:automatic-styles><style:style style:name="co1" style:family="table-column">'
              '<style:table-column-properties style:column-width="9cm"/></style:style></office:automatic-styles>')
ODS_MIME = "application/vnd.oasis.opendocument.spreadsheet"


# settings.xml asking for links to be updated when the document loads (LinkUpdateMode 2 =
# AUTO_UPDATE) instead of following the user's setting: the document's own most aggressive ask.
ODF_AUTO_UPDATE = ('<?xml version="1.0" encoding="UTF-8"?>\n'
                   '<office:document-settings xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
                   'xmlns:config="urn:oasis:names:tc:opendocument:xmlns:config:1.0" office:version="1.3">'
                   '<office:settings><config:config-item-set config:name="ooo:configuration-settings">'
                   '<config:config-item config:name="LinkUpdateMode" config:type="short">2</config:config-item>'
                   '</config:config-item-set></office:settings></office:document-settings>')


def odf_package(path, mime, content, styles=None, settings=ODF_AUTO_UPDATE):
    manifest = ('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">\n'
                f' <manifest:file-entry manifest:full-path="/" manifest:media-type="{mime}"/>\n'
                ' <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>\n'
                + (' <manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>\n' if styles else "")
                + (' <manifest:file-entry manifest:full-path="settings.xml" manifest:media-type="text/xml"/>\n' if settings else "")
                + '</manifest:manifest>\n')
    entries = [("mimetype", mime), ("META-INF/manifest.xml", manifest), ("content.xml", content)]
    if styles:
        entries.append(("styles.xml", styles))
    if settings:
        entries.append(("settings.xml", settings))
    write_zip(path, entries)


def odt_content(body, automatic_styles="", prolog=""):
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n{prolog}'
            f'<office:document-content {ODF_NS}>'
            f'<office:automatic-styles>{automatic_styles}</office:automatic-styles>'
            f'<office:body><office:text>{body}</office:text></office:body></office:document-content>')


def t_p(text, style=None):
    s = f' text:style-name="{style}"' if style else ""
    return f"<text:p{s}>{escape(text)}</text:p>"


# ---------------------------------------------------------------------------------------------
# HTML and EPUB
# ---------------------------------------------------------------------------------------------
def write_text(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def write_epub(path, title, chapter_xhtml, extra_manifest="", chapter_props="", extra_files=()):
    """An EPUB 3 with an EPUB 2 NCX too (so EPUB 2 readers accept it)."""
    container = ('<?xml version="1.0" encoding="UTF-8"?>\n'
                 '<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                 '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
                 '</rootfiles></container>')
    props = f' properties="{chapter_props}"' if chapter_props else ""
    opf = ('<?xml version="1.0" encoding="UTF-8"?>\n'
           '<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">'
           '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
           f'<dc:identifier id="uid">urn:uuid:00000000-0000-4000-8000-{zlib.crc32(title.encode()):012d}</dc:identifier>'
           f'<dc:title>{escape(title)}</dc:title><dc:language>en</dc:language>'
           '<dc:creator>PDF Gateway Tests</dc:creator>'
           '<meta property="dcterms:modified">2024-01-02T03:04:05Z</meta></metadata>'
           '<manifest>'
           '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
           '<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>'
           f'<item id="ch1" href="chapter1.xhtml" media-type="application/xhtml+xml"{props}/>'
           f'{extra_manifest}</manifest>'
           '<spine toc="ncx"><itemref idref="ch1"/></spine></package>')
    nav = ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n'
           '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">'
           '<head><title>Contents</title></head><body><nav epub:type="toc"><ol>'
           '<li><a href="chapter1.xhtml">Chapter 1</a></li></ol></nav></body></html>')
    ncx = ('<?xml version="1.0" encoding="UTF-8"?>\n'
           '<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><head>'
           f'<meta name="dtb:uid" content="x"/></head><docTitle><text>{escape(title)}</text></docTitle>'
           '<navMap><navPoint id="n1" playOrder="1"><navLabel><text>Chapter 1</text></navLabel>'
           '<content src="chapter1.xhtml"/></navPoint></navMap></ncx>')
    write_zip(path, [("mimetype", "application/epub+zip"), ("META-INF/container.xml", container),
                     ("OEBPS/content.opf", opf), ("OEBPS/nav.xhtml", nav), ("OEBPS/toc.ncx", ncx),
                     ("OEBPS/chapter1.xhtml", chapter_xhtml)] + list(extra_files))


def xhtml(title, head, body):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n'
            '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">'
            f'<head><title>{escape(title)}</title>{head}</head><body>{body}</body></html>')


# ---------------------------------------------------------------------------------------------
# The network cases
# ---------------------------------------------------------------------------------------------
def network_cases(out, L):
    u = lambda p: f"{L}/{p}"

    # external-image.docx: pictures whose image part is a URL
    name = "external-image.docx"
    body = (w_p(title_of(name), bold=True)
            + w_p("DrawingML picture, a:blip r:link to an external relationship:")
            + w_picture("r:link", "rIdImgLink", 1)
            + w_p("DrawingML picture, a:blip r:embed to a relationship with TargetMode=External:")
            + w_picture("r:embed", "rIdImgEmbed", 2)
            + w_p("VML picture, v:imagedata r:id to an external relationship:")
            + w_vml_picture("rIdImgVml"))
    save_docx(os.path.join(out, name), body, doc_rels=[
        ("rIdImgLink", "image", u("docx-external-image-link.png"), True),
        ("rIdImgEmbed", "image", u("docx-external-image-embed.png"), True),
        ("rIdImgVml", "image", u("docx-external-image-vml.png"), True)])
    add(name, "network", "libreoffice",
        "DrawingML picture with a:blip r:link (and one r:embed) and a VML v:imagedata, all to "
        "TargetMode=External image relationships")

    # includepicture.docx: INCLUDEPICTURE / INCLUDETEXT fields with URLs
    name = "includepicture.docx"
    body = (w_p(title_of(name), bold=True)
            + w_field(f'INCLUDEPICTURE "{u("docx-includepicture.png")}" \\d', "[INCLUDEPICTURE \\d]")
            + w_field(f'INCLUDEPICTURE "{u("docx-includepicture-mergeformatinet.png")}" \\* MERGEFORMATINET',
                      "[INCLUDEPICTURE MERGEFORMATINET]")
            + w_simple_field(f'INCLUDEPICTURE "{u("docx-includepicture-simple.png")}"', "[fldSimple INCLUDEPICTURE]")
            + w_field(f'INCLUDETEXT "{u("docx-includetext.txt")}"', "[INCLUDETEXT]")
            + w_simple_field(f'INCLUDETEXT "{u("docx-includetext-simple.html")}"', "[fldSimple INCLUDETEXT]"))
    save_docx(os.path.join(out, name), body, settings=UPDATE_FIELDS)
    add(name, "network", "libreoffice",
        "INCLUDEPICTURE fields (\\d, MERGEFORMATINET, fldSimple) and INCLUDETEXT fields (complex, fldSimple) "
        "with http URLs; settings.xml updateFields=true")

    # dde-link.docx: DDEAUTO / LINK fields and a linked OLE object
    name = "dde-link.docx"
    body = (w_p(title_of(name), bold=True)
            + w_field(f'DDEAUTO soffice "{u("docx-ddeauto.ods")}" "Sheet1.A1" \\h', "[DDEAUTO]")
            + w_field(f'DDE soffice "{u("docx-dde.ods")}" "Sheet1.A1"', "[DDE]")
            + w_field(f'LINK Excel.Sheet.12 "{u("docx-link-field.xlsx")}" "Sheet1!R1C1:R2C2" \\a \\f 4 \\h', "[LINK]")
            + w_p("Linked (not embedded) OLE object, UpdateMode=Always:")
            + '<w:p><w:r><w:object w:dxaOrig="1440" w:dyaOrig="1440">'
              '<v:shape id="_x0000_i1025" style="width:72pt;height:72pt" o:ole="">'
              '<v:imagedata r:id="rIdOlePreview" o:title=""/></v:shape>'
              '<o:OLEObject Type="Link" ProgID="Excel.Sheet.12" ShapeID="_x0000_i1025" DrawAspect="Content" '
              'r:id="rIdOle" UpdateMode="Always"><o:LinkType>EnhancedMetaFile</o:LinkType>'
              '<o:LockedField>false</o:LockedField></o:OLEObject></w:object></w:r></w:p>')
    save_docx(os.path.join(out, name), body, settings=UPDATE_FIELDS, doc_rels=[
        ("rIdOle", "oleObject", u("docx-ole-link.xlsx"), True),
        ("rIdOlePreview", "image", u("docx-ole-preview.emf"), True)])
    add(name, "network", "libreoffice",
        "DDEAUTO, DDE and LINK fields naming URLs, and an o:OLEObject Type=Link (UpdateMode=Always) "
        "to an external oleObject relationship with an external preview image")

    # remote-template.docx: attachedTemplate, frameset and subDoc relationships (template injection)
    name = "remote-template.docx"
    body = (w_p(title_of(name), bold=True)
            + w_p("settings.xml attachedTemplate, webSettings frameset and a w:subDoc, all external:")
            + f'<w:p><w:subDoc r:id="rIdSubDoc"/></w:p>'
            + w_p("and a w:altChunk (imported HTML) whose part is external:")
            + '<w:altChunk r:id="rIdAltChunk"/>')
    web = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:webSettings {W_NS}>'
           '<w:frameset><w:frame><w:name w:val="f1"/><w:sourceFileName r:id="rIdFrame"/></w:frame></w:frameset>'
           '</w:webSettings>')
    save_docx(os.path.join(out, name), body,
              doc_rels=[("rIdSubDoc", "subDocument", u("docx-subdocument.docx"), True),
                        ("rIdAltChunk", "aFChunk", u("docx-altchunk.html"), True)],
              settings='<w:attachedTemplate r:id="rIdTemplate"/><w:linkStyles/>',
              settings_rels=[("rIdTemplate", "attachedTemplate", u("docx-attached-template.dotx"), True)],
              extra_parts=[("webSettings.xml",
                            "application/vnd.openxmlformats-officedocument.wordprocessingml.webSettings+xml",
                            ("rIdWeb", "webSettings", "webSettings.xml", False))],
              extra_entries=[("word/webSettings.xml", web),
                             ("word/_rels/webSettings.xml.rels",
                              rels_xml([("rIdFrame", "frame", u("docx-frameset-frame.docx"), True)]))])
    add(name, "network", "libreoffice",
        "remote template injection: settings attachedTemplate (+ linkStyles), webSettings frameset frame, "
        "a w:subDoc and a w:altChunk, all TargetMode=External")

    # xxe.docx: an external DTD and an external parameter/general entity in word/document.xml
    name = "xxe.docx"
    doc = ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
           f'<!DOCTYPE w:document SYSTEM "{u("docx-xxe-dtd.dtd")}" [\n'
           f'  <!ENTITY remote SYSTEM "{u("docx-xxe-entity.txt")}">\n'
           f'  <!ENTITY % param SYSTEM "{u("docx-xxe-parameter.dtd")}">\n  %param;\n]>\n'
           f'<w:document {W_NS}><w:body>{w_p(title_of(name), bold=True)}'
           '<w:p><w:r><w:t>[&remote;]</w:t></w:r></w:p></w:body></w:document>')
    save_docx(os.path.join(out, name), "", raw_document=doc)
    add(name, "network", "libreoffice",
        "word/document.xml with a DOCTYPE: external DTD, external parameter entity and an external "
        "general entity used in the text (XXE)")

    # includepicture.rtf
    name = "includepicture.rtf"
    def rtf_field(instr, shown):
        return "{\\field{\\*\\fldinst " + instr.replace("\\", "\\\\") + "}{\\fldrslt " + shown + "}}\\par\n"
    rtf = ("{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0\\froman Liberation Serif;}}\n"
           "{\\*\\template " + u("rtf-template.dot") + "}\n"
           "\\pard\\f0\\fs32\\b " + title_of(name) + "\\b0\\fs24\\par\n"
           + rtf_field(f'INCLUDEPICTURE "{u("rtf-includepicture.png")}" \\d', "[INCLUDEPICTURE \\\\d]")
           + rtf_field(f'INCLUDEPICTURE "{u("rtf-includepicture-mergeformatinet.png")}" \\* MERGEFORMATINET', "[INCLUDEPICTURE]")
           + rtf_field(f'INCLUDETEXT "{u("rtf-includetext.txt")}"', "[INCLUDETEXT]")
           + "}\n")
    write_text(os.path.join(out, name), rtf)
    add(name, "network", "libreoffice",
        "RTF INCLUDEPICTURE fields (\\d, MERGEFORMATINET), an INCLUDETEXT field and a \\*\\template, all http URLs")

    # linked-image.odt
    name = "linked-image.odt"
    styles = ('<style:style style:name="P1" style:family="paragraph"><style:paragraph-properties>'
              f'<style:background-image xlink:href="{u("odt-background-image.png")}" xlink:type="simple" '
              'xlink:actuate="onLoad" style:repeat="repeat"/></style:paragraph-properties></style:style>'
              '<style:style style:name="fr1" style:family="graphic"/>')
    body = (t_p(title_of(name))
            + t_p("draw:image with an http xlink:href (linked, not embedded):")
            + '<text:p><draw:frame draw:style-name="fr1" draw:name="img1" text:anchor-type="as-char" '
              'svg:width="4cm" svg:height="4cm"><draw:image xlink:href="' + u("odt-linked-image.png")
            + '" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>'
            + t_p("A paragraph whose style has a linked background image.", "P1"))
    odf_package(os.path.join(out, name), ODT_MIME, odt_content(body, styles))
    add(name, "network", "libreoffice",
        "draw:image xlink:href to an http URL, and a paragraph style:background-image xlink:href")

    # linked-section.odt
    name = "linked-section.odt"
    body = (t_p(title_of(name))
            + '<text:section text:name="Remote1"><text:section-source xlink:href="' + u("odt-section-source.odt")
            + '" xlink:type="simple" xlink:show="embed" text:filter-name="writer8"/>'
            + t_p("[section Remote1: cached contents]") + "</text:section>"
            + '<text:section text:name="Remote2"><text:section-source xlink:href="' + u("odt-section-source.html")
            + '" xlink:type="simple" xlink:show="embed"/>' + t_p("[section Remote2: cached contents]")
            + "</text:section>"
            + t_p("A linked OLE object and a floating frame:")
            + '<text:p><draw:frame draw:name="obj1" text:anchor-type="as-char" svg:width="4cm" svg:height="2cm">'
              '<draw:object xlink:href="' + u("odt-linked-object.ods")
            + '" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame>'
              '<draw:frame draw:name="ff1" text:anchor-type="as-char" svg:width="6cm" svg:height="3cm">'
              '<draw:floating-frame xlink:href="' + u("odt-floating-frame.html")
            + '" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>')
    odf_package(os.path.join(out, name), ODT_MIME, odt_content(body))
    add(name, "network", "libreoffice",
        "text:section with text:section-source xlink:href to http URLs (an .odt and an .html), a linked "
        "draw:object and a draw:floating-frame; settings.xml LinkUpdateMode=2 (update automatically)")

    # xxe.odt
    name = "xxe.odt"
    prolog = (f'<!DOCTYPE office:document-content SYSTEM "{u("odt-xxe-dtd.dtd")}" [\n'
              f'  <!ENTITY remote SYSTEM "{u("odt-xxe-entity.txt")}">\n'
              f'  <!ENTITY % param SYSTEM "{u("odt-xxe-parameter.dtd")}">\n  %param;\n]>\n')
    odf_package(os.path.join(out, name), ODT_MIME,
                odt_content(t_p(title_of(name)) + "<text:p>[&remote;]</text:p>", prolog=prolog))
    add(name, "network", "libreoffice",
        "content.xml with a DOCTYPE: external DTD, external parameter entity and an external general "
        "entity used in the text (XXE)")

    # webservice.xlsx
    name = "webservice.xlsx"
    S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    def c_str(ref, text):
        return f'<c r="{ref}" t="inlineStr"><is><t>{escape(text)}</t></is></c>'
    sheet = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
             f'<worksheet xmlns="{S}" xmlns:r="{REL}"><cols><col min="1" max="2" width="45" customWidth="1"/></cols><sheetData>'
             f'<row r="1">{c_str("A1", title_of(name))}</row>'
             f'<row r="2">{c_str("A2", "WEBSERVICE:")}<c r="B2" t="str"><f>_xlfn.WEBSERVICE("{u("xlsx-webservice")}")</f></c></row>'
             f'<row r="3">{c_str("A3", "FILTERXML(WEBSERVICE):")}<c r="B3" t="str"><f>_xlfn.FILTERXML(_xlfn.WEBSERVICE("{u("xlsx-filterxml.xml")}"),"//a")</f></c></row>'
             f'<row r="4">{c_str("A4", "External workbook reference:")}<c r="B4"><f>[1]Sheet1!A1</f><v>42</v></c></row>'
             f'<row r="5">{c_str("A5", "HYPERLINK (not fetched by itself):")}<c r="B5" t="str"><f>HYPERLINK("{u("xlsx-hyperlink")}","link")</f><v>link</v></c></row>'
             '</sheetData></worksheet>')
    workbook = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                f'<workbook xmlns="{S}" xmlns:r="{REL}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets>'
                '<externalReferences><externalReference r:id="rId2"/></externalReferences>'
                '<calcPr calcId="191029" fullCalcOnLoad="1"/></workbook>')
    extlink = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
               f'<externalLink xmlns="{S}" xmlns:r="{REL}"><externalBook r:id="rId1">'
               '<sheetNames><sheetName val="Sheet1"/></sheetNames><sheetDataSet><sheetData sheetId="0">'
               '<row r="1"><cell r="A1"><v>42</v></cell></row></sheetData></sheetDataSet></externalBook></externalLink>')
    connections = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                   f'<connections xmlns="{S}"><connection id="1" name="WebQuery" type="4" refreshedVersion="6" '
                   f'refreshOnLoad="1" saveData="1"><webPr sourceData="1" url="{u("xlsx-web-query.html")}"/></connection></connections>')
    ct = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
          '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' + CT_RELS + CT_XML
          + '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
          '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
          '<Override PartName="/xl/externalLinks/externalLink1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml"/>'
          '<Override PartName="/xl/connections.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.connections+xml"/>'
          '</Types>')
    write_zip(os.path.join(out, name), [
        ("[Content_Types].xml", ct),
        ("_rels/.rels", rels_xml([("rId1", "officeDocument", "xl/workbook.xml", False)])),
        ("xl/workbook.xml", workbook),
        ("xl/_rels/workbook.xml.rels", rels_xml([
            ("rId1", "worksheet", "worksheets/sheet1.xml", False),
            ("rId2", "externalLink", "externalLinks/externalLink1.xml", False),
            ("rId3", "connections", "connections.xml", False)])),
        ("xl/worksheets/sheet1.xml", sheet),
        ("xl/externalLinks/externalLink1.xml", extlink),
        ("xl/externalLinks/_rels/externalLink1.xml.rels",
         rels_xml([("rId1", "externalLinkPath", u("xlsx-external-workbook.xlsx"), True)])),
        ("xl/connections.xml", connections)])
    add(name, "network", "libreoffice",
        "WEBSERVICE() and FILTERXML(WEBSERVICE()) formulas without cached values (fullCalcOnLoad), "
        "an externalLink to a workbook URL used by a formula, and a refresh-on-load web query connection")

    # webservice.ods
    name = "webservice.ods"
    def cell_str(text):
        return f'<table:table-cell office:value-type="string"><text:p>{escape(text)}</text:p></table:table-cell>'
    def cell_formula(formula):
        return f'<table:table-cell table:formula={quoteattr("of:=" + formula)}/>'
    q = lambda s: '"' + s + '"'
    ext_ref = "['" + u("ods-external-ref.ods") + "'#$Sheet1.A1]"
    content = (f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content {ODF_NS}>{ODS_STYLES}'
               '<office:body><office:spreadsheet><table:table table:name="Sheet1">'
               '<table:table-column table:style-name="co1" table:number-columns-repeated="2"/>'
               f'<table:table-row>{cell_str(title_of(name))}{cell_str("")}</table:table-row>'
               f'<table:table-row>{cell_str("WEBSERVICE:")}{cell_formula("COM.MICROSOFT.WEBSERVICE(" + q(u("ods-webservice")) + ")")}</table:table-row>'
               f'<table:table-row>{cell_str("FILTERXML(WEBSERVICE):")}{cell_formula("COM.MICROSOFT.FILTERXML(COM.MICROSOFT.WEBSERVICE(" + q(u("ods-filterxml.xml")) + ");" + q("//a") + ")")}</table:table-row>'
               f'<table:table-row>{cell_str("External reference:")}{cell_formula(ext_ref)}</table:table-row>'
               f'<table:table-row>{cell_str("Linked cell range (web query):")}'
               '<table:table-cell><table:cell-range-source table:name="HTML_all" xlink:type="simple" '
               f'xlink:href="{u("ods-cell-range-source.html")}" table:filter-name="calc_HTML_WebQuery" '
               'table:filter-options="" table:last-column-spanned="1" table:last-row-spanned="1" '
               'table:refresh-delay="PT00H00M01S"/><text:p>[cached]</text:p></table:table-cell></table:table-row>'
               '</table:table>'
               '<table:table table:name="LinkedSheet">'
               f'<table:table-source table:mode="copy-all" xlink:type="simple" xlink:href="{u("ods-table-source.ods")}" '
               'table:filter-name="calc8" table:table-name="Sheet1" table:refresh-delay="PT00H00M01S"/>'
               '<table:table-column/><table:table-row>' + cell_str("[linked sheet: cached contents]")
               + '</table:table-row></table:table>'
               '</office:spreadsheet></office:body></office:document-content>')
    odf_package(os.path.join(out, name), ODS_MIME, content)
    add(name, "network", "libreoffice",
        "WEBSERVICE() and FILTERXML(WEBSERVICE()) formulas without cached values, an external "
        "['URL'#$Sheet1.A1] reference, a table:cell-range-source web query and a table:table-source linked sheet")

    # external-image.pptx
    name = "external-image.pptx"
    write_pptx(os.path.join(out, name), title_of(name), u)
    add(name, "network", "libreoffice",
        "slide pictures whose a:blip is r:link / r:embed to TargetMode=External image relationships, "
        "and a slide background blipFill to an external image")

    # remote-resources.html
    name = "remote-resources.html"
    html = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{title_of(name)}</title>
<link rel="stylesheet" href="{u("html-stylesheet.css")}">
<link rel="preload" href="{u("html-preload.js")}" as="script">
<link rel="preload" href="{u("html-preload-font.woff2")}" as="font" type="font/woff2" crossorigin>
<link rel="prefetch" href="{u("html-prefetch.bin")}">
<link rel="dns-prefetch" href="{u("html-dns-prefetch")}">
<link rel="preconnect" href="{u("html-preconnect")}">
<link rel="modulepreload" href="{u("html-modulepreload.js")}">
<link rel="icon" href="{u("html-favicon.ico")}">
<style>
@import url("{u("html-css-import.css")}");
@font-face {{ font-family: "Remote Font"; src: url("{u("html-font-face.woff2")}") format("woff2"); }}
h1 {{ font-family: "Remote Font", serif; }}
body {{ background-image: url("{u("html-background-image.png")}"); }}
.cursor {{ cursor: url("{u("html-cursor.cur")}"), auto; }}
ul {{ list-style-image: url("{u("html-list-style-image.png")}"); }}
</style>
<script src="{u("html-script.js")}"></script>
<script>
  try {{ fetch("{u("html-inline-fetch")}"); }} catch (e) {{}}
  new Image().src = "{u("html-inline-new-image.png")}";
</script>
</head>
<body>
<h1>{title_of(name)}</h1>
<p class="cursor">Every element below references the listener; none of it should load.</p>
<ul><li>img</li><li>iframe</li><li>video poster</li><li>object, embed, audio</li></ul>
<img src="{u("html-img.png")}" alt="[img]" width="40" height="40">
<img srcset="{u("html-img-srcset.png")} 1x" alt="[srcset]" width="40" height="40">
<picture><source srcset="{u("html-picture-source.png")}"><img alt="[picture]" width="40" height="40"></picture>
<iframe src="{u("html-iframe.html")}" width="200" height="60"></iframe>
<video poster="{u("html-video-poster.png")}" src="{u("html-video.mp4")}" preload="auto" width="80" height="60"></video>
<audio src="{u("html-audio.mp3")}" preload="auto"></audio>
<object data="{u("html-object.html")}" width="100" height="40">[object]</object>
<embed src="{u("html-embed.html")}" width="100" height="40">
<div style="background: url('{u("html-inline-style-background.png")}'); width: 40px; height: 40px;"></div>
</body></html>
"""
    write_text(os.path.join(out, name), html)
    add(name, "network", "chromium",
        "img, srcset, picture, stylesheet link, @import, @font-face, background/list-style/cursor images, "
        "iframe, object, embed, script src, inline fetch/new Image, video poster+src, audio, "
        "link rel=preload/prefetch/modulepreload/icon/dns-prefetch/preconnect")

    # svg-in-html.html
    name = "svg-in-html.html"
    inner = ('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60">'
             f'<image href="{u("svg-data-uri-inner-image.png")}" width="40" height="40"/>'
             '<text x="45" y="30">svg img</text></svg>')
    data_uri = "data:image/svg+xml," + urllib.parse.quote(inner)
    html = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title_of(name)}</title></head>
<body>
<h1>{title_of(name)}</h1>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="400" height="200">
  <style>@import url("{u("svg-style-import.css")}");</style>
  <defs><filter id="fe"><feImage href="{u("svg-feimage.png")}" width="40" height="40"/></filter></defs>
  <image href="{u("svg-image-href.png")}" x="0" y="0" width="40" height="40"/>
  <image xlink:href="{u("svg-image-xlink-href.png")}" x="50" y="0" width="40" height="40"/>
  <use href="{u("svg-use.svg")}#shape" x="100" y="0"/>
  <rect x="150" y="0" width="40" height="40" filter="url(#fe)"/>
  <rect x="200" y="0" width="40" height="40" fill="url('{u("svg-fill-paint.svg")}#grad')"/>
  <text x="0" y="80">Inline SVG with remote image, use, feImage and fill references</text>
</svg>
<p><img src="{data_uri}" alt="[svg data: URI]" width="120" height="60"></p>
</body></html>
"""
    write_text(os.path.join(out, name), html)
    add(name, "network", "chromium",
        "inline svg with <image href>, <image xlink:href>, <use href>, <feImage href>, a fill url() and a "
        "<style> @import, plus an <img> of an svg data: URI whose <image href> names the listener")

    # remote-resources.epub
    name = "remote-resources.epub"
    head = (f'<link rel="stylesheet" type="text/css" href="{u("epub-stylesheet.css")}"/>'
            '<style type="text/css">'
            f'@import url("{u("epub-css-import.css")}");'
            f'@font-face {{ font-family: "Remote Font"; src: url("{u("epub-font-face.woff")}"); }}'
            'h1 { font-family: "Remote Font", serif; }'
            f'body {{ background-image: url("{u("epub-background-image.png")}"); }}</style>')
    body = (f'<h1>{title_of(name)}</h1><p>This chapter links a remote stylesheet, font, images and media.</p>'
            f'<p><img src="{u("epub-img.png")}" alt="[img]" width="40" height="40"/></p>'
            f'<p><audio src="{u("epub-audio.mp3")}" controls="controls">[audio]</audio></p>'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="60" height="60"><image href="{u("epub-svg-image.png")}" width="40" height="40"/></svg>'
            f'<p><iframe src="{u("epub-iframe.html")}" width="100" height="40"></iframe></p>')
    write_epub(os.path.join(out, name), title_of(name), xhtml(title_of(name), head, body),
               extra_manifest=(f'<item id="remotefont" href="{u("epub-manifest-font.woff")}" media-type="font/woff"/>'
                               f'<item id="remoteaudio" href="{u("epub-manifest-audio.mp3")}" media-type="audio/mpeg"/>'),
               chapter_props="remote-resources svg")
    add(name, "network", "calibre",
        "EPUB 3 chapter (properties=remote-resources) with a remote stylesheet, @import, @font-face, "
        "background image, img, svg image, audio and iframe, plus manifest items whose href is a URL")


def write_pptx(path, title, u):
    P = ('xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
         f'xmlns:r="{REL}" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"')
    sp_tree_empty = ('<p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>'
                     '<p:grpSpPr/></p:spTree></p:cSld>')
    def pic(n, attr, rid, x):
        return (f'<p:pic><p:nvPicPr><p:cNvPr id="{n}" name="Picture {n}"/><p:cNvPicPr/><p:nvPr/></p:nvPicPr>'
                f'<p:blipFill><a:blip {attr}="{rid}"/><a:stretch><a:fillRect/></a:stretch></p:blipFill>'
                f'<p:spPr><a:xfrm><a:off x="{x}" y="2000000"/><a:ext cx="2000000" cy="2000000"/></a:xfrm>'
                '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr></p:pic>')
    slide = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<p:sld {P}><p:cSld>'
             '<p:bg><p:bgPr><a:blipFill><a:blip r:link="rIdBg"/><a:stretch><a:fillRect/></a:stretch></a:blipFill>'
             '<a:effectLst/></p:bgPr></p:bg>'
             '<p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>'
             '<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr>'
             '<p:spPr><a:xfrm><a:off x="500000" y="500000"/><a:ext cx="8000000" cy="1000000"/></a:xfrm>'
             '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr>'
             f'<p:txBody><a:bodyPr/><a:lstStyle/><a:p><a:r><a:rPr lang="en-US" sz="2800"/><a:t>{escape(title)}</a:t></a:r></a:p></p:txBody></p:sp>'
             + pic(3, "r:link", "rIdImgLink", 500000) + pic(4, "r:embed", "rIdImgEmbed", 3000000)
             + '</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>')
    layout = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<p:sldLayout {P} type="blank">'
              + sp_tree_empty + '<p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>')
    master = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<p:sldMaster {P}>' + sp_tree_empty
              + '<p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" '
                'accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/>'
                '<p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst></p:sldMaster>')
    def clr(name, rgb):
        return f"<a:{name}><a:srgbClr val=\"{rgb}\"/></a:{name}>"
    solid = '<a:solidFill><a:schemeClr val="phClr"/></a:solidFill>'
    line = '<a:ln w="9525"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln>'
    theme = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
             '<a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="Plain"><a:themeElements>'
             '<a:clrScheme name="Plain">' + clr("dk1", "000000") + clr("lt1", "FFFFFF") + clr("dk2", "1F497D")
             + clr("lt2", "EEECE1") + clr("accent1", "4F81BD") + clr("accent2", "C0504D") + clr("accent3", "9BBB59")
             + clr("accent4", "8064A2") + clr("accent5", "4BACC6") + clr("accent6", "F79646")
             + clr("hlink", "0000FF") + clr("folHlink", "800080") + '</a:clrScheme>'
             '<a:fontScheme name="Plain"><a:majorFont><a:latin typeface="Liberation Sans"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont>'
             '<a:minorFont><a:latin typeface="Liberation Sans"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme>'
             '<a:fmtScheme name="Plain"><a:fillStyleLst>' + solid * 3 + '</a:fillStyleLst>'
             '<a:lnStyleLst>' + line * 3 + '</a:lnStyleLst>'
             '<a:effectStyleLst>' + '<a:effectStyle><a:effectLst/></a:effectStyle>' * 3 + '</a:effectStyleLst>'
             '<a:bgFillStyleLst>' + solid * 3 + '</a:bgFillStyleLst></a:fmtScheme>'
             '</a:themeElements></a:theme>')
    presentation = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<p:presentation {P}>'
                    '<p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>'
                    '<p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst>'
                    '<p:sldSz cx="9144000" cy="6858000" type="screen4x3"/><p:notesSz cx="6858000" cy="9144000"/>'
                    '</p:presentation>')
    PML = "application/vnd.openxmlformats-officedocument.presentationml"
    ct = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
          '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' + CT_RELS + CT_XML
          + f'<Override PartName="/ppt/presentation.xml" ContentType="{PML}.presentation.main+xml"/>'
          f'<Override PartName="/ppt/slideMasters/slideMaster1.xml" ContentType="{PML}.slideMaster+xml"/>'
          f'<Override PartName="/ppt/slideLayouts/slideLayout1.xml" ContentType="{PML}.slideLayout+xml"/>'
          f'<Override PartName="/ppt/slides/slide1.xml" ContentType="{PML}.slide+xml"/>'
          '<Override PartName="/ppt/theme/theme1.xml" ContentType="application/vnd.openxmlformats-officedocument.theme+xml"/>'
          '</Types>')
    write_zip(path, [
        ("[Content_Types].xml", ct),
        ("_rels/.rels", rels_xml([("rId1", "officeDocument", "ppt/presentation.xml", False)])),
        ("ppt/presentation.xml", presentation),
        ("ppt/_rels/presentation.xml.rels", rels_xml([
            ("rId1", "slideMaster", "slideMasters/slideMaster1.xml", False),
            ("rId2", "slide", "slides/slide1.xml", False),
            ("rId3", "theme", "theme/theme1.xml", False)])),
        ("ppt/slideMasters/slideMaster1.xml", master),
        ("ppt/slideMasters/_rels/slideMaster1.xml.rels", rels_xml([
            ("rId1", "slideLayout", "../slideLayouts/slideLayout1.xml", False),
            ("rId2", "theme", "../theme/theme1.xml", False)])),
        ("ppt/slideLayouts/slideLayout1.xml", layout),
        ("ppt/slideLayouts/_rels/slideLayout1.xml.rels", rels_xml([
            ("rId1", "slideMaster", "../slideMasters/slideMaster1.xml", False)])),
        ("ppt/theme/theme1.xml", theme),
        ("ppt/slides/slide1.xml", slide),
        ("ppt/slides/_rels/slide1.xml.rels", rels_xml([
            ("rId1", "slideLayout", "../slideLayouts/slideLayout1.xml", False),
            ("rIdImgLink", "image", u("pptx-external-image-link.png"), True),
            ("rIdImgEmbed", "image", u("pptx-external-image-embed.png"), True),
            ("rIdBg", "image", u("pptx-background-image.png"), True)])),
    ])


# ---------------------------------------------------------------------------------------------
# The local-file cases (only with --secret)
# ---------------------------------------------------------------------------------------------
def file_cases(out, secrets):
    urls = [file_url(s) for s in secrets]
    paths = [os.path.abspath(s) for s in secrets]

    name = "file-includetext.docx"
    body = w_p(title_of(name), bold=True)
    for url, path in zip(urls, paths):
        body += w_field(f'INCLUDETEXT "{url}"', "[INCLUDETEXT file URL]")
        body += w_simple_field(f'INCLUDETEXT "{path}"', "[fldSimple INCLUDETEXT path]")
    save_docx(os.path.join(out, name), body, settings=UPDATE_FIELDS)
    add(name, "file", "libreoffice", "INCLUDETEXT fields naming each secret as a file:/// URL and as a plain path")

    name = "file-linked-section.odt"
    body = t_p(title_of(name))
    for i, url in enumerate(urls):
        body += (f'<text:section text:name="Secret{i}"><text:section-source xlink:href="{escape(url)}" '
                 f'xlink:type="simple" xlink:show="embed"/>{t_p("[linked section: cached contents]")}</text:section>')
    odf_package(os.path.join(out, name), ODT_MIME, odt_content(body))
    add(name, "file", "libreoffice", "text:section-source xlink:href to each secret's file:/// URL")

    name = "file-ole.ods"
    rows = f'<table:table-row><table:table-cell office:value-type="string"><text:p>{escape(title_of(name))}</text:p></table:table-cell></table:table-row>'
    for url in urls:
        for formula in (f"['{url}'#$Sheet1.A1]", f"['{url}'#$'{os.path.basename(url)}'.A1]",
                        f'COM.MICROSOFT.WEBSERVICE("{url}")',
                        f'COM.MICROSOFT.FILTERXML(COM.MICROSOFT.WEBSERVICE("{url}");"/")'):
            rows += (f'<table:table-row><table:table-cell office:value-type="string"><text:p>{escape(formula)}</text:p>'
                     f'</table:table-cell><table:table-cell table:formula={quoteattr("of:=" + formula)}/></table:table-row>')
    tables = ('<table:table table:name="Sheet1"><table:table-column table:style-name="co1" table:number-columns-repeated="2"/>'
              + rows + '</table:table>')
    for i, url in enumerate(urls):
        tables += (f'<table:table table:name="Linked{i}"><table:table-source table:mode="copy-all" xlink:type="simple" '
                   f'xlink:href="{escape(url)}" table:filter-name="Text - txt - csv (StarCalc)" '
                   'table:filter-options="44,34,76,1" table:refresh-delay="PT00H00M01S"/>'
                   '<table:table-column/><table:table-row><table:table-cell office:value-type="string">'
                   '<text:p>[linked sheet: cached contents]</text:p></table:table-cell></table:table-row></table:table>')
    content = (f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content {ODF_NS}>{ODS_STYLES}'
               f'<office:body><office:spreadsheet>{tables}</office:spreadsheet></office:body></office:document-content>')
    odf_package(os.path.join(out, name), ODS_MIME, content)
    add(name, "file", "libreoffice",
        "per secret: external ['file:///…'#$Sheet1.A1] references, WEBSERVICE/FILTERXML of the file URL, "
        "and a table:table-source linked sheet (CSV filter) to the file URL")

    name = "file-links.html"
    items = ""
    for url in urls:
        items += (f'<h2>{escape(url)}</h2>\n'
                  f'<iframe src="{escape(url)}" width="500" height="60"></iframe>\n'
                  f'<object data="{escape(url)}" type="text/plain" width="500" height="60">[object]</object>\n'
                  f'<embed src="{escape(url)}" type="text/plain" width="500" height="60">\n'
                  f'<img src="{escape(url)}" alt="[img]" width="40" height="40">\n'
                  f'<link rel="stylesheet" href="{escape(url)}">\n'
                  f'<p><a href="{escape(url)}">link</a></p>\n')
    html = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title_of(name)}</title></head>\n'
            f'<body><h1>{title_of(name)}</h1>\n{items}'
            '<script>\n'
            + "".join(f'try {{ fetch("{url}").then(r => r.text()).then(t => document.body.append(t)); }} catch (e) {{}}\n'
                      f'try {{ const x = new XMLHttpRequest(); x.open("GET", "{url}", false); x.send(); '
                      f'document.body.append(x.responseText); }} catch (e) {{}}\n' for url in urls)
            + '</script></body></html>\n')
    write_text(os.path.join(out, name), html)
    add(name, "file", "chromium", "per secret: iframe, object, embed, img, stylesheet link to its file:/// URL, "
                                  "and script fetch()/sync XHR that append the text to the page")

    name = "file-links.epub"
    css = "".join(f'@import url("{url}");\n' for url in urls)
    css += "".join(f'.s{i}::after {{ content: url("{url}"); }}\n' for i, url in enumerate(urls))
    body = f"<h1>{title_of(name)}</h1>"
    for i, (url, path) in enumerate(zip(urls, paths)):
        rel = "../" * 12 + path.lstrip("/")
        body += (f'<p class="s{i}">Secret {i}:</p>'
                 f'<p><img src="{escape(url)}" alt="[img file URL]"/></p>'
                 f'<p><img src="{escape(rel)}" alt="[img relative path]"/></p>'
                 f'<p><iframe src="{escape(url)}" width="400" height="40"></iframe></p>'
                 f'<p><object data="{escape(url)}" type="text/plain">[object]</object></p>'
                 f'<p><a href="{escape(url)}">link</a></p>')
    head = (f'<link rel="stylesheet" type="text/css" href="{escape(urls[0])}"/>'
            f'<style type="text/css">{css}</style>')
    manifest = ""
    for i, (url, path) in enumerate(zip(urls, paths)):
        rel = "../" * 12 + path.lstrip("/")
        manifest += (f'<item id="secretfile{i}" href="{escape(url)}" media-type="text/plain"/>'
                     f'<item id="secretrel{i}" href="{escape(rel)}" media-type="text/css"/>')
    write_epub(os.path.join(out, name), title_of(name), xhtml(title_of(name), head, body),
               extra_manifest=manifest)
    add(name, "file", "calibre",
        "per secret: CSS @import / content:url(), stylesheet link, img, iframe, object and link to its file:/// URL, "
        "an img and an OPF manifest item by ../../ path traversal, and a manifest item whose href is the file URL")


# ---------------------------------------------------------------------------------------------
# The resource-limit cases
# ---------------------------------------------------------------------------------------------
def limit_cases(out, host_port):
    # bomb.docx: word/document.xml is ~1.5 GB of identical paragraphs, deflated (ratio ~1000:1).
    # Streamed in 4 MB chunks, so generating it needs a few MB of memory.
    name = "bomb.docx"
    target = 1_500_000_000
    head = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document {W_NS}><w:body>'
            + w_p(title_of(name), bold=True)).encode()
    para = w_p("Bomb paragraph: PDF Gateway must stop converting this document before it fills memory or disk.").encode()
    tail = (b'<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>')
    chunk = para * (4_000_000 // len(para))
    entries = write_docx(os.path.join(out, name), "")
    with zipfile.ZipFile(os.path.join(out, name), "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for part, data in entries:
            if part == "word/document.xml":
                info = zipfile.ZipInfo(part, date_time=(2024, 1, 2, 3, 4, 6))
                info.compress_type = zipfile.ZIP_DEFLATED
                with z.open(info, "w", force_zip64=True) as f:
                    f.write(head)
                    written = len(head)
                    while written < target:
                        f.write(chunk)
                        written += len(chunk)
                    f.write(tail)
            else:
                z.writestr(part, data)
    add(name, "limit", "libreoffice",
        f"deflate bomb: word/document.xml inflates to ~{target // 10**9}.{target % 10**9 // 10**8} GB "
        f"(~{target // len(para) / 1e6:.0f} million paragraphs)")

    # entities.odt: "billion laughs" in content.xml: 10 levels of 10 references = 10^9 "lol"s (3 GB).
    name = "entities.odt"
    ents = '  <!ENTITY lol0 "lol">\n' + "".join(
        f'  <!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">\n' for i in range(1, 10))
    prolog = f"<!DOCTYPE office:document-content [\n{ents}]>\n"
    odf_package(os.path.join(out, name), ODT_MIME,
                odt_content(t_p(title_of(name)) + "<text:p>&lol9;</text:p>", prolog=prolog))
    add(name, "limit", "libreoffice",
        'XML entity expansion ("billion laughs") in content.xml: 10 nested levels, 10^9 x "lol" = 3 GB')

    name = "lines.txt"
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        f.write(title_of(name) + "\n")
        for i in range(1, 200_000):
            f.write(f"Line {i:06d}: plain text that LibreOffice lays out one paragraph per line.\n")
    add(name, "limit", "libreoffice", "200,000 lines of text (~4,400 pages)")

    name = "many-frames.html"
    frames = "\n".join(f'<iframe src="http://f{n}.frames.test:{host_port}/" width="60" height="30"></iframe>'
                       for n in range(1, 151))
    html = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title_of(name)}</title></head>\n'
            f'<body><h1>{title_of(name)}</h1>\n<p>150 iframes, each on its own site (one renderer each).</p>\n'
            f'{frames}\n</body></html>\n')
    write_text(os.path.join(out, name), html)
    add(name, "limit", "chromium",
        f"150 iframes on 150 distinct sites http://f1..f150.frames.test:{host_port}/ (a renderer process per site)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--listener", required=True, help="http://127.0.0.1:PORT")
    ap.add_argument("--secret", action="append", default=[], metavar="FILE",
                    help="a file whose text must not reach the PDF (repeatable)")
    args = ap.parse_args()
    listener = urllib.parse.urlsplit(args.listener)
    if listener.scheme != "http" or not listener.port or listener.path not in ("", "/"):
        ap.error("--listener must be http://HOST:PORT")
    L = f"http://{listener.netloc}"
    os.makedirs(args.outdir, exist_ok=True)
    network_cases(args.outdir, L)
    if args.secret:
        file_cases(args.outdir, args.secret)
    limit_cases(args.outdir, listener.port)
    json.dump(MANIFEST, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
