#ifndef PDFGATE_CPOPPLER_SHIM_H
#define PDFGATE_CPOPPLER_SHIM_H
// Poppler's GLib API and cairo, which it renders into. Only GatewayPDF imports this.
#include <poppler.h>
#include <cairo.h>
#include <cairo-pdf.h>
#include <glib.h>
#include <spawn.h>

/// POPPLER_ERROR is a macro calling a function; Swift cannot import it directly.
static inline GQuark pdfgate_poppler_error_quark(void) { return POPPLER_ERROR; }

/// g_object_unref takes a gpointer; a typed wrapper keeps call sites honest.
static inline void pdfgate_unref_document(PopplerDocument *doc) { if (doc) g_object_unref(doc); }
static inline void pdfgate_unref_page(PopplerPage *page) { if (page) g_object_unref(page); }

/// The PopplerError codes as plain ints, so Swift need not care how the C enum is imported.
static inline gint pdfgate_poppler_error_invalid(void) { return POPPLER_ERROR_INVALID; }
static inline gint pdfgate_poppler_error_encrypted(void) { return POPPLER_ERROR_ENCRYPTED; }
static inline gint pdfgate_poppler_error_open_file(void) { return POPPLER_ERROR_OPEN_FILE; }
static inline gint pdfgate_poppler_error_bad_catalog(void) { return POPPLER_ERROR_BAD_CATALOG; }
static inline gint pdfgate_poppler_error_damaged(void) { return POPPLER_ERROR_DAMAGED; }

/// The inspect worker must not inherit the gateway's other descriptors. glibc >= 2.34 has this
/// file action but declares it only under _GNU_SOURCE, which Swift's Glibc module does not set.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
static inline int pdfgate_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
#endif
