// @ts-check
// "Play now with people": quick pairing's card in the lobby (docs/pairing.md).
//
// A signed-in player chooses a table size (or any), rated or casual, and whether bots may fill the free seats after
// a wait, and joins the queue (POST /api/pairing). While waiting, the page keeps one long poll of its notices open
// (GET /api/me/notices): that open poll is what keeps the player in the queue (the server drops an entry nobody
// reads for within seconds), and it ends the moment the server seats the player, whose table opens at once (the
// table resumes the account's seat: live.js). Leaving the page or Cancel leaves the queue. A guest is asked to sign in.
import { account } from "./account.js";
import { call } from "./api.js";
import { h } from "./format.js";
import { t } from "./i18n.js";

const PREFS = "forsale.pairing";
/** Waits before bots fill the free seats, in seconds ("" never): the choices of the form. */
const BOT_WAITS = ["", "5", "15", "30", "60", "120"];
/** Seconds between two looks at the counts (how many wait, how many play), waiting or not. */
const COUNTS_EVERY = 5000;
/** Seconds a notices poll waits on the server before it answers empty and the page asks again. */
const POLL_WAIT = 20;

export const pairingApi = {
  state: () => call("GET", "/api/pairing"),
  join: (body) => call("POST", "/api/pairing", body),
  leave: () => call("DELETE", "/api/pairing"),
  notices: (after, wait, signal) => fetchNotices(after, wait, signal),
};

/** `GET /api/me/notices` with an AbortSignal (call() takes none): the poll is cancelled when the player cancels. */
async function fetchNotices(after, wait, signal) {
  const response = await fetch(`/api/me/notices?after=${Number(after) || 0}&wait=${Number(wait) || 0}`, { signal });
  if (!response.ok) throw new Error(`${response.status}`);
  return response.json();
}

function loadPrefs() {
  try {
    return JSON.parse(localStorage.getItem(PREFS) || "{}");
  } catch {
    return {};
  }
}

/** "1:05" for 65 seconds: the waiting time as a clock shows it. */
export function elapsed(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** The `players` of a join request from the form's choice: "any" or one table size. */
export function playersOf(choice) {
  return choice === "any" ? "any" : Number(choice);
}

/**
 * The card, and `stop` (the lobby calls it when it is left: the queue is left too, and every loop ends).
 * @param {{toast: (text: string) => void}} ctx
 */
export function pairingCard(ctx) {
  const prefs = loadPrefs();
  let alive = true;
  /** @type {AbortController | null} */
  let polling = null; // the notices poll while waiting
  let since = 0; // when the wait began (ms since the epoch)
  let ticking = 0; // the elapsed-time timer
  let last = 0; // the id of the latest notice read: the next poll asks for those after it
  // A look at the queue (refresh) asked before the player's latest Find or Cancel, or answered before the server took
  // it, tells the queue as it was: after a Cancel, "waiting" again (and then "you are no longer in the queue"). Looks
  // are asked once the latest Find or Cancel is answered, and an answer is dropped if one came between.
  let acted = 0;
  /** @type {Promise<unknown>} */
  let settling = Promise.resolve();

  const counts = h("p.hint.pairing-counts", { id: "pairing-counts", "aria-live": "polite" });
  const error = h("div.error-box", { role: "alert" });
  const size = h(
    "select",
    { id: "pairing-players" },
    h("option", { value: "any", selected: (prefs.players || "any") === "any" }, t("pairing.any")),
    [3, 4, 5, 6].map((n) => h("option", { value: n, selected: String(prefs.players) === String(n) }, t("lobby.players", { count: n }))),
  );
  const rated = h("input", { type: "checkbox", id: "pairing-rated", checked: prefs.rated === true });
  const bots = h(
    "select",
    { id: "pairing-bots" },
    BOT_WAITS.map((s) => h("option", { value: s, selected: String(prefs.bots ?? "30") === s }, s ? t("pairing.botsAfter", { count: Number(s) }) : t("pairing.botsNever"))),
  );
  const find = h("button.btn.primary", { type: "submit", id: "pairing-find" }, t("pairing.find"));
  const form = h(
    "form.form",
    { id: "pairing-form", onsubmit: (event) => (event.preventDefault(), start()) },
    // Each menu on a line of its own: side by side, "Never: wait for people" was cut short on a phone and a laptop alike.
    h("label", { for: "pairing-players" }, t("pairing.players"), size),
    h("label", { for: "pairing-bots" }, t("pairing.bots"), bots),
    h("label.check", { for: "pairing-rated" }, rated, t("account.rated")),
    find,
  );
  const clock = h("strong", { id: "pairing-elapsed", role: "timer" }, elapsed(0));
  const cancel = h("button.btn", { type: "button", id: "pairing-cancel", onclick: () => stopWaiting(true) }, t("pairing.cancel"));
  const waiting = h("div.pairing-waiting", { id: "pairing-waiting", hidden: true }, h("p", null, t("pairing.looking"), " ", clock), cancel);
  const signIn = h("p.hint", { id: "pairing-sign-in", hidden: true }, t("pairing.signIn"));
  const el = h("section.panel", { id: "pairing", "aria-labelledby": "pairing-title" }, h("h2", { id: "pairing-title" }, t("pairing.title")), h("p.hint", null, t("pairing.hint")), signIn, form, waiting, counts, error);

  const showCounts = (c) => {
    if (!c) return;
    counts.textContent = `${t("pairing.waitingCount", { count: c.waiting })} · ${t("pairing.playingCount", { count: c.playing })}`;
  };

  function show(waitingNow) {
    form.hidden = waitingNow;
    waiting.hidden = !waitingNow;
    find.disabled = false;
  }

  async function start() {
    error.textContent = "";
    find.disabled = true;
    const body = { players: playersOf(size.value), rated: rated.checked, bots_after: bots.value ? Number(bots.value) : null };
    localStorage.setItem(PREFS, JSON.stringify({ players: size.value, rated: rated.checked, bots: bots.value }));
    acted += 1;
    const joining = pairingApi.join(body);
    settling = joining.catch(() => {});
    try {
      const res = await joining;
      showCounts(res.counts);
      wait(res.after, res.pairing.since);
    } catch (e) {
      error.textContent = e.message;
      find.disabled = false;
    }
  }

  /** Waiting: the elapsed time, and the notices poll until the seat comes (or the player cancels). */
  function wait(after, joinedAt) {
    since = joinedAt || Date.now();
    show(true);
    cancel.focus();
    const tick = () => (clock.textContent = elapsed((Date.now() - since) / 1000));
    tick();
    clearInterval(ticking);
    ticking = window.setInterval(tick, 1000);
    poll(after);
  }

  /** The notices after `last` (waiting up to `seconds` for one); true if one seated the player (the table opens). */
  async function seatedYet(seconds, signal) {
    const res = await pairingApi.notices(last, seconds, signal);
    last = res.last;
    const seated = res.notices.find((n) => n.kind === "seated" && n.source && n.source.pairing);
    if (!seated) return false;
    stopWaiting(false);
    ctx.toast(t("pairing.found"));
    location.hash = `#/table/${seated.table}`;
    return true;
  }

  async function poll(after) {
    const controller = new AbortController();
    polling = controller;
    // A wait taken up again after a reload starts from the latest notice: no table has been made for it yet.
    last = after ?? (await pairingApi.notices(-1, 0, controller.signal).catch(() => ({ last: 0 }))).last;
    while (alive && polling === controller) {
      try {
        if (await seatedYet(POLL_WAIT, controller.signal)) return;
      } catch {
        if (controller.signal.aborted) return;
        await new Promise((resolve) => setTimeout(resolve, 1000)); // the server away: ask again in a moment
      }
    }
  }

  /** Stop waiting; `leave`: tell the server too (Cancel, or the lobby left while waiting). */
  function stopWaiting(leave) {
    if (polling) polling.abort();
    polling = null;
    clearInterval(ticking);
    show(false);
    if (leave) {
      acted += 1;
      settling = pairingApi.leave().catch(() => {});
    }
  }

  // Closing the tab or leaving the site: leave the queue now (the server would drop the entry within seconds anyway).
  const onHide = () => {
    if (polling) fetch("/api/pairing", { method: "DELETE", keepalive: true }).catch(() => {});
  };
  window.addEventListener("pagehide", onHide);

  async function refresh() {
    try {
      await settling;
      const asked = acted;
      const res = await pairingApi.state();
      if (!alive || asked !== acted) return; // a Find or Cancel since: the answer is out of date
      showCounts(res.counts);
      if (res.pairing && !polling) wait(null, res.pairing.since); // waiting already (a reload): wait on
      else if (!res.pairing && polling && !(await seatedYet(0).catch(() => false)) && polling) {
        // Left in another tab, or gone from the queue (the tab asleep too long), and not seated: say so.
        stopWaiting(false);
        error.textContent = t("pairing.lost");
      }
    } catch {
      /* the counts wait for the next look */
    }
  }

  account().then((a) => {
    if (!alive) return;
    signIn.hidden = !!a;
    form.hidden = !a;
    if (a) refresh();
  });
  if (!polling) pairingApi.state().then((res) => alive && showCounts(res.counts)).catch(() => {});
  const timer = window.setInterval(refresh, COUNTS_EVERY);

  return {
    el,
    stop() {
      alive = false;
      clearInterval(timer);
      window.removeEventListener("pagehide", onHide);
      if (polling) stopWaiting(true);
    },
  };
}
