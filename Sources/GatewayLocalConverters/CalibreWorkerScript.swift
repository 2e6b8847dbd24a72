/// The Python worker each warm Calibre slot runs under `calibre-debug -e` (DESIGN §4): the text
/// of Python/calibre_worker.py, embedded at build time so the gateway stays one binary. The
/// converter writes it to its working directory at start; its docstring says how it is run and
/// spoken to.
enum CalibreWorkerScript {
    static let fileName = "pdfgate_calibre_worker.py"

    static let source = String(decoding: PackageResources.calibre_worker_py, as: UTF8.self)
}
