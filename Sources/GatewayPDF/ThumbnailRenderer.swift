import CPoppler
import Foundation
import GatewayLibraryModel

/// Renders page 1 into a PNG with cairo and puts it in place atomically, so a reader of the
/// output path never sees half a file.
enum ThumbnailRenderer {
    /// A very tall page would otherwise make a huge, useless image; its top part is kept.
    static let maxAspect = 4.0
    static let maxWidth = 4096

    /// `size` is the page size in points, after /Rotate.
    static func render(
        page: OpaquePointer,
        size: (width: Double, height: Double),
        request: ThumbnailRequest,
        name: String
    ) throws(InspectionError) {
        guard (1...maxWidth).contains(request.width) else {
            throw InspectionError(.inspectorUnavailable, "thumbnail width \(request.width) is out of range 1...\(maxWidth)")
        }
        guard size.width > 0, size.height > 0, size.width.isFinite, size.height.isFinite else {
            throw InspectionError(.damaged, "\(name) is damaged: its first page has no usable size")
        }
        let scale = Double(request.width) / size.width
        let fullHeight = (size.height * scale).rounded()
        let height = Int32(max(1, min(fullHeight, Double(request.width) * maxAspect)))
        let width = Int32(request.width)

        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height) else {
            throw renderFailure(name, CAIRO_STATUS_NO_MEMORY)
        }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cairo = cairo_create(surface) else {
            throw renderFailure(name, cairo_surface_status(surface))
        }
        defer { cairo_destroy(cairo) }

        // PDF pages have no background of their own: paint white so transparency is not black.
        cairo_set_source_rgb(cairo, 1, 1, 1)
        cairo_paint(cairo)
        cairo_scale(cairo, scale, scale)
        poppler_page_render(page, cairo)
        cairo_surface_flush(surface)
        let status = cairo_status(cairo)
        guard status == CAIRO_STATUS_SUCCESS else { throw renderFailure(name, status) }

        try write(surface, to: request.outputPath)
    }

    /// Writes next to the destination, then renames: atomic on one file system.
    private static func write(_ surface: OpaquePointer, to outputPath: String) throws(InspectionError) {
        let temporary = "\(outputPath).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let status = cairo_surface_write_to_png(surface, temporary)
        guard status == CAIRO_STATUS_SUCCESS else {
            unlink(temporary)
            throw InspectionError(
                .inspectorUnavailable,
                "could not write the thumbnail to \(outputPath): \(String(cString: cairo_status_to_string(status)))"
            )
        }
        guard rename(temporary, outputPath) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw InspectionError(.inspectorUnavailable, "could not write the thumbnail to \(outputPath): \(reason)")
        }
    }

    /// Out of memory here means the worker's memory cap, not a broken file.
    private static func renderFailure(_ name: String, _ status: cairo_status_t) -> InspectionError {
        if status == CAIRO_STATUS_NO_MEMORY {
            return InspectionError(
                .resourceLimit,
                "rendering the thumbnail of \(name) ran out of memory under the inspector's memory cap; try a smaller thumbnail width or a larger cap"
            )
        }
        return InspectionError(.damaged, "\(name) could not be rendered: \(String(cString: cairo_status_to_string(status)))")
    }
}
