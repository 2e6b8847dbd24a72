// The folder tree (#folder-tree): loaded a level at a time as folders are opened, kept in step
// with the server, and a drop target for document rows dragged onto a folder.

import * as api from "./api.js";
import { ROOT_LABEL } from "./dialogs.js";
import { $, $$, el, icon } from "./dom.js";
import { moveDocument } from "./library-actions.js";
import { openFolder } from "./library-list.js";
import { byName, DOC_MIME, docs, folderLabel, nodes, state } from "./library-state.js";
import { describe, notify } from "./notice.js";

const treeRoot = $("#folder-tree");
const renameFolderButton = $("#rename-folder");
const deleteFolderButton = $("#delete-folder");

export function makeNode(folder) {
  const id = folder?.id ?? "";
  const node = { id, folder, children: null, expanded: false };
  node.twisty = el("button", { type: "button", class: "twisty", attrs: { "aria-expanded": "false" }, on: { click: () => toggle(node) } }, icon("chevron"));
  node.label = el("span", { class: "folder-label" });
  node.button = el("button", { type: "button", class: "folder", on: { click: () => openFolder(node.id, node.folder?.path ?? "") } }, icon("folder"), node.label);
  node.list = el("ul", { hidden: true, attrs: { role: "group" } });
  node.li = el("li", {}, el("div", { class: "folder-row" }, node.twisty, node.button), node.list);
  for (const type of ["dragenter", "dragover"]) node.button.addEventListener(type, (event) => dragOver(event, node));
  node.button.addEventListener("dragleave", () => node.button.classList.remove("drop-target"));
  node.button.addEventListener("drop", (event) => dropOn(event, node));
  label(node);
  nodes.set(id, node);
  return node;
}

function label(node) {
  const name = node.folder?.name ?? ROOT_LABEL;
  node.label.textContent = name;
  node.button.dataset.folderId = node.id;
  node.button.dataset.folderPath = node.folder?.path ?? "";
  node.twisty.setAttribute("aria-label", `${node.expanded ? "Hide" : "Show"} folders in ${name}`);
  if (node.id === state.current.id) node.button.setAttribute("aria-current", "true");
}

/** Drops a node and everything loaded below it. */
export function forget(node) {
  for (const child of node.children ?? []) forget(child);
  nodes.delete(node.id);
}

/** (Re)loads a node's children, keeping the nodes (and their expansion) that are still there. */
export async function loadChildren(node) {
  const { folders } = await api.get("/v1/folders", { parent: node.id || undefined });
  folders.sort(byName);
  const present = new Set(folders.map((folder) => folder.id));
  for (const child of node.children ?? []) if (!present.has(child.id)) forget(child);
  node.children = folders.map((folder) => {
    const existing = nodes.get(folder.id);
    if (!existing) return makeNode(folder);
    existing.folder = folder;
    label(existing);
    return existing;
  });
  node.list.replaceChildren(...node.children.map((child) => child.li));
  node.li.classList.toggle("leaf", node.children.length === 0);
}

export async function expand(node, open = true) {
  if (open && node.children === null) await loadChildren(node);
  node.expanded = open;
  node.list.hidden = !open;
  node.twisty.setAttribute("aria-expanded", String(open));
  label(node);
}

function toggle(node) {
  expand(node, !node.expanded).catch((error) => notify(`Could not list the folders in ${folderLabel(node.folder?.path)}. ${describe(error)}`));
}

/** Reloads every expanded folder's children: new folders (filed jobs, other tabs) appear. */
export async function refreshTree(node = state.rootNode) {
  if (!node || node.children === null) return;
  await loadChildren(node);
  for (const child of node.children) if (child.expanded) await refreshTree(child);
}

/** Opens the tree down to `path`, folder by folder. */
export async function expandTo(path) {
  let node = state.rootNode;
  const parts = path ? path.split("/") : [];
  for (let i = 0; i < parts.length && node; i += 1) {
    if (!node.expanded || node.children === null) await expand(node, true);
    const prefix = parts.slice(0, i + 1).join("/");
    node = node.children.find((child) => child.folder.path === prefix);
  }
  node?.button.scrollIntoView({ block: "nearest" });
}

/** Marks the current folder in the tree; the root can be neither renamed nor deleted. */
export function markCurrent() {
  for (const button of $$("button.folder[aria-current]", treeRoot)) button.removeAttribute("aria-current");
  nodes.get(state.current.id)?.button.setAttribute("aria-current", "true");
  renameFolderButton.disabled = state.current.id === "";
  deleteFolderButton.disabled = state.current.id === "";
}

/** Builds the tree's root node, which stands for the library's top level. */
export function plantTree() {
  state.rootNode = makeNode(null);
  treeRoot.replaceChildren(state.rootNode.li);
  return state.rootNode;
}

/** Forgets every node (signing out). */
export function clearTree() {
  nodes.clear();
  treeRoot.replaceChildren();
}

function dragOver(event, node) {
  if (!event.dataTransfer?.types.includes(DOC_MIME)) return;
  event.preventDefault(); // accepting the drop
  event.dataTransfer.dropEffect = "move";
  node.button.classList.add("drop-target");
}

function dropOn(event, node) {
  node.button.classList.remove("drop-target");
  const id = event.dataTransfer?.getData(DOC_MIME);
  if (!id) return;
  event.preventDefault();
  const doc = docs.get(id);
  if (!doc || (doc.folder_id ?? "") === node.id) return;
  moveDocument(doc, node.id);
}
