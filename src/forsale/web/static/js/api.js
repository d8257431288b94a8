// @ts-check
// Talking to the server: the REST calls (the table's WebSocket is socket.js).
// Every REST path of docs/protocol.md that the page uses is here.
import { refusedText } from "./refused.js";

export async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = (data && (data.detail?.message || data.message || data.detail || data.error?.message || data.error)) || `${response.status} ${response.statusText}`;
    const english = typeof message === "string" ? message : JSON.stringify(message);
    // Said in the page's language (refused.js); the server's own words stay at hand for forms that read them.
    const error = /** @type {Error & {serverMessage?: string, code?: string | null}} */ (new Error(data && data.error && data.error.code ? refusedText({ ...data.error, message: english }) : english));
    error.serverMessage = english;
    error.code = data && data.error ? data.error.code : null; // e.g. "bad_rules": the form shows it by the knobs
    throw error;
  }
  return data;
}

export const api = {
  health: () => call("GET", "/api/health"),
  bots: () => call("GET", "/api/bots"),
  rulesets: () => call("GET", "/api/rulesets"),
  solo: (body) => call("POST", "/api/solo", body),
  create: (body) => call("POST", "/api/tables", body),
  tables: () => call("GET", "/api/tables"),
  table: (id, invite) => call("GET", `/api/tables/${encodeURIComponent(id)}${invite ? `?invite=${encodeURIComponent(invite)}` : ""}`),
  join: (id, body) => call("POST", `/api/tables/${encodeURIComponent(id)}/join`, body),
  leave: (id, token) => call("POST", `/api/tables/${encodeURIComponent(id)}/leave`, { token }),
  settings: (id, body) => call("POST", `/api/tables/${encodeURIComponent(id)}/settings`, body),
  finished: (limit = 20) => call("GET", `/api/tables?status=over&limit=${limit}`),
  playing: () => call("GET", "/api/tables?status=all"),
  record: (id) => call("GET", `/api/tables/${encodeURIComponent(id)}/record${access(id)}`),
  replay: (id) => call("GET", `/api/tables/${encodeURIComponent(id)}/replay${access(id)}`),
  recordUrl: (id) => `/api/tables/${encodeURIComponent(id)}/record${access(id)}`,
  rematch: (id, body) => call("POST", `/api/tables/${encodeURIComponent(id)}/rematch`, body),
};

// Seat tokens live in localStorage so a reload (or a new tab) takes the seat back.
const KEY = "forsale.seats";

function loadSeats() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "{}");
  } catch {
    return {};
  }
}

export const seats = {
  get(tableId) {
    return loadSeats()[tableId] || null;
  },
  put(tableId, entry) {
    const all = loadSeats();
    all[tableId] = { ...(all[tableId] || {}), ...entry };
    localStorage.setItem(KEY, JSON.stringify(all));
  },
  drop(tableId) {
    const all = loadSeats();
    delete all[tableId];
    localStorage.setItem(KEY, JSON.stringify(all));
  },
  all: loadSeats,
};

/** What opens an invitation-only table's record and replay to this browser: its seat token, or the invitation code. */
function access(tableId) {
  const saved = seats.get(tableId);
  if (saved && saved.token) return `?token=${encodeURIComponent(saved.token)}`;
  if (saved && saved.invite) return `?invite=${encodeURIComponent(saved.invite)}`;
  return "";
}

export function playerName() {
  return localStorage.getItem("forsale.name") || "";
}

export function savePlayerName(name) {
  if (name) localStorage.setItem("forsale.name", name);
}
