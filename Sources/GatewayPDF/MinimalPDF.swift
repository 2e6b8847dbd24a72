/// The smallest well-formed one-page PDF (checked with `qpdf --check`); byte offsets in its
/// xref table are exact, so edit it only by regenerating it.
enum MinimalPDF {
    static let onePage =
        "%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
        + "2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n"
        + "3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>\nendobj\n"
        + "xref\n0 4\n0000000000 65535 f \n0000000009 00000 n \n0000000058 00000 n \n0000000115 00000 n \n"
        + "trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n184\n%%EOF\n"
}
