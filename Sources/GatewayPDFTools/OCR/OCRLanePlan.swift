/// How the pages to OCR are shared out: runs of pages in order, each read by one Tesseract
/// process (one language load for many pages, not one per page), as many running at once as
/// there are cores (`OCREngine.lanes`).
struct OCRLanePlan: Sendable, Equatable {
    /// One Tesseract run: pages in document order that share a resolution (`--dpi` is one per run).
    struct Batch: Sendable, Equatable {
        var pages: [PageFacts]
        var dpi: Int { pages[0].source.dpi }
    }

    var batches: [Batch]
    /// Runs at once for this job: never more than there are batches or cores.
    var lanes: Int

    /// Splits `pages` (in document order) for `cores` lanes: about `pages / cores` pages a batch,
    /// so every core gets work, but at most `maxBatch` (a batch's CPU time must stay inside one
    /// process's CPU limit), and a new batch wherever the resolution changes.
    init(pages: [PageFacts], cores: Int, maxBatch: Int) {
        let cores = max(cores, 1)
        let size = max(1, min(maxBatch, (pages.count + cores - 1) / cores))
        var batches: [Batch] = []
        for page in pages {
            if let last = batches.last, last.pages.count < size, last.dpi == page.source.dpi {
                batches[batches.count - 1].pages.append(page)
            } else {
                batches.append(Batch(pages: [page]))
            }
        }
        self.batches = batches
        lanes = min(cores, batches.count)
    }

    /// Pages a batch may hold so its Tesseract run fits `cpuSeconds` at `pageBudget` seconds a
    /// page, and no more than 20 (longer lists are no faster and only delay the first failure).
    static func maxBatch(cpuSeconds: Int, pageBudget: Duration) -> Int {
        let budget = max(Double(pageBudget.components.seconds), 1)
        return max(1, min(20, Int(Double(cpuSeconds) / budget)))
    }
}
