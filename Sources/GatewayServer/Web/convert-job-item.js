// A job's item in the #jobs list: its title, status, phase, elapsed time, upload progress, and
// at the end a link to the PDF in the library or the failure in words.

import * as api from "./api.js";
import { el, formatBytes, formatElapsed } from "./dom.js";

const TERMINAL = new Set(["SUCCEEDED", "FAILED", "CANCELLED"]);

/** A job's item in #jobs, from the first click to its terminal status. */
export class JobItem {
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
