// What goes in: files (chosen or dropped on #drop) and URLs, where to file the PDFs, and the
// jobs a Convert press starts. File jobs take three steps (create → PUT to the signed upload
// URL → submit); URL jobs are queued at once. With "merge", everything goes in one multipart
// create: one job whose inputs are merged in order.

import * as api from "./api.js";
import { $, formatBytes, limiter } from "./dom.js";
import { optionsFor, readOptions } from "./convert-options.js";
import { addItem, follow } from "./convert-jobwatch.js";

const form = $("#convert-form");
const drop = $("#drop");
const fileInput = $("#files");
const fileSummary = $("#file-summary");
const urlsInput = $("#urls");
const targetFolder = $("#target-folder");
const targetName = $("#target-name");
const merge = $("#merge");
const hint = $("#convert-hint");

const uploads = limiter(3); // a dozen parallel PUTs would only share the same pipe
let folderFollowsLibrary = true;

function summarizeFiles() {
  const files = [...fileInput.files];
  fileSummary.textContent = files.length === 0 ? "" : files.length === 1 ? `${files[0].name} (${formatBytes(files[0].size)})` : `${files.length} files, ${formatBytes(files.reduce((sum, f) => sum + f.size, 0))}`;
}

/** "example.com/x" is what people paste; the API wants an absolute http(s) URL. */
function normalizeUrl(line) {
  return /^[a-z][a-z0-9+.-]*:/i.test(line) ? line : `https://${line}`;
}

/** Keeps #target-folder on the library's folder until the user types their own. */
export function folderChanged({ path }) {
  if (folderFollowsLibrary) targetFolder.value = path;
}

function submit(event) {
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

export function wireUpload() {
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
  form.addEventListener("submit", submit);
}
