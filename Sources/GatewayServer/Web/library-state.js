// What the library's modules share: the folder on screen, how its documents are listed, what is
// loaded, and the folder tree's nodes. One object they all read and change, so no module keeps
// a copy that could go stale.

import { ROOT_LABEL } from "./dialogs.js";

export const PAGE_SIZE = 50;
/** The drag type of a document row, so only rows (not files from the desktop) drop on folders. */
export const DOC_MIME = "application/x-pdfgate-document";
export const byName = (a, b) => a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: "base" });
export const folderLabel = (path) => path || ROOT_LABEL;

export const state = {
  /** The folder shown: its id ("" for the root) and path. */
  current: { id: "", path: "" },
  sort: { key: "name", descending: false },
  /** The search as typed (trimmed); empty when listing the folder. */
  query: "",
  /** Under a search's rows: how many documents are still being read. */
  searchNote: "",
  /** Why the search as typed cannot run (only "-word" so far). */
  queryRefused: "",
  /** The next page's cursor; null when the last page is on screen. */
  cursor: null,
  loading: false,
  /** Bumped by every fresh listing, so a slower, older answer is dropped. */
  generation: 0,
  listAbort: null,
  selectedId: null,
  /** The tree's root node, once the library has started. */
  rootNode: null,
  /** Told `{id, path}` whenever the current folder changes. */
  onFolderChange: null,
};

/** id → Document, for the rows in the table. */
export const docs = new Map();
/** id → the search hit of its row (page, snippet) while searching. */
export const hits = new Map();
/** Folder id ("" for the root) → its node in the tree. */
export const nodes = new Map();
