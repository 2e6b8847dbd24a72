// The convert panel: files and URLs in, one live job item each. File jobs take three steps
// (create → PUT to the signed upload URL → submit); URL jobs are queued at once. With "merge",
// everything goes in one multipart create: one job whose inputs are merged in order. Each job is
// then followed over its SSE stream until it reaches a terminal status.

import * as api from "./api.js";
import { $, el, formatBytes, formatElapsed, limiter, sleep } from "./dom.js";

const PAPERS = {
  a4: { label: "A4", width: 8.27, height: 11.69 },
  letter: { label: "Letter", width: 8.5, height: 11 },
  legal: { label: "Legal", width: 8.5, height: 14 },
  a3: { label: "A3", width: 11.69, height: 16.54 },
  a5: { label: "A5", width: 5.83, height: 8.27 },
};
const TERMINAL = new Set(["SUCCEEDED", "FAILED", "CANCELLED"]);
const OPTIONS_KEY = "pdfgate.convert-options"; // remembered choices only, nothing secret

/** Page images: the server makes them a scan (SCAN_TO_PDF), which alone takes the scan options. */
const IMAGE_EXTENSIONS = new Set(["jpg", "jpeg", "jpe", "png", "tif", "tiff", "webp", "heic", "heif"]);
const isImage = (name) => IMAGE_EXTENSIONS.has(name.split(".").pop().toLowerCase());

/** A job's item in #jobs, from the first click to its terminal status. */
class JobItem {
  constructor(titleText, { onCancel, onOpen, onSettle }) {
    this.onSettle = onSettle;
    this.startedAt = performance.now();
    this.finishedAt = null;
    this.job = null;
    this.title = el("span", { class: "job-title", text: titleText, title: titleText });
    this.status = el("span", { class: "job-status", attrs: { "aria-live": "polite" } });
    this.phase = el("span", { class: "job-phase", text: "starting" });
    this.elapsed = el("span", { class: "job-elapsed", text: formatElapsed(0) });
    this.progress = el("progress", { class: "job-upload", max: 1, value: 0, hidden: true, attrs: { "aria-label": `Upload of ${titleText}` } });
    this.error = el("p", { class: "job-error", hidden: true });
    this.cancel = el("button", { type: "button", class: "button small job-cancel", text: "Cancel", attrs: { "aria-label": `Cancel ${titleText}` }, on: { click: () => onCancel(this) } });
    this.documentLink = el("a", { class: "job-document", hidden: true, on: { click: (event) => { event.preventDefault(); onOpen(this); } } });
    this.li = el(
      "li",
      { class: "job" },
      el("div", { class: "job-head" }, this.title, this.status),
      el("div", { class: "job-meta" }, this.phase, this.elapsed),
      this.progress,
      this.error,
      el("div", { class: "job-actions" }, this.documentLink, this.cancel),
    );
  }

  get terminal() {
    return this.finishedAt !== null;
  }

  tick(now = performance.now()) {
    this.elapsed.textContent = formatElapsed(((this.finishedAt ?? now) - this.startedAt) / 1000);
  }

  setPhase(text) {
    this.phase.textContent = text;
  }

  setProgress(loaded, total) {
    this.progress.hidden = false;
    this.progress.max = total || 1;
    this.progress.value = loaded;
    this.setPhase(`uploading ${Math.floor((loaded / (total || 1)) * 100)}% of ${formatBytes(total)}`);
  }

  /** Applies the job JSON from any answer or event; ignores stale ones after a terminal one. */
  update(job) {
    if (this.terminal) return;
    this.job = job;
    this.li.dataset.jobId = job.job_id;
    this.li.dataset.status = job.status;
    this.status.textContent = job.status;
    this.setPhase(job.phase ?? (job.status === "QUEUED" ? "waiting for a converter" : ""));
    if (job.status !== "CREATED") this.progress.hidden = true;
    if (TERMINAL.has(job.status)) this.finish(job);
  }

  finish(job) {
    this.finishedAt = performance.now();
    this.onSettle?.();
    this.tick();
    this.cancel.hidden = true;
    this.setPhase("");
    if (job.status === "SUCCEEDED" && job.document_id) {
      const name = job.document?.name ?? job.name;
      this.documentLink.href = `#document=${job.document_id}`;
      this.documentLink.textContent = name ? `Show ${name}.pdf in the library` : "Show the PDF in the library";
      this.documentLink.hidden = false;
    } else if (job.status === "FAILED") {
      this.showError(job.error_message || "The conversion failed.", job.error);
    } else if (job.status === "CANCELLED") {
      this.setPhase(job.error_message ?? "cancelled");
    }
  }

  /** A failure in words, with the code for a bug report; for create/upload errors too. */
  fail(error) {
    if (this.terminal) return;
    this.status.textContent = "FAILED";
    this.li.dataset.status = "FAILED";
    this.finishedAt = performance.now();
    this.onSettle?.();
    this.tick();
    this.cancel.hidden = true;
    this.progress.hidden = true;
    this.setPhase("");
    this.showError(error instanceof api.ApiError ? error.message : String(error.message ?? error), error.code);
  }

  showError(message, code) {
    this.error.replaceChildren(el("span", { class: "job-error-text", text: message }), code ? el("code", { text: code }) : null);
    this.error.hidden = false;
  }
}

/** Wires the convert panel; `library` supplies the current folder and shows finished documents. */
export function createConvert({ library }) {
  const form = $("#convert-form");
  const drop = $("#drop");
  const fileInput = $("#files");
  const fileSummary = $("#file-summary");
  const urlsInput = $("#urls");
  const paper = $("#paper");
  const landscape = $("#landscape");
  const margin = $("#margin");
  const backgrounds = $("#backgrounds");
  const deskew = $("#deskew");
  const autoRotate = $("#auto-rotate");
  const ocr = $("#ocr");
  const targetFolder = $("#target-folder");
  const targetName = $("#target-name");
  const merge = $("#merge");
  const hint = $("#convert-hint");
  const list = $("#jobs");
  const clearButton = $("#clear-jobs");

  const items = new Set();
  const uploads = limiter(3); // a dozen parallel PUTs would only share the same pipe
  let session = new AbortController(); // aborted at sign-out: every stream and upload stops
  let ticker = null;
  let folderFollowsLibrary = true;

  for (const [value, { label, width, height }] of Object.entries(PAPERS)) {
    paper.append(el("option", { value, text: `${label} (${width} × ${height} in)` }));
  }
  restoreOptions();

  // MARK: Inputs

  function summarizeFiles() {
    const files = [...fileInput.files];
    fileSummary.textContent = files.length === 0 ? "" : files.length === 1 ? `${files[0].name} (${formatBytes(files[0].size)})` : `${files.length} files, ${formatBytes(files.reduce((sum, f) => sum + f.size, 0))}`;
  }
  fileInput.addEventListener("change", summarizeFiles);

  const carriesFiles = (event) => event.dataTransfer?.types.includes("Files");
  drop.addEventListener("dragover", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
    drop.classList.add("dragging");
  });
  drop.addEventListener("dragleave", (event) => {
    if (!drop.contains(event.relatedTarget)) drop.classList.remove("dragging");
  });
  drop.addEventListener("drop", (event) => {
    drop.classList.remove("dragging");
    if (!carriesFiles(event) || event.dataTransfer.files.length === 0) return;
    event.preventDefault();
    fileInput.files = event.dataTransfer.files;
    summarizeFiles();
    hint.textContent = "Ready: press Convert to start.";
  });
  // A file dropped just beside the zone would otherwise replace the page with the file.
  for (const type of ["dragover", "drop"]) {
    window.addEventListener(type, (event) => {
      if (carriesFiles(event) && !drop.contains(event.target)) event.preventDefault();
    });
  }

  targetFolder.addEventListener("input", () => {
    folderFollowsLibrary = targetFolder.value.trim() === "";
  });

  for (const input of [paper, landscape, margin, backgrounds, deskew, autoRotate, ocr]) input.addEventListener("change", saveOptions);

  function readOptions() {
    const size = PAPERS[paper.value] ?? PAPERS.a4;
    const options = { paper_width: size.width, paper_height: size.height, landscape: landscape.checked, print_background: backgrounds.checked };
    const inches = margin.valueAsNumber;
    if (margin.value !== "" && Number.isFinite(inches) && inches >= 0) options.margin = inches;
    return options;
  }

  /** The options of a job whose inputs are `files`: the scan's only when one is a page image. */
  function optionsFor(files, options) {
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

  /** "example.com/x" is what people paste; the API wants an absolute http(s) URL. */
  function normalizeUrl(line) {
    return /^[a-z][a-z0-9+.-]*:/i.test(line) ? line : `https://${line}`;
  }

  // MARK: Jobs

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const files = [...fileInput.files];
    const urls = urlsInput.value.split(/\r?\n/).map((line) => line.trim()).filter(Boolean).map(normalizeUrl);
    if (files.length + urls.length === 0) {
      hint.textContent = "Choose or drop a file, or paste a URL, first.";
      return;
    }
    const folder = targetFolder.value.trim().replace(/^\/+|\/+$/g, "");
    const merging = merge.checked && files.length + urls.length > 1;
    const name = files.length + urls.length === 1 || merging ? targetName.value.trim() : "";
    const common = { folder: folder || undefined, name: name || undefined, on_conflict: "rename", options: readOptions() };
    if (merging) {
      startMergeJob(files, urls, common);
      hint.textContent = `Started 1 job merging ${files.length + urls.length} inputs.`;
    } else {
      for (const file of files) startFileJob(file, common);
      for (const url of urls) startUrlJob(url, common);
      hint.textContent = `Started ${files.length + urls.length === 1 ? "1 job" : `${files.length + urls.length} jobs`}.`;
    }
    fileInput.value = "";
    urlsInput.value = "";
    targetName.value = "";
    summarizeFiles();
  });

  function addItem(titleText) {
    const item = new JobItem(titleText, { onCancel: cancelJob, onOpen: (it) => library.reveal(it.job.document_id), onSettle: () => { clearButton.hidden = false; } });
    item.abort = new AbortController();
    session.signal.addEventListener("abort", () => item.abort.abort(), { once: true });
    items.add(item);
    list.prepend(item.li);
    startTicker();
    return item;
  }

  async function startUrlJob(url, common) {
    const item = addItem(url);
    try {
      item.setPhase("sending");
      const job = await api.post("/v1/jobs", { type: "URL_TO_PDF", url, ...common }, { signal: item.abort.signal });
      item.update(job);
      await follow(item);
    } catch (error) {
      if (error.name !== "AbortError") item.fail(error);
    }
  }

  async function startFileJob(file, common) {
    const item = addItem(file.name);
    item.setPhase("waiting to upload");
    try {
      await uploads(async () => {
        if (item.terminal) return;
        const { signal } = item.abort;
        item.setPhase("creating job");
        const created = await api.post("/v1/jobs", { original_filename: file.name, ...common, options: optionsFor([file], common.options) }, { signal });
        item.update(created);
        const slot = created.upload;
        if (!slot) return; // already past CREATED (an idempotent replay): nothing to send
        if (file.size > slot.max_bytes) {
          api.del(`/v1/jobs/${created.job_id}`).catch(() => {});
          throw new api.ApiError(413, "upload_too_large", `${file.name} is ${formatBytes(file.size)}; this server takes files up to ${formatBytes(slot.max_bytes)}.`);
        }
        item.setProgress(0, file.size);
        await api.upload(slot.url, file, { signal, onProgress: (loaded, total) => item.setProgress(loaded, total) });
        item.setPhase("submitting");
        item.update(await api.post(`/v1/jobs/${created.job_id}/submit`, undefined, { signal }));
      });
      await follow(item);
    } catch (error) {
      if (error.name !== "AbortError") item.fail(error);
    }
  }

  /** One job for every input: a multipart create whose `file` parts and `url` fields, in this
   * order, are converted each by its own backend and merged. */
  async function startMergeJob(files, urls, common) {
    const item = addItem(`Merge: ${[...files.map((file) => file.name), ...urls].join(" + ")}`);
    item.setPhase("waiting to upload");
    try {
      await uploads(async () => {
        if (item.terminal) return;
        const form = new FormData();
        for (const file of files) form.append("file", file, file.name);
        for (const url of urls) form.append("url", url);
        for (const key of ["folder", "name", "on_conflict"]) if (common[key]) form.append(key, common[key]);
        form.append("options", JSON.stringify(optionsFor(files, common.options)));
        const total = files.reduce((sum, file) => sum + file.size, 0);
        item.setProgress(0, total);
        item.update(await api.postForm("/v1/jobs", form, { signal: item.abort.signal, onProgress: (loaded) => item.setProgress(Math.min(loaded, total), total) }));
      });
      await follow(item);
    } catch (error) {
      if (error.name !== "AbortError") item.fail(error);
    }
  }

  /** Follows the job's events; falls back to polling if the stream route is refused. */
  async function follow(item) {
    if (item.terminal || !item.job) return finished(item);
    const id = item.job.job_id;
    try {
      await api.followEvents(`/v1/jobs/${id}/events`, {
        signal: item.abort.signal,
        onEvent(event) {
          if (event.type !== "job" && event.type !== "message") return false;
          item.update(JSON.parse(event.data));
          return item.terminal;
        },
      });
    } catch (error) {
      if (error.status === 401) throw error;
      while (!item.terminal && !item.abort.signal.aborted) {
        await sleep(2000, item.abort.signal);
        if (!item.abort.signal.aborted) item.update(await api.get(`/v1/jobs/${id}`));
      }
    }
    finished(item);
  }

  function finished(item) {
    const job = item.job;
    if (job?.status !== "SUCCEEDED") return;
    library.documentFiled({ folderId: job.document ? job.document.folder_id : undefined, folder: job.document?.folder ?? job.folder });
  }

  async function cancelJob(item) {
    item.cancel.disabled = true;
    const id = item.job?.job_id;
    // Stop our side first (an upload in flight), then tell the server.
    item.abort.abort();
    if (!id) {
      item.update({ job_id: "", status: "CANCELLED", phase: null, error_message: "cancelled before it reached the server" });
      return;
    }
    try {
      item.update(await api.del(`/v1/jobs/${id}`));
      if (!item.terminal) item.update({ ...item.job, status: "CANCELLED" });
    } catch (error) {
      item.fail(error);
    }
  }

  clearButton.addEventListener("click", () => {
    for (const item of items) {
      if (!item.terminal) continue;
      item.li.remove();
      items.delete(item);
    }
    clearButton.hidden = true;
  });

  // One clock for all items; it stops when nothing is running.
  function startTicker() {
    if (ticker) return;
    ticker = setInterval(() => {
      const now = performance.now();
      let running = 0;
      for (const item of items) {
        if (item.terminal) continue;
        item.tick(now);
        running += 1;
      }
      if (running === 0) {
        clearInterval(ticker);
        ticker = null;
      }
    }, 1000);
  }

  /** A job started before this page loaded (another tab, a reload), followed like one of ours. */
  function adopt(job) {
    const merged = job.inputs?.map((input) => input.file ?? input.url).join(" + ");
    const item = addItem(job.original_filename ?? job.url ?? (merged ? `Merge: ${merged}` : undefined) ?? job.name ?? job.job_id);
    item.startedAt = performance.now() - Math.max(0, Date.now() - Date.parse(job.created_at));
    item.update(job);
    follow(item).catch((error) => {
      if (error.name !== "AbortError") item.fail(error);
    });
  }

  return {
    /** Shows the owner's unfinished jobs (queued or running), oldest at the bottom. */
    async resume() {
      const shown = new Set([...items].map((item) => item.job?.job_id));
      for (const status of ["QUEUED", "PROCESSING"]) {
        const { jobs } = await api.get("/v1/jobs", { status, limit: 20 }, { signal: session.signal });
        for (const job of jobs.reverse()) if (!shown.has(job.job_id)) adopt(job);
      }
    },

    /** Keeps #target-folder on the library's folder until the user types their own. */
    folderChanged({ path }) {
      if (folderFollowsLibrary) targetFolder.value = path;
    },

    /** Stops every stream and upload and empties the list (signing out). */
    reset() {
      session.abort();
      session = new AbortController();
      for (const item of items) item.li.remove();
      items.clear();
      clearButton.hidden = true;
    },
  };
}
