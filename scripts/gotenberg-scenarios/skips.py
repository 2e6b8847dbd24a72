"""Scenarios that cannot run here, by feature file and scenario name, each with its reason.

Strict on purpose: a scenario is listed only when what it checks cannot happen on this
machine. Everything that loopback servers, Poppler and qpdf can stand in for runs.
"""

SKIPS: dict[tuple[str, str], str] = {
    ("chromium_convert_html.feature", "POST /forms/chromium/convert/html (Fail On Resource HTTP Status Codes)"):
        "expects `https://gethttpstatus.com/400 - 400: Bad Request` in the body: needs that public site (internet)",
    ("chromium_convert_markdown.feature", "POST /forms/chromium/convert/markdown (Fail On Resource HTTP Status Codes)"):
        "expects `https://gethttpstatus.com/400 - 400: Bad Request` in the body: needs that public site (internet)",
}

# Scenarios that run, but whose meaning is reduced here; the note is printed with the result.
CAVEATS: dict[tuple[str, str], str] = {
    ("chromium_convert_html.feature", "POST /forms/chromium/convert/html (Fail On Resource HTTP Status Codes - Ignore Domains)"):
        "without internet gethttpstatus.com never answers 400, so the ignored domain is not exercised",
}
