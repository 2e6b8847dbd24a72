import GatewayJobModel

/// What we add to an uploaded HTML page before Chromium prints it: Chromium's CLI has no flags for
/// paper, margins or backgrounds, but it honours CSS `@page` and `print-color-adjust`.
enum ChromiumPage {
    /// A Content-Security-Policy that lets an uploaded page style and script itself, but load
    /// nothing: no other local files through `file://` (which would leak them into the PDF), and
    /// no network (which would bypass the URL checks).
    /// `'self'` is the made-up origin the proxy serves the page and its bundle's files from
    /// (`HTMLBundle`); nothing else answers there, and no other origin is allowed.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self' 'unsafe-inline' data:; img-src 'self' data:; font-src 'self' data:; media-src 'self' data:; script-src 'self' 'unsafe-inline'"

    /// The page with our `<meta>` and `<style>` inserted at the start of its head.
    static func prepare(_ html: [UInt8], options: ConversionOptions) -> [UInt8] {
        let injection = Array(
            (#"<meta http-equiv="Content-Security-Policy" content="\#(contentSecurityPolicy)">"# + style(for: options)).utf8
        )
        var page = html
        page.insert(contentsOf: injection, at: insertionPoint(in: html))
        return page
    }

    /// CSS for the options the client set; empty when none apply.
    static func style(for options: ConversionOptions) -> String {
        var page: [String] = []
        if let width = options.paperWidth, let height = options.paperHeight, width > 0, height > 0 {
            let (w, h) = options.landscape == true ? (max(width, height), min(width, height)) : (width, height)
            page.append("size: \(w)in \(h)in !important;")
        } else if let landscape = options.landscape {
            page.append(landscape ? "size: landscape !important;" : "size: portrait !important;")
        }
        if let margins = options.margins(fallback: 0.4) {
            page.append("margin: \(margins.top)in \(margins.right)in \(margins.bottom)in \(margins.left)in !important;")
        }
        var css = page.isEmpty ? "" : "@page { \(page.joined(separator: " ")) }"
        if let background = options.printsBackground {
            let mode = background ? "exact" : "economy"
            css += " * { -webkit-print-color-adjust: \(mode) !important; print-color-adjust: \(mode) !important; }"
        }
        return css.isEmpty ? "" : "<style>\(css)</style>"
    }

    /// Just after `<head …>`; failing that after `<!doctype …>` (anything before it would put the
    /// page in quirks mode); failing that the very start.
    static func insertionPoint(in html: [UInt8]) -> Int {
        let window = Array(html.prefix(64 * 1024))
        let lowered = window.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        for tag in ["<head", "<!doctype"] {
            let needle = Array(tag.utf8)
            var index = 0
            while let found = firstIndex(of: needle, in: lowered, from: index) {
                let next = found + needle.count
                // `<header>` is not `<head>`.
                if next < lowered.count, tag == "<head", ![UInt8(ascii: ">"), UInt8(ascii: " "), 9, 10, 13].contains(lowered[next]) {
                    index = next
                    continue
                }
                if let close = lowered[next...].firstIndex(of: UInt8(ascii: ">")) { return close + 1 }
                break
            }
        }
        return 0
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard needle.count <= haystack.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count) where haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
