// The documents table's rows: one per document, with its name (and, while searching, its
// folder and the words that matched), figures, dates and action buttons, and a thumbnail fetched
// when the row comes near view.

import * as api from "./api.js";
import { $, el, formatBytes, formatDate, iconButton } from "./dom.js";
import { closeDetails, showDetails } from "./library-details.js";
import { renderEmptyState } from "./library-list.js";
import { snippetOf } from "./library-search.js";
import { docs, folderLabel, hits, state } from "./library-state.js";

const tbody = $("#documents tbody");
const thumbs = new Map(); // img → object URL, revoked when its row goes

export const rowOf = (id) => tbody.querySelector(`tr[data-document-id="${CSS.escape(id)}"]`);

export function makeRow(doc) {
  docs.set(doc.id, doc);
  const thumb = el("img", { class: "doc-thumb", alt: "", width: 36, height: 48, decoding: "async", data: { documentId: doc.id } });
  thumbObserver.observe(thumb);
  const name = doc.name;
  return el(
    "tr",
    { draggable: true, tabIndex: 0, data: { documentId: doc.id }, attrs: { "aria-selected": String(doc.id === state.selectedId) } },
    el("td", { class: "cell-thumb" }, thumb),
    el(
      "td",
      { class: "cell-name" },
      el("span", { class: "doc-name", text: name }),
      state.query ? el("span", { class: "doc-folder", text: folderLabel(doc.folder) }) : null,
      state.query ? snippetOf(hits.get(doc.id)) : null,
    ),
    el("td", { class: "doc-pages num", text: doc.page_count === null ? "?" : String(doc.page_count) }),
    el("td", { class: "doc-size num", text: formatBytes(doc.size) }),
    el("td", { class: "doc-created col-date col-created", text: formatDate(doc.created_at) }),
    el("td", { class: "doc-updated col-date", text: formatDate(doc.updated_at) }),
    el(
      "td",
      { class: "cell-actions" },
      el(
        "div",
        { class: "row-actions" },
        iconButton("rename", `Rename ${name}`, "doc-rename"),
        iconButton("move", `Move ${name}`, "doc-move"),
        iconButton("download", `Download ${name}`, "doc-download"),
        iconButton("open", `Open ${name} in a new tab`, "doc-open"),
        iconButton("delete", `Delete ${name}`, "doc-delete"),
      ),
    ),
  );
}

export function clearRows() {
  for (const url of thumbs.values()) URL.revokeObjectURL(url);
  thumbs.clear();
  thumbObserver.disconnect();
  docs.clear();
  hits.clear();
  tbody.replaceChildren();
}

export function removeRow(id) {
  const row = rowOf(id);
  const img = row?.querySelector("img.doc-thumb");
  if (img && thumbs.has(img)) {
    URL.revokeObjectURL(thumbs.get(img));
    thumbs.delete(img);
  }
  row?.remove();
  docs.delete(id);
  if (state.selectedId === id) closeDetails();
  renderEmptyState();
}

/** Swaps a row for a fresh one after a change, keeping its already loaded thumbnail. */
export function replaceRow(doc) {
  const old = rowOf(doc.id);
  if (!old) return;
  const fresh = makeRow(doc);
  const oldThumb = old.querySelector("img.doc-thumb");
  const newThumb = fresh.querySelector("img.doc-thumb");
  if (oldThumb?.src) {
    thumbObserver.unobserve(newThumb);
    newThumb.replaceWith(oldThumb);
  }
  old.replaceWith(fresh);
  if (state.selectedId === doc.id) showDetails(doc);
  return fresh;
}

// Thumbnails are fetched (the bearer header cannot ride on <img src>) when they come near view.
const thumbObserver = new IntersectionObserver(
  (entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      thumbObserver.unobserve(entry.target);
      loadThumb(entry.target);
    }
  },
  { rootMargin: "300px" },
);

async function loadThumb(img) {
  try {
    const blob = await api.getBlob(`/v1/documents/${img.dataset.documentId}/thumbnail`, { width: 96 });
    if (!img.isConnected) return;
    const url = URL.createObjectURL(blob);
    thumbs.set(img, url);
    img.src = url;
  } catch {
    img.classList.add("thumb-missing"); // a decorative picture: its absence needs no notice
  }
}
