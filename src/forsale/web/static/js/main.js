// The page's entry point: themes, the toast, and the router between lobby,
// table, watching and replays (all in the URL hash, so links can be shared).
import { showLobby } from "./lobby.js";
import { showReplay } from "./replay.js";
import { showTable } from "./live.js";

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

let toastTimer = null;
export function toast(text, ms = 3500) {
  const el = document.getElementById("toast");
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (el.hidden = true), ms);
}

export function setInfo(text) {
  document.getElementById("info").textContent = text || "";
}

/** The header's tools; a null or false entry is a tool not shown (replaceChildren would print "null"). */
export function setTools(...nodes) {
  document.getElementById("tools").replaceChildren(...nodes.filter((node) => node !== null && node !== undefined && node !== false));
}

function route() {
  if (current) current();
  current = null;
  setInfo("");
  setTools();
  app.replaceChildren();
  const hash = location.hash.replace(/^#\/?/, "");
  const [path, query] = hash.split("?");
  const parts = path.split("/").filter(Boolean);
  const params = new URLSearchParams(query || "");
  const ctx = { app, params, toast, setInfo, setTools };
  if (parts[0] === "table" && parts[1]) current = showTable(ctx, parts[1], { join: params.get("seat") });
  else if (parts[0] === "watch" && parts[1]) current = showTable(ctx, parts[1], { watch: true });
  else if (parts[0] === "replay") current = showReplay(ctx, parts[1] || null);
  else current = showLobby(ctx);
}

window.addEventListener("hashchange", route);
route();
