// Small DOM and formatting helpers. Everything the page shows is built here from elements and
// text nodes, so data from the server can never become markup.

/**
 * Creates an element. `props` keys: `class`, `text`, `data` (dataset), `attrs` (attributes),
 * `on` (event listeners); any other key is set as a property (type, value, hidden, title…).
 * Children may be nodes or strings (strings become text nodes); null/false are skipped.
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "data") Object.assign(node.dataset, value);
    else if (key === "attrs") for (const [name, v] of Object.entries(value)) node.setAttribute(name, v);
    else if (key === "on") for (const [type, fn] of Object.entries(value)) node.addEventListener(type, fn);
    else node[key] = value;
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

/** Replaces all children of `node`. */
export function replaceChildren(node, ...children) {
  node.replaceChildren();
  append(node, children);
}

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

// Stroke icons on a 24×24 grid; SVG built with createElementNS stays inside the CSP.
const ICONS = {
  rename: "M4 20h4L19 9l-4-4L4 16v4z M14 6l4 4",
  move: "M3 6h6l2 2h10v11H3z M10 13.5h7 M14 10.5l3 3-3 3",
  delete: "M4 7h16 M9 7V4h6v3 M6 7l1 13h10l1-13 M10 11v6 M14 11v6",
  download: "M12 4v11 M7 10l5 5 5-5 M5 20h14",
  open: "M14 4h6v6 M20 4l-9 9 M18 14v6H4V6h6",
  folder: "M3 6h6l2 2h10v11H3z",
  chevron: "M9 6l6 6-6 6",
  close: "M6 6l12 12 M18 6L6 18",
  file: "M6 3h8l4 4v14H6z M14 3v4h4",
};

/** An inline SVG icon, hidden from assistive technology (its button carries the label). */
export function icon(name) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "icon");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", ICONS[name]);
  svg.append(path);
  return svg;
}

/** An icon-only button with an accessible name (also shown as a tooltip). */
export function iconButton(name, label, className, onClick) {
  const button = el("button", { type: "button", class: `icon-button ${className}`, title: label, attrs: { "aria-label": label } }, icon(name));
  if (onClick) button.addEventListener("click", onClick);
  return button;
}

export function formatBytes(bytes) {
  if (!Number.isFinite(bytes)) return "";
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toLocaleString(undefined, { maximumFractionDigits: value < 10 ? 1 : 0 })} ${units[unit]}`;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** A locale date for an RFC 3339 string; empty for missing or unparsable input. */
export function formatDate(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : dateFormat.format(date);
}

export function formatElapsed(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
}

export function debounce(fn, ms) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

export const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
  });

/** Runs at most `max` tasks at once; extra calls wait their turn (uploads share the pipe). */
export function limiter(max) {
  let active = 0;
  const waiting = [];
  const next = () => {
    if (active >= max || waiting.length === 0) return;
    active += 1;
    const { task, resolve, reject } = waiting.shift();
    task().then(resolve, reject).finally(() => { active -= 1; next(); });
  };
  return (task) => new Promise((resolve, reject) => { waiting.push({ task, resolve, reject }); next(); });
}
