// The search box (#search): words looked for in what the documents in the current folder and
// its subfolders say, as the user types; a hit's row shows the page and the words around it.

import { $, debounce, el } from "./dom.js";
import { loadDocuments } from "./library-list.js";
import { state } from "./library-state.js";

const section = $("#library");
const searchInput = $("#search");

/** What the box holds as a search: the last word typed so far matches as a prefix. */
export function asTyped(text) {
  const words = text.trim();
  const last = words.split(/\s+/).pop() ?? "";
  const open = (words.match(/"/g) ?? []).length % 2 === 1;
  if (open || last.startsWith("-") || last.endsWith("*") || last.endsWith('"') || !/^[\p{L}\p{N}]{3,}$/u.test(last)) return words;
  return words + "*";
}

/** The hit's page and its text around the match, the matching words marked. */
export function snippetOf(hit) {
  if (!hit || hit.matched_in !== "text" || !hit.snippet?.length) return null;
  return el(
    "span",
    { class: "doc-snippet" },
    hit.page ? el("span", { class: "doc-snippet-page", text: `p. ${hit.page}` }) : null,
    ...hit.snippet.map((segment) => (segment.match ? el("mark", { text: segment.text }) : document.createTextNode(segment.text))),
  );
}

/** Empties the box and forgets the search; the next listing is the folder's. */
export function clearSearch() {
  searchInput.value = "";
  state.query = "";
}

export function wireSearch() {
  const search = debounce(() => {
    const next = searchInput.value.trim();
    if (next === state.query) return;
    state.query = next;
    section.classList.toggle("searching", Boolean(state.query));
    loadDocuments();
  }, 250);
  searchInput.addEventListener("input", search);
}
