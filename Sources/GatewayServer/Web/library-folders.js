// The folder tools above the tree: a new folder in the current one, and renaming or deleting
// the current folder, each asked in a dialog first.

import * as api from "./api.js";
import { askFolderName, confirmDialog, quoted, withConflictChoice } from "./dialogs.js";
import { $ } from "./dom.js";
import { loadDocuments, openFolder, setCurrent } from "./library-list.js";
import { folderLabel, nodes, state } from "./library-state.js";
import { expand, forget, loadChildren, refreshTree } from "./library-tree.js";
import { describe, notify } from "./notice.js";

async function newFolder() {
  const name = await askFolderName({ title: `New folder in ${folderLabel(state.current.path)}`, ok: "Create" });
  if (!name) return;
  const parent = state.current;
  try {
    const folder = await api.post("/v1/folders", { name, parent_id: parent.id || null });
    const node = nodes.get(parent.id);
    if (node) {
      await loadChildren(node);
      await expand(node, true);
      nodes.get(folder.id)?.button.focus();
    } else {
      await refreshTree();
    }
  } catch (error) {
    notify(`Could not create the folder ${quoted(name)}. ${describe(error)}`);
  }
}

async function renameFolder() {
  const node = nodes.get(state.current.id);
  const folder = node?.folder;
  if (!folder) return;
  const name = await askFolderName({ title: `Rename ${quoted(folder.name)}`, value: folder.name, ok: "Rename" });
  if (!name || name === folder.name) return;
  try {
    const updated = await withConflictChoice(
      (onConflict) => api.patch(`/v1/folders/${folder.id}`, { name, on_conflict: onConflict }),
      `A folder named ${quoted(name)} is already there.`,
    );
    if (!updated) return;
    // Every path below it changed: forget the loaded subtree rather than patch it.
    for (const child of node.children ?? []) forget(child);
    node.children = null;
    node.folder = updated;
    await expand(node, false);
    const parent = nodes.get(updated.parent_id ?? "");
    if (parent) await loadChildren(parent);
    if (state.current.id === updated.id) setCurrent(updated.id, updated.path);
    if (state.query) loadDocuments();
  } catch (error) {
    notify(`Could not rename ${quoted(folder.name)}. ${describe(error)}`);
  }
}

async function deleteFolder() {
  const node = nodes.get(state.current.id);
  const folder = node?.folder;
  if (!folder) return;
  try {
    // Look before asking, so the question says what will be lost.
    const [sub, inside] = await Promise.all([
      api.get("/v1/folders", { parent: folder.id }),
      api.get("/v1/documents", { folder: folder.id, recursive: true, limit: 1 }),
    ]);
    const empty = sub.folders.length === 0 && inside.documents.length === 0;
    const ok = await confirmDialog({
      title: `Delete ${quoted(folder.name)}?`,
      text: empty
        ? `The folder ${folder.path} is empty. It will be removed.`
        : `${folder.path} is not empty: its subfolders and every document in them will be deleted too. This cannot be undone.`,
      ok: empty ? "Delete folder" : "Delete everything",
      danger: true,
    });
    if (!ok) return;
    await api.del(`/v1/folders/${folder.id}`, { recursive: empty ? undefined : true });
    const parent = nodes.get(folder.parent_id ?? "") ?? state.rootNode;
    forget(node);
    await loadChildren(parent);
    await openFolder(parent.id, parent.folder?.path ?? "");
  } catch (error) {
    notify(`Could not delete ${quoted(folder.name)}. ${describe(error)}`);
  }
}

export function wireFolderTools() {
  $("#new-folder").addEventListener("click", newFolder);
  $("#rename-folder").addEventListener("click", renameFolder);
  $("#delete-folder").addEventListener("click", deleteFolder);
}
