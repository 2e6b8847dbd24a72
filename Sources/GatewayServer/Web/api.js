// The page's only door to the server: the public v1 API. The bearer token lives in
// sessionStorage (gone when the tab closes) and travels only in the Authorization header,
// never in a URL, where it would end up in logs and history.

import { sleep } from "./dom.js";

const TOKEN_KEY = "pdfgate.token";

export const getToken = () => sessionStorage.getItem(TOKEN_KEY);
export const setToken = (token) => sessionStorage.setItem(TOKEN_KEY, token);
export const clearToken = () => sessionStorage.removeItem(TOKEN_KEY);

/** An API error answer: `code` is the stable `error` field, `message` the human text. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

let unauthorized = () => {};
/** Called on any 401 so the app can return to the sign-in form. */
export function onUnauthorized(handler) {
  unauthorized = handler;
}

function authHeaders(extra = {}) {
  const token = getToken();
  return token ? { ...extra, Authorization: `Bearer ${token}` } : extra;
}

/** Path plus query string, skipping empty values. */
export function url(path, query = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/**
 * Signed URLs are absolute and built from the server's idea of its host, which can differ from
 * the page's (localhost vs 127.0.0.1). Keeping only path and query keeps the request on this
 * origin, so CSP (connect-src 'self') allows it and `<a download>` works.
 */
export function sameOrigin(absolute) {
  const parsed = new URL(absolute, location.origin);
  return parsed.pathname + parsed.search;
}

async function errorFrom(response) {
  let code = `http_${response.status}`;
  let message = `The server answered ${response.status} ${response.statusText}`.trim();
  try {
    const body = await response.json();
    if (body && typeof body.error === "string") code = body.error;
    if (body && typeof body.error_message === "string" && body.error_message) message = body.error_message;
  } catch {
    // Not JSON (a proxy's error page, say): the status line is all we have.
  }
  return new ApiError(response.status, code, message);
}

const networkError = () => new ApiError(0, "network", "Could not reach the server. Check that it is running and try again.");

/** Sends one request; answers the parsed JSON (null for an empty body) or throws ApiError. */
export async function request(method, path, { query, body, signal, headers } = {}) {
  const init = { method, signal, headers: authHeaders(headers), cache: "no-store" };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  const response = await send(url(path, query), init);
  if (response.status === 204) return null;
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

export const get = (path, query, options) => request("GET", path, { ...options, query });
export const post = (path, body, options) => request("POST", path, { ...options, body });
export const patch = (path, body, options) => request("PATCH", path, { ...options, body });
export const del = (path, query, options) => request("DELETE", path, { ...options, query });

/** A binary answer (thumbnails) as a Blob; `<img src>` could not send the bearer header. */
export async function getBlob(path, query, signal) {
  return (await send(url(path, query), { headers: authHeaders(), signal })).blob();
}

/** `fetch`, with a failed answer thrown as ApiError (and a 401 reported); an abort passes through. */
async function send(target, init) {
  let response;
  try {
    response = await fetch(target, init);
  } catch (error) {
    throw error.name === "AbortError" ? error : networkError();
  }
  if (!response.ok) {
    const error = await errorFrom(response);
    if (response.status === 401) unauthorized(error);
    throw error;
  }
  return response;
}

/**
 * PUTs a file to a signed upload URL with XMLHttpRequest, because fetch cannot report upload
 * progress. The signature is the credential, so no bearer header goes with it.
 */
export function upload(uploadUrl, file, options = {}) {
  return sendWithProgress("PUT", sameOrigin(uploadUrl), file, { "Content-Type": "application/octet-stream" }, options);
}

/** POSTs a multipart form (files and fields) to the API, with the bearer header and progress. */
export function postForm(path, formData, options = {}) {
  return sendWithProgress("POST", path, formData, authHeaders(), options);
}

function sendWithProgress(method, target, body, headers, { onProgress, signal } = {}) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, target);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) onProgress?.(event.loaded, event.total);
    });
    xhr.addEventListener("load", () => {
      let body = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(body);
      const error = new ApiError(xhr.status, body?.error ?? `http_${xhr.status}`, body?.error_message ?? `The upload failed with status ${xhr.status}.`);
      if (xhr.status === 401) unauthorized(error);
      reject(error);
    });
    xhr.addEventListener("error", () => reject(networkError()));
    xhr.addEventListener("abort", () => reject(new DOMException("Upload cancelled", "AbortError")));
    signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(body);
  });
}

/**
 * Splits a text/event-stream into events. Follows the WHATWG parsing rules that matter here:
 * any line ending, `:` comments (heartbeats), `field: value` with one optional space, multi-line
 * data joined by "\n", and an event dispatched at each blank line.
 */
export class SSEParser {
  constructor(onEvent) {
    this.onEvent = onEvent;
    this.buffer = "";
    this.reset();
  }

  reset() {
    this.event = "";
    this.data = [];
    this.id = undefined;
  }

  push(chunk) {
    let text = this.buffer + chunk;
    // A trailing "\r" may be half of "\r\n": hold it back until the next chunk says.
    const carry = text.endsWith("\r") ? "\r" : "";
    if (carry) text = text.slice(0, -1);
    const lines = text.split(/\r\n|\r|\n/);
    this.buffer = lines.pop() + carry;
    for (const line of lines) this.line(line);
  }

  line(line) {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.event = value;
    else if (field === "data") this.data.push(value);
    else if (field === "id" && !value.includes("\0")) this.id = value;
  }

  dispatch() {
    const event = { type: this.event || "message", data: this.data.join("\n"), id: this.id };
    const hasData = this.data.length > 0;
    this.reset();
    if (hasData) this.onEvent(event);
  }
}

const HEARTBEAT_GRACE_MS = 45_000; // the server comments every 15 s; three missed means a dead link

/**
 * Follows an SSE route with fetch (EventSource cannot send the Authorization header).
 * `onEvent` returns true when the stream has said all it will (a terminal job), which ends the
 * loop; otherwise a dropped connection is resumed with Last-Event-ID after a growing pause.
 * Resolves when done or aborted; rejects on a client error (404, 401) that retrying cannot fix.
 */
export async function followEvents(path, { onEvent, signal }) {
  let lastEventId;
  let pause = 1000;
  while (!signal?.aborted) {
    const connection = new AbortController();
    const abortConnection = () => connection.abort();
    signal?.addEventListener("abort", abortConnection, { once: true });
    let watchdog;
    const feed = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(abortConnection, HEARTBEAT_GRACE_MS);
    };
    let finished = false;
    try {
      const headers = authHeaders({ Accept: "text/event-stream" });
      if (lastEventId !== undefined) headers["Last-Event-ID"] = lastEventId;
      feed();
      const response = await fetch(path, { headers, signal: connection.signal, cache: "no-store" });
      if (!response.ok) {
        const error = await errorFrom(response);
        if (response.status === 401) unauthorized(error);
        if (response.status < 500 && response.status !== 429) throw error;
      } else {
        const parser = new SSEParser((event) => {
          if (event.id !== undefined) lastEventId = event.id;
          pause = 1000;
          if (onEvent(event)) finished = true;
        });
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        while (!finished) {
          const { value, done } = await reader.read();
          if (done) break;
          feed();
          parser.push(value);
        }
        if (finished) reader.cancel().catch(() => {});
      }
    } catch (error) {
      if (error instanceof ApiError && error.status !== 0) throw error;
      // Network trouble or the watchdog: fall through and reconnect.
    } finally {
      clearTimeout(watchdog);
      signal?.removeEventListener("abort", abortConnection);
    }
    if (finished) return;
    await sleep(pause, signal);
    pause = Math.min(pause * 2, 15_000);
  }
}
