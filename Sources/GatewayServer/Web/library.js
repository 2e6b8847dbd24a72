// The library: the folder tree, the current folder's documents, search, the dialogs that
// change them, and the details of the selected document. Each is a module of its own; this one
// wires them over the static markup in index.html and is what the rest of the page talks to.

import * as api from "./api.js";
import { wireDialogs } from "./dialogs.js";
import { $, debounce } from "./dom.js";
import { wireRows } from "./library-actions.js";
import { closeDetails, selectDocument, wireDetails } from "./library-details.js";
import { wireFolderTools } from "./library-folders.js";
import { findFolder, loadDocuments, openFolder, resetPaging, setCurrent, stopListing, wireList } from "./library-list.js";
import { clearRows, rowOf } from "./library-rows.js";
import { clearSearch, wireSearch } from "./library-search.js";
import { docs, state } from "./library-state.js";
import { clearTree, expand, expandTo, markCurrent, plantTree, refreshTree } from "./library-tree.js";
import { describe, notify } from "./notice.js";

/** Builds the library; `onFolderChange({id, path})` follows the current folder. */
export function createLibrary({ onFolderChange }) {
  const section = $("#library");
  state.onFolderChange = onFolderChange;

  wireDialogs();
  wireRows();
  wireDetails();
  wireList();
  wireSearch();
  wireFolderTools();

  const refreshSoon = debounce(() => {
    loadDocuments();
    refreshTree().catch(() => {});
  }, 300);

  return {
    /** Builds the tree's root and shows the root's documents (or the linked folder's). */
    async start() {
      const rootNode = plantTree();
      const linked = /^#folder=(.+)$/.exec(location.hash);
      const folder = linked ? await findFolder(decodeURIComponent(linked[1])).catch(() => null) : null;
      setCurrent(folder?.id ?? "", folder?.path ?? "");
      await Promise.all([
        expand(rootNode, true)
          .then(() => folder && expandTo(folder.path).then(markCurrent))
          .catch((error) => notify(`Could not list the folders. ${describe(error)}`)),
        loadDocuments(),
      ]);
    },

    /** Forgets everything shown (signing out). */
    clear() {
      stopListing();
      closeDetails();
      clearRows();
      section.querySelector(".empty")?.remove();
      clearTree();
      clearSearch();
      resetPaging();
    },

    /** Goes to a document's folder, selects it and shows its details. */
    async reveal(documentId) {
      try {
        const doc = await api.get(`/v1/documents/${documentId}`);
        clearSearch();
        section.classList.remove("searching");
        await openFolder(doc.folder_id ?? "", doc.folder ?? "", { reveal: true });
        selectDocument(docs.get(doc.id) ?? doc);
        rowOf(doc.id)?.focus();
      } catch (error) {
        notify(`Could not show the document. ${describe(error)}`);
      }
    },

    /** A job filed a document: refresh what is on screen if it could be there. */
    documentFiled({ folderId, folder }) {
      const here = folderId !== undefined ? (folderId ?? "") === state.current.id : (folder ?? "").replace(/^\/+|\/+$/g, "") === state.current.path;
      if (here || state.query) refreshSoon();
      else refreshTree().catch(() => {});
    },

    currentFolder: () => state.current,
  };
}
