import Foundation
import GatewayTestSupport

/// The web page at library scale (issue 14), in Debian's headless Chromium against a running
/// server: how long until the library page shows a folder of many documents (navigation start
/// to the first 50 rows on screen, as the page's own `pdfgate:library-loaded` mark says), and
/// how long "Load more" takes to show the next 50. Medians of `rounds` fresh loads; each load
/// gets a new browser tab state but the same warm server, as a user reloading would.
func pageBenchmark(base: String, token: String, folder: String, rounds: Int = 7) async throws {
    let browser = try await HeadlessBrowser()
    defer { browser.stop() }
    // The token goes where the sign-in form puts it; the folder in the page's address.
    try await browser.open(base + "/")
    // After the page's own first request: its 401 would otherwise clear the token set here.
    try await browser.waitUntil("document.body.dataset.ready === 'true'", "the sign-in form")
    try await browser.evaluate("sessionStorage.setItem('pdfgate.token', \(HeadlessBrowser.quoted(token)))")
    var loads: [Double] = []
    var nextPages: [Double] = []
    for round in 0..<rounds {
        try await browser.open("about:blank")  // a fragment change alone would not load the page again
        try await browser.open(base + "/#folder=" + (folder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? folder))
        do {
            try await browser.waitUntil(
                "performance.getEntriesByName('pdfgate:library-loaded').length > 0 && document.querySelectorAll('#documents tbody tr[data-document-id]').length >= 50",
                "the first page of documents"
            )
        } catch {
            let page = try? await browser.evaluate(
                "location.href + ' ready=' + document.body.dataset.ready + ' library=' + document.body.dataset.library + ' resources=' + performance.getEntriesByType('resource').map(r => r.name.replace(location.origin, '') + '@' + Math.round(r.responseEnd)).join(' ')"
            )
            throw HeadlessBrowser.Failure(description: "round \(round): \(error); the page shows \(page ?? "nothing"); \(browser.problems)")
        }
        loads.append(try await browser.evaluate("performance.getEntriesByName('pdfgate:library-loaded')[0].startTime") as? Double ?? .nan)
        let next = try await browser.evaluate(
            """
            new Promise((resolve) => {
              const rows = () => document.querySelectorAll('#documents tbody tr[data-document-id]').length;
              const before = rows(), started = performance.now();
              const done = () => resolve(performance.now() - started);
              new MutationObserver((_, observer) => { if (rows() >= before + 50) { observer.disconnect(); done(); } })
                .observe(document.querySelector('#documents tbody'), { childList: true });
              document.querySelector('#more').click();
            })
            """
        )
        nextPages.append(next as? Double ?? .nan)
    }
    emit("page.library_interactive_ms", median(loads))
    emit("page.next_page_ms", median(nextPages))
    if !browser.problems.isEmpty { FileHandle.standardError.write(Data("page problems: \(browser.problems)\n".utf8)) }
}
