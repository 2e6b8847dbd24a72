// The library: a lazily loaded folder tree, the current folder's documents a page at a time,
// the dialogs that change them, and the details of the selected document. Only loaded pages are
// in the DOM, so a folder of 100,000 documents costs what the user has scrolled through.

import * as api from "./api.js";
import { askFolderName, chooseFolder, confirmDialog, quoted, ROOT_LABEL, wireDialogs } from "./dialogs.js";
import { $, $$, debounce, el, formatBytes, formatDate, icon, iconButton, replaceChildren } from "./dom.js";

const PAGE_SIZE = 50;
const DOC_MIME = "application/x-pdfgate-document";
const byName = (a, b) => a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: "base" });
const folderLabel = (path) => path || ROOT_LABEL;

// MARK: - The library

/**
 * Builds the library over the static markup in index.html.
 * `notify(text)` shows an error; `onFolderChange({id, path})` follows the current folder.
 */
export function createLibrary({ notify, onFolderChange }) {
  const section = $("#library");
  const treeRoot = $("#folder-tree");
  const table = $("#documents");
  const tbody = $("tbody", table);
  const moreButton = $("#more");
  const searchInput = $("#search");
  const title = $("#library-title");
  const details = $("#details");
  const renameFolderButton = $("#rename-folder");
  const deleteFolderButton = $("#delete-folder");

  let current = { id: "", path: "" };
  let sort = { key: "name", descending: false };
  let query = "";
  let searchNote = ""; // under a search's rows: how many documents are still being read
  let queryRefused = ""; // why the search as typed cannot run (only "-word" so far)
  let cursor = null;
  let loading = false;
  let generation = 0;
  let listAbort = null;
  let selectedId = null;
  let detailsThumb = null;
  const docs = new Map(); // id → Document, for the rows in the table
  const hits = new Map(); // id → the search hit of its row (page, snippet) while searching
  const thumbs = new Map(); // img → object URL, revoked when its row goes

  wireDialogs();

  // MARK: Folder tree

  const nodes = new Map(); // folder id ("" for the root) → node
  let rootNode = null;

  function makeNode(folder) {
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
    if (node.id === current.id) node.button.setAttribute("aria-current", "true");
  }

  function forget(node) {
    for (const child of node.children ?? []) forget(child);
    nodes.delete(node.id);
  }

  /** (Re)loads a node's children, keeping the nodes (and their expansion) that are still there. */
  async function loadChildren(node) {
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

  async function expand(node, open = true) {
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
  async function refreshTree(node = rootNode) {
    if (!node || node.children === null) return;
    await loadChildren(node);
    for (const child of node.children) if (child.expanded) await refreshTree(child);
  }

  /** Opens the tree down to `path`, folder by folder. */
  async function expandTo(path) {
    let node = rootNode;
    const parts = path ? path.split("/") : [];
    for (let i = 0; i < parts.length && node; i += 1) {
      if (!node.expanded || node.children === null) await expand(node, true);
      const prefix = parts.slice(0, i + 1).join("/");
      node = node.children.find((child) => child.folder.path === prefix);
    }
    node?.button.scrollIntoView({ block: "nearest" });
  }

  function markCurrent() {
    for (const button of $$("button.folder[aria-current]", treeRoot)) button.removeAttribute("aria-current");
    nodes.get(current.id)?.button.setAttribute("aria-current", "true");
    renameFolderButton.disabled = current.id === "";
    deleteFolderButton.disabled = current.id === "";
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

  // MARK: Folder actions

  async function newFolder() {
    const name = await askFolderName({ title: `New folder in ${folderLabel(current.path)}`, ok: "Create" });
    if (!name) return;
    const parent = current;
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
    const node = nodes.get(current.id);
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
      if (current.id === updated.id) setCurrent(updated.id, updated.path);
      if (query) loadDocuments();
    } catch (error) {
      notify(`Could not rename ${quoted(folder.name)}. ${describe(error)}`);
    }
  }

  async function deleteFolder() {
    const node = nodes.get(current.id);
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
      const parent = nodes.get(folder.parent_id ?? "") ?? rootNode;
      forget(node);
      await loadChildren(parent);
      await openFolder(parent.id, parent.folder?.path ?? "");
    } catch (error) {
      notify(`Could not delete ${quoted(folder.name)}. ${describe(error)}`);
    }
  }

  // MARK: Documents

  function setCurrent(id, path) {
    current = { id, path };
    markCurrent();
    title.textContent = folderLabel(path);
    // The address remembers the folder, so a reload or a shared link comes back to it.
    const hash = path ? `#folder=${encodeURIComponent(path)}` : "";
    if (location.hash !== hash && !location.hash.startsWith("#document=")) history.replaceState(null, "", hash || location.pathname);
    onFolderChange?.(current);
  }

  /** The folder at `path` (looked up among its parent's children), or null. */
  async function findFolder(path) {
    const cut = path.lastIndexOf("/");
    const parent = cut < 0 ? undefined : path.slice(0, cut);
    const { folders } = await api.get("/v1/folders", { parent });
    return folders.find((folder) => folder.path === path) ?? null;
  }

  /** Shows a folder's documents (and, with `reveal`, opens the tree down to it). */
  async function openFolder(id, path, { reveal = false } = {}) {
    setCurrent(id, path);
    if (reveal) expandTo(path).then(markCurrent).catch(() => {});
    await loadDocuments();
  }

  function sortParam() {
    return sort.descending ? `-${sort.key}` : sort.key;
  }

  /** Loads the first page (replacing the rows) or, with `append`, the next one. */
  async function loadDocuments({ append = false } = {}) {
    if (append && (loading || !cursor)) return;
    if (!append) listAbort?.abort();
    const mine = append ? generation : ++generation;
    const controller = new AbortController();
    listAbort = controller;
    loading = true;
    document.body.dataset.library = "loading";
    table.setAttribute("aria-busy", "true");
    moreButton.disabled = true;
    moreButton.textContent = "Loading…";
    try {
      const page = await api.get(
        "/v1/documents",
        {
          folder: current.id || undefined,
          recursive: query ? true : undefined,
          q: query ? asTyped(query) : undefined,
          sort: query ? undefined : sortParam(),
          limit: PAGE_SIZE,
          cursor: append ? cursor : undefined,
        },
        { signal: controller.signal },
      );
      if (mine !== generation) return;
      if (!append) clearRows();
      for (const hit of page.hits ?? []) hits.set(hit.document_id, hit);
      tbody.append(...page.documents.map(makeRow));
      cursor = page.next_cursor ?? null;
      queryRefused = "";
      searchNote = query && page.search?.pending > 0
        ? `${page.search.pending} documents are still being read; they match by name until then.`
        : "";
      if (selectedId) tbody.querySelector(`tr[data-document-id="${CSS.escape(selectedId)}"]`)?.setAttribute("aria-selected", "true");
    } catch (error) {
      if (error.name === "AbortError" || mine !== generation) return;
      if (!append) {
        clearRows();
        cursor = null;
      }
      // A search that cannot run yet (only "-word" typed so far) says so in place, not as an alarm.
      if (error.code === "invalid_query") {
        queryRefused = error.message;
        return;
      }
      notify(`Could not list the documents in ${folderLabel(current.path)}. ${describe(error)}`);
    } finally {
      if (mine === generation && listAbort === controller) {
        loading = false;
        listAbort = null;
        table.removeAttribute("aria-busy");
        moreButton.disabled = false;
        moreButton.textContent = "Load more";
        moreButton.hidden = !cursor;
        renderEmptyState();
        document.body.dataset.library = "loaded";
        // What `pdfgate-bench page` times: navigation start to the first rows on screen.
        if (!append) performance.mark("pdfgate:library-loaded");
        requestAnimationFrame(loadMoreIfVisible);
      }
    }
  }

  /** Keeps loading while the "Load more" button is on screen (a tall window, a fast scroll). */
  function loadMoreIfVisible() {
    if (!cursor || loading || moreButton.hidden) return;
    if (moreButton.getBoundingClientRect().top < window.innerHeight + 400) loadDocuments({ append: true });
  }

  function renderEmptyState() {
    section.querySelector(".empty")?.remove();
    if (tbody.rows.length > 0) {
      if (query && searchNote) table.after(el("p", { class: "empty search-note", text: searchNote }));
      return;
    }
    let text = "No documents here yet — drop files in Convert, or drag documents here from another folder.";
    if (query && queryRefused) {
      text = queryRefused.charAt(0).toUpperCase() + queryRefused.slice(1) + ".";
    } else if (query) {
      text = `No document in ${folderLabel(current.path)} or its subfolders says ${quoted(query)}. Try other words, or search from ${ROOT_LABEL}. ${searchNote}`;
    }
    table.after(el("p", { class: "empty", text }));
  }

  /** What the box holds as a search: the last word typed so far matches as a prefix. */
  function asTyped(text) {
    const words = text.trim();
    const last = words.split(/\s+/).pop() ?? "";
    const open = (words.match(/"/g) ?? []).length % 2 === 1;
    if (open || last.startsWith("-") || last.endsWith("*") || last.endsWith('"') || !/^[\p{L}\p{N}]{3,}$/u.test(last)) return words;
    return words + "*";
  }

  /** The hit's page and its text around the match, the matching words marked. */
  function snippetOf(hit) {
    if (!hit || hit.matched_in !== "text" || !hit.snippet?.length) return null;
    return el(
      "span",
      { class: "doc-snippet" },
      hit.page ? el("span", { class: "doc-snippet-page", text: `p. ${hit.page}` }) : null,
      ...hit.snippet.map((segment) => (segment.match ? el("mark", { text: segment.text }) : document.createTextNode(segment.text))),
    );
  }

  function clearRows() {
    for (const url of thumbs.values()) URL.revokeObjectURL(url);
    thumbs.clear();
    thumbObserver.disconnect();
    docs.clear();
    hits.clear();
    tbody.replaceChildren();
  }

  function removeRow(id) {
    const row = rowOf(id);
    const img = row?.querySelector("img.doc-thumb");
    if (img && thumbs.has(img)) {
      URL.revokeObjectURL(thumbs.get(img));
      thumbs.delete(img);
    }
    row?.remove();
    docs.delete(id);
    if (selectedId === id) closeDetails();
    renderEmptyState();
  }

  const rowOf = (id) => tbody.querySelector(`tr[data-document-id="${CSS.escape(id)}"]`);

  function makeRow(doc) {
    docs.set(doc.id, doc);
    const thumb = el("img", { class: "doc-thumb", alt: "", width: 36, height: 48, decoding: "async", data: { documentId: doc.id } });
    thumbObserver.observe(thumb);
    const name = doc.name;
    return el(
      "tr",
      { draggable: true, tabIndex: 0, data: { documentId: doc.id }, attrs: { "aria-selected": String(doc.id === selectedId) } },
      el("td", { class: "cell-thumb" }, thumb),
      el(
        "td",
        { class: "cell-name" },
        el("span", { class: "doc-name", text: name }),
        query ? el("span", { class: "doc-folder", text: folderLabel(doc.folder) }) : null,
        query ? snippetOf(hits.get(doc.id)) : null,
      ),
      el("td", { class: "doc-pages num", text: String(doc.page_count) }),
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

  /** Swaps a row for a fresh one after a change, keeping its already loaded thumbnail. */
  function replaceRow(doc) {
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
    if (selectedId === doc.id) showDetails(doc);
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

  // MARK: Document actions

  /** Runs `attempt("fail")`; on a name clash asks, then retries with "rename". Null when declined. */
  async function withConflictChoice(attempt, clash) {
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

  async function moveDocument(doc, folderId) {
    try {
      const updated = await withConflictChoice(
        (onConflict) => api.patch(`/v1/documents/${doc.id}`, { folder_id: folderId || null, on_conflict: onConflict }),
        `The target folder already has a document named ${quoted(doc.name)}.`,
      );
      if (!updated) return;
      if (!query && (updated.folder_id ?? "") !== current.id) removeRow(doc.id);
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
  async function fetchPdf(doc, { download }) {
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

  // MARK: Details

  function selectDocument(doc) {
    selectedId = doc.id;
    for (const row of $$("tr[aria-selected=true]", tbody)) row.setAttribute("aria-selected", "false");
    const row = rowOf(doc.id);
    row?.setAttribute("aria-selected", "true");
    row?.scrollIntoView({ block: "nearest" });
    showDetails(doc);
  }

  function closeDetails() {
    selectedId = null;
    details.hidden = true;
    section.classList.remove("with-details");
    for (const row of $$("tr[aria-selected=true]", tbody)) row.setAttribute("aria-selected", "false");
    if (detailsThumb) URL.revokeObjectURL(detailsThumb);
    detailsThumb = null;
  }

  function showDetails(doc) {
    const meta = doc.metadata ?? {};
    const yesNo = (value) => (value === true ? "Yes" : value === false ? "No" : null);
    const pageSize =
      meta.page_width && meta.page_height
        ? `${Math.round((meta.page_width / 72) * 25.4)} × ${Math.round((meta.page_height / 72) * 25.4)} mm (${Math.round(meta.page_width)} × ${Math.round(meta.page_height)} pt)`
        : null;
    const fields = [
      ["Folder", folderLabel(doc.folder)],
      ["Pages", String(doc.page_count)],
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
        if (selectedId !== doc.id) return;
        detailsThumb = URL.createObjectURL(blob);
        preview.src = detailsThumb;
      })
      .catch(() => preview.classList.add("thumb-missing"))
      .finally(() => previous && URL.revokeObjectURL(previous));
  }

  details.addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeDetails();
  });

  // MARK: Sorting, search, paging

  for (const button of $$("thead button[data-sort]", table)) {
    button.addEventListener("click", () => {
      const key = button.dataset.sort;
      sort = { key, descending: sort.key === key ? !sort.descending : false };
      for (const th of $$("thead th", table)) th.removeAttribute("aria-sort");
      button.closest("th").setAttribute("aria-sort", sort.descending ? "descending" : "ascending");
      loadDocuments();
    });
  }

  const search = debounce(() => {
    const next = searchInput.value.trim();
    if (next === query) return;
    query = next;
    section.classList.toggle("searching", Boolean(query));
    loadDocuments();
  }, 250);
  searchInput.addEventListener("input", search);

  moreButton.addEventListener("click", () => loadDocuments({ append: true }));
  new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) loadDocuments({ append: true });
  }, { rootMargin: "400px" }).observe(moreButton);

  $("#new-folder").addEventListener("click", newFolder);
  renameFolderButton.addEventListener("click", renameFolder);
  deleteFolderButton.addEventListener("click", deleteFolder);

  // MARK: Public surface

  const refreshSoon = debounce(() => {
    loadDocuments();
    refreshTree().catch(() => {});
  }, 300);

  return {
    /** Builds the tree's root and shows the root's documents. */
    async start() {
      rootNode = makeNode(null);
      treeRoot.replaceChildren(rootNode.li);
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
      listAbort?.abort();
      generation += 1;
      closeDetails();
      clearRows();
      section.querySelector(".empty")?.remove();
      nodes.clear();
      treeRoot.replaceChildren();
      searchInput.value = "";
      query = "";
      cursor = null;
      loading = false;
      moreButton.hidden = true;
    },

    /** Goes to a document's folder, selects it and shows its details. */
    async reveal(documentId) {
      try {
        const doc = await api.get(`/v1/documents/${documentId}`);
        searchInput.value = "";
        query = "";
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
      const here = folderId !== undefined ? (folderId ?? "") === current.id : (folder ?? "").replace(/^\/+|\/+$/g, "") === current.path;
      if (here || query) refreshSoon();
      else refreshTree().catch(() => {});
    },

    currentFolder: () => current,
  };
}

/** The server's words and its code, for a notice. */
export function describe(error) {
  if (!(error instanceof api.ApiError)) return "Something unexpected went wrong; reload the page and try again.";
  if (error.code === "network") return error.message;
  const message = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
  return `${message.charAt(0).toUpperCase()}${message.slice(1)} (${error.code})`;
}
