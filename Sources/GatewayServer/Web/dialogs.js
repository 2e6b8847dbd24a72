// The library's modal dialogs (<dialog> elements in index.html): a yes/no confirmation (and the
// "keep both?" question a name clash asks), a folder name, and the folder a document moves to.
// Each resolves a promise when it closes, so the library's actions read top to bottom.

import * as api from "./api.js";
import { $, el, replaceChildren } from "./dom.js";

export const ROOT_LABEL = "Library";
export const quoted = (name) => `“${name}”`;

/** Asks a yes/no question in #confirm-dialog; resolves true for the OK button. */
export function confirmDialog({ title = "Are you sure?", text, ok = "OK", danger = false }) {
  const dialog = $("#confirm-dialog");
  if (dialog.open) dialog.close("cancel");
  $(".confirm-title", dialog).textContent = title;
  $(".confirm-text", dialog).textContent = text;
  const okButton = $("#confirm-ok", dialog);
  okButton.textContent = ok;
  okButton.classList.toggle("danger", danger);
  return showDialog(dialog, danger ? $("#confirm-cancel", dialog) : okButton).then((value) => value === "ok");
}

/** Runs `attempt("fail")`; on a name clash asks, then retries with "rename". Null when declined. */
export async function withConflictChoice(attempt, clash) {
  try {
    return await attempt("fail");
  } catch (error) {
    if (error.code !== "name_conflict") throw error;
    const keepBoth = await confirmDialog({
      title: "That name is taken",
      text: `${clash} Keep both? The new one gets a numbered name, like “Name 01”.`,
      ok: "Keep both",
    });
    return keepBoth ? attempt("rename") : null;
  }
}

function showDialog(dialog, focus) {
  dialog.returnValue = "";
  dialog.showModal();
  focus?.focus();
  return new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue), { once: true }));
}

/** Asks for a folder name in #folder-dialog; resolves the trimmed name, or null. */
export function askFolderName({ title, value = "", ok }) {
  const dialog = $("#folder-dialog");
  const input = $("#folder-name", dialog);
  $(".dialog-title", dialog).textContent = title;
  $("#folder-ok", dialog).textContent = ok;
  input.value = value;
  const answer = showDialog(dialog, input);
  input.select();
  return answer.then((result) => (result === "ok" && input.value.trim() ? input.value.trim() : null));
}

/** Lets the user pick a folder for `doc` in #move-dialog; resolves a folder id ("" = root) or null. */
export async function chooseFolder(doc) {
  const { folders } = await api.get("/v1/folders", { recursive: true });
  const dialog = $("#move-dialog");
  const select = $("#move-target", dialog);
  folders.sort((a, b) => a.path.localeCompare(b.path, undefined, { numeric: true, sensitivity: "base" }));
  replaceChildren(
    select,
    el("option", { value: "", text: `${ROOT_LABEL} (top level)` }),
    folders.map((folder) => el("option", { value: folder.id, text: folder.path })),
  );
  select.value = doc.folder_id ?? "";
  $(".dialog-title", dialog).textContent = `Move ${quoted(doc.name)}`;
  const result = await showDialog(dialog, select);
  return result === "ok" ? select.value : null;
}

export function wireDialogs() {
  const confirm = $("#confirm-dialog");
  $("#confirm-ok", confirm).addEventListener("click", () => confirm.close("ok"));
  $("#confirm-cancel", confirm).addEventListener("click", () => confirm.close("cancel"));
  for (const dialog of [$("#folder-dialog"), $("#move-dialog")]) {
    // Submitting closes the dialog in script; the form never navigates (form-action stays unused).
    $("form", dialog).addEventListener("submit", (event) => {
      event.preventDefault();
      dialog.close("ok");
    });
    $(".dialog-cancel", dialog).addEventListener("click", () => dialog.close("cancel"));
  }
}
