// @ts-check
// The table's chat: a log that screen readers follow (role=log is a polite live region), a labelled
// input (Enter sends), and a per-author mute that this browser remembers. Every message is text:
// it goes into the page as text nodes (textContent), never as HTML.
import { api } from "./api.js";
import { h, shownName } from "./format.js";
import { t } from "./i18n.js";

const MUTED_KEY = "forsale.muted";
export const CHAT_MAX = 300; // characters a message may hold (the server says the same: docs/protocol.md)

function loadMuted() {
  try {
    return new Set(JSON.parse(localStorage.getItem(MUTED_KEY) || "[]"));
  } catch {
    return new Set();
  }
}

function saveMuted(muted) {
  try {
    localStorage.setItem(MUTED_KEY, JSON.stringify([...muted]));
  } catch {
    /* private mode: the mute lasts as long as the page */
  }
}

/**
 * The chat panel of one table. `send(text)` sends a chat message (returns null when not connected);
 * `me()` is the seat this page plays (null: watching); `canWrite()` whether this page may write; `botAccount(seat)`
 * whether a seat is a bot account's (its lines are marked so, as its seat is).
 * The panel stays in the page while the table redraws, so what is being typed is never lost.
 */
export function chatPanel({ send, me, canWrite, botAccount = (/** @type {number} */ _seat) => false }) {
  const messages = new Map(); // n -> message, as the server numbered them
  const muted = loadMuted();
  const log = h("ol.chat-log", { id: "chat-log", "aria-labelledby": "chat-title", tabindex: "0" });
  // The live region wraps the list (a list given role=log is no list: its items would be orphans).
  const live = h("div.chat-live", { id: "chat-live", role: "log", "aria-labelledby": "chat-title" }, log);
  const mutedLine = h("p.hint.chat-muted", { id: "chat-muted" });
  const input = h("input", { type: "text", id: "chat-input", maxlength: CHAT_MAX, autocomplete: "off" });
  const sendBtn = h("button.btn", { type: "submit", id: "chat-send" }, t("chat.send"));
  const readOnly = h("p.hint", { id: "chat-readonly", hidden: true }, t("chat.readOnly"));
  const label = h("label", { for: "chat-input" }, t("chat.label"));
  const title = h("h2", { id: "chat-title" }, t("chat.title"));
  const form = h(
    "form.chat-form",
    {
      onsubmit: (event) => {
        event.preventDefault();
        const text = input.value;
        if (!text.trim()) return;
        if (send(text) === null) return; // not connected: keep the text for another try
        input.value = "";
      },
    },
    label,
    input,
    sendBtn,
  );
  // New messages while the chat is out of sight (below the table, on a phone below the fold) are counted on a
  // badge that stays in view; it takes the player to the chat and goes once the chat has been seen.
  // One mechanism says what was seen: an IntersectionObserver on the newest line of the log. A message counts as
  // seen once that line has been almost wholly in sight (clipped by the log's own scrolling and by the window),
  // and with it every message before it. Any pixel of the chat's box is not enough: on a phone the chat's top
  // border can sit a few pixels above the fold, below the table, with the new line itself out of sight.
  let seenUpTo = 0; // the newest message the player has had in sight (or that came with the table's history)
  let historyCame = false;
  const badge = h("button.btn.chat-unread", { type: "button", id: "chat-unread", hidden: true, onclick: () => el.scrollIntoView({ block: "nearest" }) });
  const el = h("section.panel.chat", { id: "chat", "aria-labelledby": "chat-title" }, title, live, mutedLine, readOnly, form, badge);
  /** The badge: messages from others, not muted, newer than the newest one seen. */
  function showUnread() {
    const mine = (m) => m.seat !== null && m.seat === me();
    const unread = [...messages.values()].filter((m) => m.n > seenUpTo && !mine(m) && !muted.has(m.name || t("chat.spectator"))).length;
    badge.hidden = unread === 0;
    if (unread) badge.textContent = t("chat.unread", { count: unread });
  }
  // The observer reports each line it is given once at once (so a new line is counted only after it has been
  // measured: no badge flashes for a message in sight), then whenever that line comes into or goes out of sight.
  const SEEN = 0.9;
  const sight = new IntersectionObserver(
    (entries) => {
      for (const e of entries) if (e.intersectionRatio >= SEEN) seenUpTo = Math.max(seenUpTo, Number(/** @type {HTMLElement} */ (e.target).dataset.n));
      showUnread();
    },
    { threshold: SEEN },
  );
  /** Watch the log's newest line (the log was just appended to or redrawn). */
  function watchNewest() {
    sight.disconnect();
    const newest = log.querySelector("li[data-n]:last-child");
    if (newest) sight.observe(newest);
    else showUnread();
  }

  function toggleMute(name) {
    if (muted.has(name)) muted.delete(name);
    else muted.add(name);
    saveMuted(muted);
    draw();
  }

  function line(message) {
    const mine = message.seat !== null && message.seat === me();
    const key = message.name || t("chat.spectator"); // what a mute remembers: the name as the server sent it
    // A seat's author as the table shows it: a server-made name ("Player 2") in the page's language, "you" for one's own.
    const name = message.name && message.seat != null ? shownName(message.name, message.seat, { mine }) : key;
    return h(
      "li",
      { class: mine ? "mine" : "", dataset: { n: message.n, seat: message.seat ?? "" } },
      h("span.chat-name", null, name),
      message.seat != null && botAccount(message.seat) ? h("span.badge.chat-bot", null, t("seat.badge.botAccount")) : null,
      h("span.chat-text", null, message.text),
      mine ? null : h("button.btn.quiet.chat-mute", { type: "button", "aria-label": t("chat.mute", { name }), title: t("chat.mute", { name }), onclick: () => toggleMute(key) }, t("chat.muteShort")),
    );
  }

  function draw() {
    // The panel outlives the table's redraws, so its own words follow a language switch here.
    title.textContent = t("chat.title");
    label.textContent = t("chat.label");
    sendBtn.textContent = t("chat.send");
    readOnly.textContent = t("chat.readOnly");
    const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
    const shown = [...messages.values()].sort((a, b) => a.n - b.n).filter((m) => !muted.has(m.name || t("chat.spectator")));
    log.replaceChildren(...(shown.length ? shown.map(line) : [h("li.empty", null, t("chat.empty"))]));
    mutedLine.replaceChildren(
      ...(muted.size
        ? [t("chat.mutedList"), " ", ...[...muted].map((name) => h("button.btn.quiet", { type: "button", onclick: () => toggleMute(name) }, t("chat.unmute", { name })))]
        : []),
    );
    if (atBottom) log.scrollTop = log.scrollHeight;
    watchNewest();
    const writable = canWrite();
    readOnly.hidden = writable;
    input.disabled = !writable;
    sendBtn.disabled = !writable;
  }

  draw();
  return {
    el,
    /** `chat_history`: everything so far (a reconnection sends it again: nothing is shown twice). */
    history(list) {
      messages.clear();
      for (const m of list || []) messages.set(m.n, m);
      // What was said before this page came is not news; what a reconnection brings again is counted as usual.
      if (!historyCame) seenUpTo = Math.max(0, ...messages.keys());
      historyCame = true;
      draw();
    },
    add(message) {
      const newest = Math.max(0, ...messages.keys());
      messages.set(message.n, message);
      if (message.n <= newest) return draw();
      // Appended, not redrawn: the live region then reads out the new message alone.
      if (muted.has(message.name || t("chat.spectator"))) return;
      const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
      log.querySelector("li.empty")?.remove();
      log.append(line(message));
      if (atBottom) log.scrollTop = log.scrollHeight;
      watchNewest();
    },
    refresh: draw,
  };
}

/**
 * The creator's switch that lets spectators write in the chat, or not (they may always read): the table's
 * `spectator_chat` setting (POST /api/tables/{id}/settings). Every page at the table learns the change from
 * the table info the server then sends, so a spectator's input opens or closes without a reload.
 */
export function spectatorChatSwitch(tableId, creatorToken, allowed, changed, failed) {
  const box = h("input", { type: "checkbox", id: "spectator-chat-allowed", checked: allowed });
  box.addEventListener("change", async () => {
    try {
      changed((await api.settings(tableId, { creator_token: creatorToken, spectator_chat: box.checked })).table);
    } catch (e) {
      box.checked = !box.checked;
      failed(e.message);
    }
  });
  return h("section.panel.chat-setting", null, h("label.toggle", { for: "spectator-chat-allowed" }, box, t("settings.spectatorChat")));
}
