"""Drives a pdfgate through the Python `gotenberg-client` (pinned in scripts/python-venv.sh),
as a team moving from Gotenberg would: the client unchanged, only its URL and credentials ours.

    python gotenberg-client-check.py BASE_URL TOKEN FIXTURES_DIR OUT_DIR

Each call's outcome goes to OUT_DIR/results.json: the file it wrote and whether it was a zip
(with its entries), or the HTTP status of a refusal. GotenbergClientTests reads that and checks
every file with Poppler; this script only calls and records, it judges nothing.
"""

import json
import sys
import zipfile
from pathlib import Path

from gotenberg_client import GotenbergClient, HttpStatusError
from gotenberg_client.options import (
    Measurement,
    MeasurementUnitType,
    PageMarginsType,
    RotateAngle,
    WatermarkStampOptions,
    WatermarkStampSource,
)

base_url, token, fixtures, out = sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
out.mkdir(parents=True, exist_ok=True)
results = {}


def record(name, call):
    """Runs one client call; keeps its file (and a zip's entries) or its refusal's status."""
    try:
        response = call()
    except HttpStatusError as error:
        results[name] = {"status": error.response.status_code, "body": error.response.content.decode(errors="replace")}
        return
    if isinstance(response, str):
        results[name] = {"text": response}
        return
    content_type = response.headers.get("Content-Type", "")
    suffix = ".zip" if response.is_zip else "." + content_type.split("/")[1] if content_type.startswith("image/") else ".pdf"
    path = out / (name + suffix)
    response.to_file(path)
    result = {"status": response.status_code, "file": str(path), "zip": response.is_zip, "content_type": content_type}
    if response.is_zip:
        with zipfile.ZipFile(path) as archive:
            result["entries"] = archive.namelist()
            for entry in archive.namelist():
                archive.extract(entry, out / name)
        result["directory"] = str(out / name)
    results[name] = result


pdf = lambda name: fixtures / "pdf" / name  # noqa: E731
office = lambda name: fixtures / "office" / name  # noqa: E731
markdown = out / "notes.md"
markdown.write_text("# Minutes\n\nWe agreed on **three** points.\n")

# Gotenberg's basic auth: any user name, our token as the password.
with GotenbergClient(base_url, auth=("gotenberg", token), timeout=120.0) as client:
    health = client.health.health()
    results["health"] = {"text": health.overall.value}
    record("version", lambda: client.version.get())
    with client.libre_office.to_pdf() as route:
        record("office", lambda: route.convert(office("sample.docx")).run())
    with client.libre_office.to_pdf() as route:
        record("office_zip", lambda: route.convert_files([office("sample.docx"), office("sample.odt")]).no_merge().run())
    with client.libre_office.to_pdf() as route:
        record("office_merged", lambda: route.convert_files([office("sample.docx"), office("sample.odt")]).do_merge().run())
    with client.merge.merge() as route:
        record("merge", lambda: route.merge([pdf("one-page.pdf"), pdf("no-metadata.pdf")]).run())
    with client.split.split() as route:
        record("split", lambda: route.split(pdf("many-pages.pdf")).split_mode("intervals").split_span("5").run())
    with client.rotate.rotate() as route:
        record("rotate", lambda: route.add_file(pdf("one-page.pdf")).rotate(RotateAngle.Clockwise90).run())
    with client.encrypt.encrypt() as route:
        record("encrypt", lambda: route.add_file(pdf("one-page.pdf")).user_password("s3cret").run())
    with client.watermark.watermark() as route:
        record(
            "watermark",
            lambda: route.add_file(pdf("one-page.pdf"))
            .watermark_source(WatermarkStampSource.Text)
            .watermark_expression("DRAFT")
            .watermark_options(WatermarkStampOptions(rotation=45, opacity=0.3))
            .run(),
        )
    with client.metadata.write() as route:
        record("metadata", lambda: route.write(pdf("no-metadata.pdf")).metadata(title="Minutes", author="The board").run())
    with client.chromium.html_to_pdf() as route:
        # Only the left margin set, in millimetres (50.8 mm is 2 in): the others keep Gotenberg's default.
        margins = PageMarginsType(left=Measurement(50.8, MeasurementUnitType.Millimeters))
        record("html", lambda: route.string_index("<html><body><h1>Hello from the client</h1></body></html>").margins(margins).run())
    with client.chromium.markdown_to_pdf() as route:
        template = '<html><body>{{ toHTML "notes.md" }}</body></html>'
        record("markdown", lambda: route.string_index(template).markdown_file(markdown).run())
    with client.chromium.screenshot_html() as route:
        page = '<html><body style="margin:0;background:#00ff00"><h1>Screenshot</h1></body></html>'
        record("screenshot", lambda: route.string_index(page).width(640).height(360).clip_to_dimensions().output_format("jpeg").quality(80).run())
    # Refusals reach the client as Gotenberg's would: our SSRF rules are its deny list.
    with client.chromium.url_to_pdf() as route:
        record("loopback_url", lambda: route.url("http://127.0.0.1:9/").run())

with GotenbergClient(base_url, auth=("gotenberg", "wrong"), timeout=30.0) as client, client.merge.merge() as route:
    record("wrong_password", lambda: route.merge([pdf("one-page.pdf")]).run())

(out / "results.json").write_text(json.dumps(results, indent=2))
print(json.dumps(results))
