// The current folder's documents (#documents): listed a page at a time, sorted by a column,
// with "Load more" (and scrolling near it) fetching the next page. Only loaded pages are in the
// DOM, so a folder of 100,000 documents costs what the user has scrolled through.

import * as api from "./api.js";
import { quoted, ROOT_LABEL } from "./dialogs.js";
import { $, $$, el } from "./dom.js";
import { clearRows, makeRow } from "./library-rows.js";
import { asTyped } from "./library-search.js";
import { folderLabel, hits, PAGE_SIZE, state } from "./library-state.js";
import { expandTo, markCurrent } from "./library-tree.js";
import { describe, notify } from "./notice.js";

const section = $("#library");
const table = $("#documents");
const tbody = $("tbody", table);
const moreButton = $("#more");
const title = $("#library-title");

export function setCurrent(id, path) {
  state.current = { id, path };
  markCurrent();
  title.textContent = folderLabel(path);
  // The address remembers the folder, so a reload or a shared link comes back to it.
  const hash = path ? `#folder=${encodeURIComponent(path)}` : "";
  if (location.hash !== hash && !location.hash.startsWith("#document=")) history.replaceState(null, "", hash || location.pathname);
  state.onFolderChange?.(state.current);
}

/** The folder at `path` (looked up among its parent's children), or null. */
export async function findFolder(path) {
  const cut = path.lastIndexOf("/");
  const parent = cut < 0 ? undefined : path.slice(0, cut);
  const { folders } = await api.get("/v1/folders", { parent });
  return folders.find((folder) => folder.path === path) ?? null;
}

/** Shows a folder's documents (and, with `reveal`, opens the tree down to it). */
export async function openFolder(id, path, { reveal = false } = {}) {
  setCurrent(id, path);
  if (reveal) expandTo(path).then(markCurrent).catch(() => {});
  await loadDocuments();
}

function sortParam() {
  return state.sort.descending ? `-${state.sort.key}` : state.sort.key;
}

/** Loads the first page (replacing the rows) or, with `append`, the next one. */
export async function loadDocuments({ append = false } = {}) {
  if (append && (state.loading || !state.cursor)) return;
  if (!append) state.listAbort?.abort();
  const mine = append ? state.generation : ++state.generation;
  const controller = new AbortController();
  state.listAbort = controller;
  state.loading = true;
  document.body.dataset.library = "loading";
  table.setAttribute("aria-busy", "true");
  moreButton.disabled = true;
  moreButton.textContent = "Loading…";
  const { query } = state;
  try {
    const page = await api.get(
      "/v1/documents",
      {
        folder: state.current.id || undefined,
        recursive: query ? true : undefined,
        q: query ? asTyped(query) : undefined,
        sort: query ? undefined : sortParam(),
        limit: PAGE_SIZE,
        cursor: append ? state.cursor : undefined,
      },
      { signal: controller.signal },
    );
    if (mine !== state.generation) return;
    if (!append) clearRows();
    for (const hit of page.hits ?? []) hits.set(hit.document_id, hit);
    tbody.append(...page.documents.map(makeRow));
    state.cursor = page.next_cursor ?? null;
    state.queryRefused = "";
    state.searchNote = state.query && page.search?.pending > 0
      ? `${page.search.pending} documents are still being read; they match by name until then.`
      : "";
    if (state.selectedId) tbody.querySelector(`tr[data-document-id="${CSS.escape(state.selectedId)}"]`)?.setAttribute("aria-selected", "true");
  } catch (error) {
    if (error.name === "AbortError" || mine !== state.generation) return;
    if (!append) {
      clearRows();
      state.cursor = null;
    }
    // A search that cannot run yet (only "-word" typed so far) says so in place, not as an alarm.
    if (error.code === "invalid_query") {
      state.queryRefused = error.message;
      return;
    }
    notify(`Could not list the documents in ${folderLabel(state.current.path)}. ${describe(error)}`);
  } finally {
    if (mine === state.generation && state.listAbort === controller) {
      state.loading = false;
      state.listAbort = null;
      table.removeAttribute("aria-busy");
      moreButton.disabled = false;
      moreButton.textContent = "Load more";
      moreButton.hidden = !state.cursor;
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
  if (!state.cursor || state.loading || moreButton.hidden) return;
  if (moreButton.getBoundingClientRect().top < window.innerHeight + 400) loadDocuments({ append: true });
}

/** Under the table: why it is empty, or, for a search, what is still being read. */
export function renderEmptyState() {
  section.querySelector(".empty")?.remove();
  const { query, queryRefused, searchNote } = state;
  if (tbody.rows.length > 0) {
    if (query && searchNote) table.after(el("p", { class: "empty search-note", text: searchNote }));
    return;
  }
  let text = "No documents here yet — drop files in Convert, or drag documents here from another folder.";
  if (query && queryRefused) {
    text = queryRefused.charAt(0).toUpperCase() + queryRefused.slice(1) + ".";
  } else if (query) {
    text = `No document in ${folderLabel(state.current.path)} or its subfolders says ${quoted(query)}. Try other words, or search from ${ROOT_LABEL}. ${searchNote}`;
  }
  table.after(el("p", { class: "empty", text }));
}

/** Stops listing and hides the pager (signing out). */
export function stopListing() {
  state.listAbort?.abort();
  state.generation += 1;
}

export function resetPaging() {
  state.cursor = null;
  state.loading = false;
  moreButton.hidden = true;
}

export function wireList() {
  for (const button of $$("thead button[data-sort]", table)) {
    button.addEventListener("click", () => {
      const key = button.dataset.sort;
      state.sort = { key, descending: state.sort.key === key ? !state.sort.descending : false };
      for (const th of $$("thead th", table)) th.removeAttribute("aria-sort");
      button.closest("th").setAttribute("aria-sort", state.sort.descending ? "descending" : "ascending");
      loadDocuments();
    });
  }
  moreButton.addEventListener("click", () => loadDocuments({ append: true }));
  new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) loadDocuments({ append: true });
  }, { rootMargin: "400px" }).observe(moreButton);
}
