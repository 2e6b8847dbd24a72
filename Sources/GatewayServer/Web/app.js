// Entry point: finds out whether the server wants a token, shows the sign-in form or the app,
// and connects the convert panel to the library. The page needs no globals; the two
// `document.body.dataset` flags exist so automated tests know when to look.

import * as api from "./api.js";
import { $ } from "./dom.js";
import { createConvert } from "./convert.js";
import { createLibrary } from "./library.js";
import { describe, hideNotice, notify } from "./notice.js";

const signInView = $("#sign-in-view");
const signInForm = $("#sign-in");
const tokenInput = $("#token");
const signInMessage = $("#sign-in-message");
const signOutButton = $("#sign-out");
const appView = $("#app");

let convert = null;
const library = createLibrary({ onFolderChange: (folder) => convert?.folderChanged(folder) });
convert = createConvert({ library });

function showSignIn(message = "") {
  convert.reset();
  library.clear();
  hideNotice();
  appView.hidden = true;
  signOutButton.hidden = true;
  signInView.hidden = false;
  signInMessage.textContent = message;
  signInMessage.hidden = !message;
  tokenInput.value = "";
  tokenInput.focus();
}

async function showApp() {
  signInView.hidden = true;
  signInMessage.hidden = true;
  appView.hidden = false;
  signOutButton.hidden = !api.getToken();
  // A reload (or another tab) must not lose sight of jobs still running.
  convert.resume().catch(() => {});
  await library.start();
  const linked = /^#document=([0-9a-f-]{36})$/.exec(location.hash);
  if (linked) await library.reveal(linked[1]);
}

// Any 401 while the app is showing means the token stopped working (revoked, or the server
// restarted with auth): back to the form. During sign-in the form reports it itself.
api.onUnauthorized(() => {
  const hadToken = Boolean(api.getToken());
  api.clearToken();
  if (!appView.hidden) showSignIn(hadToken ? "Your API token is no longer accepted. Sign in again." : "This server needs an API token.");
});

signInForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const token = tokenInput.value.trim().replace(/^Bearer\s+/i, "");
  if (!token) return;
  const submit = $("button[type=submit]", signInForm);
  if (submit.disabled) return; // one sign-in at a time: a late refusal must not clear a newer token
  submit.disabled = true;
  api.setToken(token);
  try {
    await api.get("/v1/folders");
    tokenInput.value = "";
    await showApp();
  } catch (error) {
    api.clearToken();
    signInMessage.textContent =
      error.status === 401 ? "That API token was not accepted. Check that you pasted all of it and try again." : `Could not sign in. ${describe(error)}`;
    signInMessage.hidden = false;
    tokenInput.select();
  } finally {
    submit.disabled = false;
  }
});

signOutButton.addEventListener("click", () => {
  api.clearToken();
  showSignIn("Signed out. This tab has forgotten the token.");
});

async function boot() {
  const hadToken = Boolean(api.getToken());
  try {
    // The cheapest call that needs auth: 200 means no token is needed (or the saved one works).
    await api.get("/v1/folders");
    await showApp();
  } catch (error) {
    if (error.status === 401) {
      showSignIn(hadToken ? "Your saved token is no longer accepted. Sign in again." : "");
    } else {
      appView.hidden = false;
      notify(`The library could not be loaded. ${describe(error)}`, { label: "Try again", run: boot });
    }
  } finally {
    document.body.dataset.ready = "true";
  }
}

boot();
