// The page's one error notice (#notice): what happened and what to try, until dismissed or
// replaced; and the words an API error is told in. Every part of the page reports here.

import * as api from "./api.js";
import { $, el, iconButton } from "./dom.js";

const notice = $("#notice");

/** Shows an error (what happened and what to try) until dismissed or replaced. */
export function notify(text, action) {
  notice.replaceChildren(
    el("p", { class: "notice-text", text }),
    action ? el("button", { type: "button", class: "button small", text: action.label, on: { click: () => { hideNotice(); action.run(); } } }) : null,
    iconButton("close", "Dismiss", "notice-close", hideNotice),
  );
  notice.hidden = false;
}

export function hideNotice() {
  notice.hidden = true;
  notice.replaceChildren();
}

/** The server's words and its code, for a notice. */
export function describe(error) {
  if (!(error instanceof api.ApiError)) return "Something unexpected went wrong; reload the page and try again.";
  if (error.code === "network") return error.message;
  const message = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
  return `${message.charAt(0).toUpperCase()}${message.slice(1)} (${error.code})`;
}
