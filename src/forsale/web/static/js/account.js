// @ts-check
// Accounts in the page header: sign up, sign in, sign out, the links to one's profile and the
// leaderboard, and the dialogs for a name and password. All optional: a guest plays as before.
// Names come from people: they are only ever written with textContent (h() children), never as HTML.
import { call, seats } from "./api.js";
import { h } from "./format.js";
import { t } from "./i18n.js";

let current = null; // {id, name} of the signed-in account, or null
let known = false; // whether /api/me has answered yet
/** @type {(message: string) => void} */
let say = () => {}; // the page's toast (main.js hands it over in startAccounts)

export const accountApi = {
  me: () => call("GET", "/api/me"),
  signUp: (name, password) => call("POST", "/api/signup", { name, password }),
  signIn: (name, password) => call("POST", "/api/signin", { name, password }),
  signOut: () => call("POST", "/api/signout", {}),
  changePassword: (old_password, new_password) => call("POST", "/api/me/password", { old_password, new_password }),
  deleteAccount: (password) => call("POST", "/api/me/delete", { password }),
  myGames: () => call("GET", "/api/me/games"),
  claim: (id, token) => call("POST", `/api/tables/${encodeURIComponent(id)}/claim`, { token }),
  resume: (id) => call("POST", `/api/tables/${encodeURIComponent(id)}/resume`, {}),
  player: (name) => call("GET", `/api/players/${encodeURIComponent(name)}`),
  leaderboard: (players, kind) => call("GET", `/api/leaderboard?players=${Number(players) || 0}&kind=${encodeURIComponent(kind)}`),
};

/** The signed-in account ({id, name}) or null; asks the server the first time. */
export async function account() {
  if (!known) {
    try {
      current = (await accountApi.me()).account || null;
    } catch {
      current = null;
    }
    known = true;
  }
  return current;
}

/** Where a player's page is: `#/player/<name>` (a bot's is `#/player/bot:<name>`). */
export function playerHref(name, bot = false) {
  return `#/player/${encodeURIComponent(bot ? `bot:${name}` : name)}`;
}

function changed(next) {
  current = next;
  known = true;
  drawHeader();
  document.dispatchEvent(new CustomEvent("forsale:account"));
}

/** After signing in: link this browser's guest seats to the account, so "my games" finds them anywhere. */
async function claimSeats() {
  let claimed = 0;
  for (const [id, entry] of Object.entries(seats.all())) {
    if (!entry || !entry.token) continue;
    try {
      await accountApi.claim(id, entry.token);
      claimed++;
    } catch {
      /* a finished game forgotten by the server, a seat someone else's: nothing to claim */
    }
  }
  return claimed;
}

/**
 * A modal dialog with labelled fields; resolves when `submit(values)` succeeds, shows its error otherwise.
 * `fields`: [{id, label, type, autocomplete}].
 */
export function formDialog({ id, title, fields, submitLabel, submit, danger = false }) {
  const error = h("div.error-box", { role: "alert", id: `${id}-error` });
  const inputs = fields.map((f) =>
    h("input", { type: f.type || "text", id: f.id, name: f.id, autocomplete: f.autocomplete || "off", required: true, maxlength: f.max || 256 }),
  );
  const ok = h(`button.btn.${danger ? "danger" : "primary"}`, { type: "submit", id: `${id}-submit` }, submitLabel);
  const cancel = h("button.btn.quiet", { type: "button", id: `${id}-cancel` }, t("account.cancel"));
  const form = h(
    "form.form",
    { method: "dialog" },
    ...fields.map((f, i) => h("label", { for: f.id }, f.label, inputs[i])),
    error,
    h("div.row", null, ok, cancel),
  );
  const dialog = h("dialog.panel.dialog", { id, "aria-labelledby": `${id}-title` }, h("h2", { id: `${id}-title` }, title), form);
  document.body.append(dialog);
  const close = () => {
    dialog.close();
    dialog.remove();
  };
  cancel.addEventListener("click", close);
  dialog.addEventListener("cancel", () => dialog.remove());
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    ok.disabled = true;
    try {
      await submit(Object.fromEntries(fields.map((f, i) => [f.id, inputs[i].value])));
      close();
    } catch (e) {
      error.textContent = e.message;
      ok.disabled = false;
    }
  });
  dialog.showModal();
  inputs[0].focus();
  return dialog;
}

function credentialsDialog(kind) {
  const up = kind === "up";
  formDialog({
    id: up ? "signup" : "signin",
    title: up ? t("account.signUpTitle") : t("account.signInTitle"),
    submitLabel: up ? t("account.signUp") : t("account.signIn"),
    fields: [
      { id: "account-name", label: t("account.name"), autocomplete: "username", max: 24 },
      { id: "account-password", label: t("account.password"), type: "password", autocomplete: up ? "new-password" : "current-password" },
    ],
    submit: async (values) => {
      const name = values["account-name"].trim();
      const res = up ? await accountApi.signUp(name, values["account-password"]) : await accountApi.signIn(name, values["account-password"]);
      changed(res.account);
      const claimed = await claimSeats();
      say(claimed ? t("account.claimed", { count: claimed }) : t("account.welcome", { name: res.account.name }));
    },
  });
}

/** The header's account area: guests get sign in / sign up; an account its name (to its page) and sign out. */
export function drawHeader() {
  const box = document.getElementById("account");
  if (!box) return;
  const board = h("a.btn.quiet", { href: "#/leaderboard", id: "leaderboard-link" }, t("account.leaderboard"));
  if (!current) {
    box.replaceChildren(
      board,
      h("button.btn.quiet", { type: "button", id: "sign-in", onclick: () => credentialsDialog("in") }, t("account.signIn")),
      h("button.btn", { type: "button", id: "sign-up", onclick: () => credentialsDialog("up") }, t("account.signUp")),
    );
    return;
  }
  box.replaceChildren(
    board,
    h("a.btn.quiet", { href: "#/me", id: "my-games-link" }, t("account.myGames")),
    h("a.btn.quiet.account-name", { href: playerHref(current.name), id: "account-name-link", title: t("account.profile") }, current.name),
    h(
      "button.btn.quiet",
      {
        type: "button",
        id: "sign-out",
        onclick: async () => {
          try {
            await accountApi.signOut();
          } catch {
            /* signed out already */
          }
          changed(null);
        },
      },
      t("account.signOut"),
    ),
  );
}

/** Ask the server who is signed in, then draw the header (at start-up, and after a language change). */
export async function startAccounts(toast) {
  say = toast;
  await account();
  drawHeader();
}

/** Set the session aside on the page after the account was deleted (the server has ended it). */
export function forget() {
  changed(null);
}

/**
 * The "rated game" checkbox of a lobby form: offered to a signed-in player only (a guest has no rating).
 * `hints`: the form's hints checkbox, switched off and disabled while the game is rated (the server
 * refuses hints at a rated table: the engine's advice would be the rating's).
 */
export function ratedToggle(id, hints) {
  const box = h("input", { type: "checkbox", id });
  const label = h("label.check", { for: id, hidden: true }, box, t("account.rated"));
  const value = () => (!label.hidden && box.checked) || undefined;
  const sync = () => {
    if (!hints) return;
    hints.disabled = !!value();
    if (hints.disabled) hints.checked = false;
  };
  box.addEventListener("change", sync);
  account().then((a) => {
    label.hidden = !a;
    sync();
  });
  return { label, value };
}
