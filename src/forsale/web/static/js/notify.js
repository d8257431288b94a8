// @ts-check
// "Your turn" while the page is open but not looked at: a browser notification, and a mark in the tab's title.
// (A page that is closed gets an email instead, when the server has one to send: forsale.server.people.turnmail.)
import { h } from "./format.js";
import { t } from "./i18n.js";

/** Whether this browser can show notifications at all. */
export function canNotify() {
  return typeof window.Notification === "function";
}

/** Someone is looking at the page: it is the visible tab and has the focus. */
function looking() {
  return document.visibilityState === "visible" && document.hasFocus();
}

/**
 * A button that asks for permission to notify (browsers allow the question only on a click), or null
 * where there is nothing to ask: no notifications here, or the question was answered already.
 */
export function notifyButton(redraw) {
  if (!canNotify() || Notification.permission !== "default") return null;
  return h(
    "button.btn.quiet",
    {
      type: "button",
      id: "notify-me",
      title: t("notify.explain"),
      onclick: async () => {
        await Notification.requestPermission();
        redraw();
      },
    },
    t("notify.button"),
  );
}

/**
 * Watches one seat's turns at a table: call it with every view; it notifies when a turn becomes the
 * seat's (not when the page opens on one) and nobody is looking. Returns a function that stops it.
 */
export function turnWatcher(tableName) {
  let mine = null; // null until the first view: opening the page on one's turn is not news
  const title = document.title;
  const restore = () => {
    if (looking()) document.title = title;
  };
  window.addEventListener("focus", restore);
  document.addEventListener("visibilitychange", restore);
  const watch = (view, seat) => {
    const now = seat !== null && seat !== undefined && !!view && (view.to_act || []).includes(seat);
    const became = mine === false && now;
    mine = now;
    if (!became || looking()) return;
    document.title = `● ${t("notify.title")} — ${title}`;
    if (canNotify() && Notification.permission === "granted") {
      const note = new Notification(t("notify.title"), { body: t("notify.body", { table: tableName() }), tag: "forsale-turn" });
      note.onclick = () => {
        window.focus();
        note.close();
      };
    }
  };
  watch.stop = () => {
    window.removeEventListener("focus", restore);
    document.removeEventListener("visibilitychange", restore);
    document.title = title;
  };
  return watch;
}
