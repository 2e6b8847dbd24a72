/// The Python UNO worker each LibreOffice slot runs next to its soffice (DESIGN §4): the text of
/// Python/uno_worker.py, embedded at build time so the gateway stays one binary. The slot writes
/// it to the pool's working directory at start; its docstring says how it is run and spoken to.
enum UnoWorkerScript {
    static let fileName = "pdfgate_uno_worker.py"

    static let source = String(decoding: PackageResources.uno_worker_py, as: UTF8.self)
}
