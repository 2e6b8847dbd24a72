// The details pane (#details) of the selected document: its first page, Download and Open, and
// everything known about it, from the folder and size to the PDF's own metadata.

import * as api from "./api.js";
import { $, $$, el, formatBytes, formatDate, iconButton, replaceChildren } from "./dom.js";
import { fetchPdf } from "./library-actions.js";
import { rowOf } from "./library-rows.js";
import { folderLabel, state } from "./library-state.js";

const section = $("#library");
const tbody = $("#documents tbody");
const details = $("#details");
let detailsThumb = null; // the preview's object URL, revoked when another replaces it

export function selectDocument(doc) {
  state.selectedId = doc.id;
  for (const row of $$("tr[aria-selected=true]", tbody)) row.setAttribute("aria-selected", "false");
  const row = rowOf(doc.id);
  row?.setAttribute("aria-selected", "true");
  row?.scrollIntoView({ block: "nearest" });
  showDetails(doc);
}

export function closeDetails() {
  state.selectedId = null;
  details.hidden = true;
  section.classList.remove("with-details");
  for (const row of $$("tr[aria-selected=true]", tbody)) row.setAttribute("aria-selected", "false");
  if (detailsThumb) URL.revokeObjectURL(detailsThumb);
  detailsThumb = null;
}

export function showDetails(doc) {
  const meta = doc.metadata ?? {};
  const yesNo = (value) => (value === true ? "Yes" : value === false ? "No" : null);
  const pageSize =
    meta.page_width && meta.page_height
      ? `${Math.round((meta.page_width / 72) * 25.4)} × ${Math.round((meta.page_height / 72) * 25.4)} mm (${Math.round(meta.page_width)} × ${Math.round(meta.page_height)} pt)`
      : null;
  const fields = [
    ["Folder", folderLabel(doc.folder)],
    ["Pages", doc.page_count === null ? "Unknown" : String(doc.page_count)],
    // A PDF kept as it came although it could not be read whole (a password, damage) says why.
    ["Not read", meta.warning],
    ["Size", `${formatBytes(doc.size)} (${doc.size.toLocaleString()} bytes)`],
    ["Title", meta.title],
    ["Author", meta.author],
    ["Subject", meta.subject],
    ["Keywords", meta.keywords],
    ["Creator", meta.creator],
    ["Producer", meta.producer],
    ["PDF version", meta.pdf_version],
    ["Page size", pageSize],
    ["PDF/A", meta.pdfa],
    ["Encrypted", yesNo(meta.encrypted)],
    ["Fast web view", yesNo(meta.linearized)],
    ["Created (PDF)", formatDate(meta.created_at)],
    ["Modified (PDF)", formatDate(meta.modified_at)],
    ["Filed", formatDate(doc.created_at)],
    ["Updated", formatDate(doc.updated_at)],
    ["SHA-256", doc.sha256],
    ["Document id", doc.id],
  ].filter(([, value]) => value !== null && value !== undefined && value !== "");

  const preview = el("img", { class: "details-thumb", alt: `First page of ${doc.name}` });
  replaceChildren(
    details,
    el(
      "div",
      { class: "details-head" },
      el("h3", { id: "details-title", text: doc.name }),
      iconButton("close", "Close details", "details-close", closeDetails),
    ),
    preview,
    el(
      "div",
      { class: "details-actions" },
      el("button", { type: "button", class: "button", text: "Download", on: { click: () => fetchPdf(doc, { download: true }) } }),
      el("button", { type: "button", class: "button", text: "Open", on: { click: () => fetchPdf(doc, { download: false }) } }),
    ),
    el("dl", { class: "details-list" }, fields.map(([term, value]) => [el("dt", { text: term }), el("dd", { text: value })])),
  );
  details.hidden = false;
  section.classList.add("with-details");
  const previous = detailsThumb;
  api
    .getBlob(`/v1/documents/${doc.id}/thumbnail`, { width: 384 })
    .then((blob) => {
      if (state.selectedId !== doc.id) return;
      detailsThumb = URL.createObjectURL(blob);
      preview.src = detailsThumb;
    })
    .catch(() => preview.classList.add("thumb-missing"))
    .finally(() => previous && URL.revokeObjectURL(previous));
}

export function wireDetails() {
  details.addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeDetails();
  });
}
