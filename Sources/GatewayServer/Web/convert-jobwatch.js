// The jobs list (#jobs): each job followed over its event stream (or, where that is refused, by
// polling) until it reaches a terminal status; cancelling, clearing finished ones, and the
// jobs started before this page loaded (another tab, a reload, a script).

import * as api from "./api.js";
import { $, sleep } from "./dom.js";
import { JobItem } from "./convert-job-item.js";

const list = $("#jobs");
const clearButton = $("#clear-jobs");

const items = new Set();
let session = new AbortController(); // aborted at sign-out: every stream and upload stops
let ticker = null;
let library = null; // shows finished documents; set by wireJobWatch

/** A new item at the top of the list, stopped with the session. */
export function addItem(titleText) {
  const item = new JobItem(titleText, { onCancel: cancelJob, onOpen: (it) => library.reveal(it.job.document_id), onSettle: () => { clearButton.hidden = false; } });
  item.abort = new AbortController();
  session.signal.addEventListener("abort", () => item.abort.abort(), { once: true });
  items.add(item);
  list.prepend(item.li);
  startTicker();
  return item;
}

/** Follows the job's events; falls back to polling if the stream route is refused. */
export async function follow(item) {
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

/** Shows the owner's unfinished jobs (queued or running), oldest at the bottom. */
export async function resumeJobs() {
  const shown = new Set([...items].map((item) => item.job?.job_id));
  for (const status of ["QUEUED", "PROCESSING"]) {
    const { jobs } = await api.get("/v1/jobs", { status, limit: 20 }, { signal: session.signal });
    for (const job of jobs.reverse()) if (!shown.has(job.job_id)) adopt(job);
  }
}

/** Stops every stream and upload and empties the list (signing out). */
export function resetJobs() {
  session.abort();
  session = new AbortController();
  for (const item of items) item.li.remove();
  items.clear();
  clearButton.hidden = true;
}

/** `library` supplies the document a finished job filed, and refreshes when one is filed. */
export function wireJobWatch(options) {
  library = options.library;
  clearButton.addEventListener("click", () => {
    for (const item of items) {
      if (!item.terminal) continue;
      item.li.remove();
      items.delete(item);
    }
    clearButton.hidden = true;
  });
}
