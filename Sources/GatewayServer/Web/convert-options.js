// The convert panel's page options (paper, margin, landscape, backgrounds, and the scan options
// for photos of pages), remembered in this browser between visits.

import { $, el } from "./dom.js";

const PAPERS = {
  a4: { label: "A4", width: 8.27, height: 11.69 },
  letter: { label: "Letter", width: 8.5, height: 11 },
  legal: { label: "Legal", width: 8.5, height: 14 },
  a3: { label: "A3", width: 11.69, height: 16.54 },
  a5: { label: "A5", width: 5.83, height: 8.27 },
};
const OPTIONS_KEY = "pdfgate.convert-options"; // remembered choices only, nothing secret

/** Page images: the server makes them a scan (SCAN_TO_PDF), which alone takes the scan options. */
const IMAGE_EXTENSIONS = new Set(["jpg", "jpeg", "jpe", "png", "tif", "tiff", "webp", "heic", "heif"]);
const isImage = (name) => IMAGE_EXTENSIONS.has(name.split(".").pop().toLowerCase());

const paper = $("#paper");
const landscape = $("#landscape");
const margin = $("#margin");
const backgrounds = $("#backgrounds");
const deskew = $("#deskew");
const autoRotate = $("#auto-rotate");
const ocr = $("#ocr");

/** The options every job of one Convert press shares. */
export function readOptions() {
  const size = PAPERS[paper.value] ?? PAPERS.a4;
  const options = { paper_width: size.width, paper_height: size.height, landscape: landscape.checked, print_background: backgrounds.checked };
  const inches = margin.valueAsNumber;
  if (margin.value !== "" && Number.isFinite(inches) && inches >= 0) options.margin = inches;
  return options;
}

/** The options of a job whose inputs are `files`: the scan's only when one is a page image. */
export function optionsFor(files, options) {
  if (!files.some((file) => isImage(file.name))) return options;
  const scan = { ...options };
  if (deskew.checked) scan.deskew = true;
  if (autoRotate.checked) scan.auto_rotate = true;
  if (ocr.checked) scan.ocr = true;
  return scan;
}

function saveOptions() {
  const saved = {
    paper: paper.value,
    landscape: landscape.checked,
    margin: margin.value,
    backgrounds: backgrounds.checked,
    deskew: deskew.checked,
    autoRotate: autoRotate.checked,
    ocr: ocr.checked,
  };
  try {
    localStorage.setItem(OPTIONS_KEY, JSON.stringify(saved));
  } catch {
    // Storage can be full or disabled; the choices then last for this page only.
  }
}

function restoreOptions() {
  let saved = null;
  try {
    saved = JSON.parse(localStorage.getItem(OPTIONS_KEY) ?? "null");
  } catch {
    saved = null;
  }
  paper.value = saved?.paper in PAPERS ? saved.paper : "a4";
  landscape.checked = Boolean(saved?.landscape);
  margin.value = typeof saved?.margin === "string" ? saved.margin : "";
  backgrounds.checked = saved ? Boolean(saved.backgrounds) : true;
  deskew.checked = Boolean(saved?.deskew);
  autoRotate.checked = Boolean(saved?.autoRotate);
  ocr.checked = Boolean(saved?.ocr);
}

/** Fills the paper list, shows the remembered choices and remembers each change. */
export function wireOptions() {
  for (const [value, { label, width, height }] of Object.entries(PAPERS)) {
    paper.append(el("option", { value, text: `${label} (${width} × ${height} in)` }));
  }
  restoreOptions();
  for (const input of [paper, landscape, margin, backgrounds, deskew, autoRotate, ocr]) input.addEventListener("change", saveOptions);
}
