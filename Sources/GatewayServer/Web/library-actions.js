// What a document row does: its buttons (rename in place, move, download, open, delete), a
// click or Enter to show its details, and dragging it onto a folder in the tree.

import * as api from "./api.js";
import { chooseFolder, confirmDialog, quoted, withConflictChoice } from "./dialogs.js";
import { $, $$, el } from "./dom.js";
import { selectDocument } from "./library-details.js";
import { removeRow, replaceRow } from "./library-rows.js";
import { DOC_MIME, docs, folderLabel, state } from "./library-state.js";
import { describe, notify } from "./notice.js";

const tbody = $("#documents tbody");
const treeRoot = $("#folder-tree");

export async function moveDocument(doc, folderId) {
  try {
    const updated = await withConflictChoice(
      (onConflict) => api.patch(`/v1/documents/${doc.id}`, { folder_id: folderId || null, on_conflict: onConflict }),
      `The target folder already has a document named ${quoted(doc.name)}.`,
    );
    if (!updated) return;
    if (!state.query && (updated.folder_id ?? "") !== state.current.id) removeRow(doc.id);
    else replaceRow(updated);
  } catch (error) {
    notify(`Could not move ${quoted(doc.name)}. ${describe(error)}`);
  }
}

function startRename(row, doc) {
  const nameSpan = $(".doc-name", row);
  if (!nameSpan) return; // already editing
  const input = el("input", { type: "text", class: "doc-name-input", value: doc.name, attrs: { "aria-label": `New name for ${doc.name}` } });
  let settled = false;
  row.draggable = false;
  const restore = () => {
    input.replaceWith(nameSpan);
    row.draggable = true;
  };
  const finish = async (save) => {
    if (settled) return;
    settled = true;
    const name = input.value.trim();
    if (!save || !name || name === doc.name) return restore();
    input.disabled = true;
    try {
      const updated = await withConflictChoice(
        (onConflict) => api.patch(`/v1/documents/${doc.id}`, { name, on_conflict: onConflict }),
        `This folder already has a document named ${quoted(name)}.`,
      );
      if (!updated) return restore();
      replaceRow(updated)?.focus();
    } catch (error) {
      restore();
      notify(`Could not rename ${quoted(doc.name)}. ${describe(error)}`);
    }
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      finish(true);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      finish(false);
    }
  });
  input.addEventListener("blur", () => finish(true));
  nameSpan.replaceWith(input);
  input.focus();
  input.select();
}

async function deleteDocument(doc) {
  const ok = await confirmDialog({
    title: `Delete ${quoted(doc.name)}?`,
    text: `The PDF is removed from ${folderLabel(doc.folder)}. This cannot be undone.`,
    ok: "Delete",
    danger: true,
  });
  if (!ok) return;
  try {
    await api.del(`/v1/documents/${doc.id}`);
    removeRow(doc.id);
  } catch (error) {
    notify(`Could not delete ${quoted(doc.name)}. ${describe(error)}`);
  }
}

/** Asks for a fresh signed URL (they expire; lists do not carry them) and follows it. */
export async function fetchPdf(doc, { download }) {
  try {
    const fresh = await api.get(`/v1/documents/${doc.id}`);
    const link = el("a", { href: api.sameOrigin(fresh.download_url), hidden: true });
    if (download) link.download = `${fresh.name}.pdf`;
    else Object.assign(link, { target: "_blank", rel: "noopener" });
    document.body.append(link);
    link.click();
    link.remove();
  } catch (error) {
    notify(`Could not ${download ? "download" : "open"} ${quoted(doc.name)}. ${describe(error)}`);
  }
}

const rowActions = {
  "doc-rename": (doc, row) => startRename(row, doc),
  "doc-move": async (doc) => {
    try {
      const target = await chooseFolder(doc);
      if (target !== null && target !== (doc.folder_id ?? "")) await moveDocument(doc, target);
    } catch (error) {
      notify(`Could not list the folders. ${describe(error)}`);
    }
  },
  "doc-delete": (doc) => deleteDocument(doc),
  "doc-download": (doc) => fetchPdf(doc, { download: true }),
  "doc-open": (doc) => fetchPdf(doc, { download: false }),
};

export function wireRows() {
  tbody.addEventListener("click", (event) => {
    const row = event.target.closest("tr[data-document-id]");
    const doc = row && docs.get(row.dataset.documentId);
    if (!doc) return;
    const button = event.target.closest("button");
    if (button) {
      const action = Object.keys(rowActions).find((name) => button.classList.contains(name));
      if (action) rowActions[action](doc, row);
      return;
    }
    if (!event.target.closest("input")) selectDocument(doc);
  });

  tbody.addEventListener("keydown", (event) => {
    if (event.target.matches("tr[data-document-id]") && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      const doc = docs.get(event.target.dataset.documentId);
      if (doc) selectDocument(doc);
    }
  });

  tbody.addEventListener("dragstart", (event) => {
    const row = event.target.closest?.("tr[data-document-id]");
    if (!row) return;
    event.dataTransfer.setData(DOC_MIME, row.dataset.documentId);
    event.dataTransfer.effectAllowed = "move";
    row.classList.add("dragging");
    treeRoot.classList.add("accepting");
  });
  tbody.addEventListener("dragend", (event) => {
    event.target.closest?.("tr")?.classList.remove("dragging");
    treeRoot.classList.remove("accepting");
    for (const button of $$(".drop-target", treeRoot)) button.classList.remove("drop-target");
  });
}
