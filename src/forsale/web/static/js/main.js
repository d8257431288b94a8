// @ts-check
// The page's entry point: themes, the toast, and the router between lobby,
// table, watching and replays (all in the URL hash, so links can be shared),
// and the language switch in the header.
import { LANGUAGES, language, preferredLanguage, setLanguage, translateStatic } from "./i18n.js";
import { showLobby } from "./lobby.js";
import { showReplay } from "./replay.js";
import { showTable } from "./live.js";
import { drawHeader, startAccounts } from "./account.js";
import { showLeaderboard } from "./leaderboard.js";
import { showProfile } from "./profile.js";
import { showConfirm } from "./confirm.js";
import { showTournaments } from "./tournaments.js";

const app = document.getElementById("app");
let current = null; // the shown screen's cleanup function

function setTheme(theme) {
  document.documentElement.dataset.theme = theme;
  try {
    localStorage.setItem("forsale.theme", theme);
  } catch {
    /* private mode: the theme just isn't remembered */
  }
}

document.getElementById("theme").addEventListener("click", () => {
  setTheme(document.documentElement.dataset.theme === "dark" ? "light" : "dark");
});

// On a phone the header's account, language and theme sit behind one button (css: header.bar .more).
const menuToggle = document.getElementById("menu-toggle");
menuToggle.addEventListener("click", () => {
  const open = menuToggle.closest("header").classList.toggle("open");
  menuToggle.setAttribute("aria-expanded", String(open));
});

let toastTimer = null;
let placing = false; // keepAboveDock's frames are running

/**
 * Keeps the shown toast above the table's dock (the seat's controls, stuck to the window's bottom) until it is
 * hidden: on a phone a toast at the window's bottom covered Bid and Pass, as after signing in at a table. Every
 * frame, since the table redraws under it (signing in claims the seat and redraws the dock at another height).
 */
function keepAboveDock(el) {
  placing = !el.hidden;
  if (!placing) return;
  const dock = /** @type {HTMLElement | null} */ (document.querySelector(".dock"));
  const top = dock && dock.offsetHeight ? dock.getBoundingClientRect().top : innerHeight;
  el.style.bottom = top < innerHeight ? `${Math.round(innerHeight - top) + 8}px` : "";
  requestAnimationFrame(() => keepAboveDock(el));
}

/** A short message at the bottom of the window (above a table's dock) for `ms`. */
export function toast(text, ms = 3500) {
  const el = document.getElementById("toast");
  el.textContent = text;
  el.hidden = false;
  if (!placing) keepAboveDock(el);
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (el.hidden = true), ms);
}

export function setInfo(text) {
  // The header is a live region: writing the same words again would read them out again.
  const el = document.getElementById("info");
  if (el.textContent !== (text || "")) el.textContent = text || "";
}

/** Tell a screen reader what happened and whose turn it is (the same words are not said twice). */
export function announce(text) {
  const el = document.getElementById("announce");
  if (el.textContent !== (text || "")) el.textContent = text || "";
}

/** The header's tools; a null or false entry is a tool not shown (replaceChildren would print "null"). */
export function setTools(...nodes) {
  document.getElementById("tools").replaceChildren(...nodes.filter((node) => node !== null && node !== undefined && node !== false));
}

function route() {
  if (current) current();
  current = null;
  setInfo("");
  announce("");
  setTools();
  app.replaceChildren();
  const hash = location.hash.replace(/^#\/?/, "");
  const [path, query] = hash.split("?");
  const parts = path.split("/").filter(Boolean);
  const params = new URLSearchParams(query || "");
  const ctx = { app, params, toast, setInfo, setTools, announce };
  if (parts[0] === "table" && parts[1]) current = showTable(ctx, parts[1], { join: params.get("seat"), invite: params.get("invite") });
  else if (parts[0] === "watch" && parts[1]) current = showTable(ctx, parts[1], { watch: true });
  else if (parts[0] === "replay") current = showReplay(ctx, parts[1] || null);
  else if (parts[0] === "player" && parts[1]) current = showProfile(ctx, decodeURIComponent(parts[1]));
  else if (parts[0] === "me") current = showProfile(ctx, null);
  else if (parts[0] === "leaderboard") current = showLeaderboard(ctx, params);
  else if (parts[0] === "confirm" && parts[1]) current = showConfirm(ctx, parts[1]);
  else if (parts[0] === "tournaments") current = showTournaments(ctx, parts[1] || null);
  else current = showLobby(ctx);
}

/** The header's language switch: each language by its own name, the choice remembered. */
function languageSwitch() {
  const select = /** @type {HTMLSelectElement} */ (document.getElementById("lang"));
  select.replaceChildren(
    ...Object.entries(LANGUAGES).map(([code, name]) => {
      const option = document.createElement("option");
      option.value = code;
      option.lang = code;
      option.textContent = name;
      option.selected = code === language();
      return option;
    }),
  );
  select.addEventListener("change", async () => {
    await setLanguage(select.value, { remember: true });
    translateStatic();
    drawHeader();
    // A live table redraws itself in the new words and keeps its connection; other screens are drawn again.
    if (/^#\/?(table|watch)\//.test(location.hash)) document.dispatchEvent(new CustomEvent("forsale:language"));
    else route();
  });
}

try {
  await setLanguage(preferredLanguage());
} catch (error) {
  // A catalogue that cannot be fetched must not leave the page blank: English is the source language.
  console.warn(`forsale i18n: ${error.message}; using English`);
  await setLanguage("en");
}
translateStatic();
languageSwitch();
window.addEventListener("hashchange", route);
// Signing in or out draws the lobby and the players' pages again (a live table keeps its connection).
document.addEventListener("forsale:account", () => {
  if (!/^#\/?(table|watch)\//.test(location.hash)) route();
});
startAccounts(toast);
route();
