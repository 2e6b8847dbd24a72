/// The Python program a scan runs once per job, sealed like every tool: img2pdf lays the page
/// images out, one page each, in order. The text of Python/scan_pages.py, embedded at build time
/// and passed to python3 with `-c`; its docstring says what its argument holds.
enum ScanScript {
    static let source = String(decoding: PackageResources.scan_pages_py, as: UTF8.self)
}
