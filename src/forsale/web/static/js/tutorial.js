// @ts-check
// The guided first game: a short solo table against gentle bots where each new
// situation (the first bid, the first pass, the refund, the last bidder paying
// in full, the first sale round, the reveal, the score) is explained in a few
// words the moment it first happens.
//
// Nothing here referees or watches the wire: a tip is chosen from what the
// live table already folds out of its view (ledger.js's events, the same ones
// the log tells), so a tip can never disagree with the log, and a burst of bot
// moves between two drawings still shows every tip, one after the other, in
// the order the situations happened. The table is a tutorial for this browser
// only (a flag beside its seat token): the server plays an ordinary solo game.
import { api, seats } from "./api.js";
import { h, k } from "./format.js";
import { t } from "./i18n.js";

/** The tutorial table: three players, two gentle bots, five rounds (official coins and refund). */
export const TUTORIAL_GAME = {
  players: 3,
  bot: "easy",
  rules: { starting_coins: 18, removed: 15, refund: "down" },
  memory_aid: true,
};

/** The tips in the order a game meets them. */
export const TIPS = ["intro", "bid", "pass", "refund", "take", "sale", "reveal", "score"];

const SEEN_KEY = "forsale.tutorial";

function loadSeen() {
  try {
    return JSON.parse(localStorage.getItem(SEEN_KEY) || "{}");
  } catch {
    return {};
  }
}

function saveSeen(tableId, seen) {
  try {
    localStorage.setItem(SEEN_KEY, JSON.stringify({ ...loadSeen(), [tableId]: [...seen] }));
  } catch {
    /* private mode: a reload shows the current tip again, nothing worse */
  }
}

/** Start a tutorial table and go to it: the lobby's "Learn to play" button. */
export function tutorialButton(ctx, nameOf) {
  const button = h("button.btn", { type: "button", id: "learn-to-play" }, t("tutorial.start"));
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const name = nameOf();
      const res = await api.solo({ ...TUTORIAL_GAME, player_name: name || undefined });
      seats.put(res.table.id, { token: res.token, seat: res.seat, name, creator: res.creator_token, tutorial: true });
      location.hash = `#/table/${res.table.id}`;
    } catch (e) {
      ctx.toast(e.message);
      button.disabled = false;
    }
  });
  return button;
}

/** Whether `tableId` was started as a tutorial in this browser. */
export function isTutorial(tableId) {
  const saved = seats.get(tableId);
  return !!(saved && saved.tutorial);
}

/**
 * Each situation's first moment in a folded game: tip -> [order, params]. The order is the
 * move that caused it (-1 for the deal), so tips queue up in the order things happened.
 */
function situations(folded, view, me) {
  /** @type {Map<string, [number, object]>} */
  const found = new Map([["intro", [-2, { count: view.rounds }]]]);
  const note = (tip, at, params) => {
    if (!found.has(tip)) found.set(tip, [at, params]);
  };
  // A bid, a pass or a take is queued where it first happened but told by its latest instance: after a reload
  // the bots may have played on, and "here house 7" must name a house the table shows now, not one long gone.
  const latest = (tip, at, params) => {
    found.set(tip, [found.has(tip) ? found.get(tip)[0] : at, params]);
  };
  const refund = view.ruleset.refund;
  folded.events.forEach((evs, i) => {
    for (const ev of evs) {
      if (ev.kind === "bid") latest("bid", i, { amount: k(ev.amount), mine: ev.seat === me });
      else if (ev.kind === "pass") {
        latest("pass", i, { house: ev.house });
        if (ev.bid) note("refund", i, { bid: k(ev.bid), back: k(ev.bid - ev.paid), paid: k(ev.paid), refund });
      } else if (ev.kind === "take" && ev.paid) latest("take", i, { house: ev.house, paid: k(ev.paid) });
      else if (ev.kind === "round" && ev.phase === "sale") note("sale", i, {});
      else if (ev.kind === "sale") note("reveal", i, {});
      else if (ev.kind === "end") note("score", i, {});
    }
  });
  // The refund matters to you the moment you could pass with a bid standing: say it then if no one has yet.
  const mine = me === null ? 0 : view.bids[me];
  if (view.phase === "auction" && view.turn === me && mine > 0) {
    const back = refund === "up" ? Math.ceil(mine / 2) : Math.floor(mine / 2);
    note("refund", folded.events.length, { bid: k(mine), back: k(back), paid: k(mine - back), refund });
  }
  return found;
}

/**
 * The tips of one tutorial table. `tip(sc, view, {me, watching})` gives the element to draw in the
 * board (or null), `afterDraw()` moves the focus to a tip that has just opened and says it
 * through the page's live region; both are called by live.js on every drawing.
 */
export function tutorial(ctx, tableId, { redraw }) {
  const seen = new Set(loadSeen()[tableId] || []);
  let current = null; // [tip, params] shown now
  let opened = null; // the tip whose opening (focus, announcement, animation) is still to do
  let said = null; // the last tip whose text went to the live region
  let returnFocus = null; // the data-focus key that held the focus before the tip took it

  function dismiss() {
    if (!current) return;
    seen.add(current[0]);
    saveSeen(tableId, seen);
    current = null;
    redraw(); // the next tip, if its moment has come already, opens here and takes the focus itself
    if (current) return; // (and gives it back, when dismissed, to where the player was before the first)
    const back = returnFocus;
    returnFocus = null;
    // Back where the player was, or to the first move they can make, never lost on the body.
    const root = document.getElementById("app");
    const target = /** @type {HTMLElement} */ ((back && root.querySelector(`[data-focus="${back}"]:not(:disabled)`)) || root.querySelector(".actions [data-focus]:not(:disabled)") || root);
    target.focus({ preventScroll: true });
  }

  /**
   * Open the next tip whose moment has come in `folded`, if none is open; whether one is open now. live.js
   * calls this as each state arrives (not only when it draws), so that the states after a tip's moment wait
   * until the tip is dismissed: the table the learner reads is the one the tip speaks of (its house, its bid),
   * not one the bots have since played on.
   */
  function check(folded, view, { me, watching }) {
    if (watching || !view) return false;
    if (!current) {
      const found = situations(folded, view, me);
      const next = TIPS.filter((tp) => found.has(tp) && !seen.has(tp)).sort((a, b) => found.get(a)[0] - found.get(b)[0])[0];
      if (next) {
        current = [next, found.get(next)[1]];
        opened = next;
      }
    }
    return !!current;
  }

  function tip(sc, view, { me, watching }) {
    if (!check(sc.folded, view, { me, watching })) return null;
    const [key, params] = current;
    // Numbered in the order the tips open (the game decides which situation comes first), never 3 before 2.
    const number = seen.size + 1;
    const text =
      key === "refund" ? t(`tutorial.refund.${params.refund}`, params) : key === "bid" && params.mine ? t("tutorial.bid.mine", params) : t(`tutorial.${key}.text`, params);
    const ok = h("button.btn.primary", { type: "button", id: "tip-ok", "data-focus": "tip-ok", onclick: dismiss }, key === "score" ? t("tutorial.finish") : t("tutorial.ok"));
    return h(
      "div.tip",
      {
        id: "tutorial-tip",
        class: `tip ${opened === key ? "fresh" : ""}`,
        role: "dialog",
        "aria-modal": "false",
        "aria-labelledby": "tip-title",
        "aria-describedby": "tip-text",
        dataset: { tip: key },
        onkeydown: (event) => {
          if (event.key === "Escape") {
            event.preventDefault();
            dismiss();
          }
        },
      },
      h("p.tip-step", null, t("tutorial.step", { step: number, steps: TIPS.length })),
      h("h2", { id: "tip-title" }, t(`tutorial.${key}.title`)),
      h("p", { id: "tip-text" }, text),
      h("div.row", null, ok),
    );
  }

  function afterDraw() {
    if (!current || opened !== current[0]) return;
    opened = null;
    const active = /** @type {HTMLElement | null} */ (document.activeElement);
    const key = active && active.dataset ? active.dataset.focus : null;
    if (key && key !== "tip-ok") returnFocus = key;
    const ok = document.getElementById("tip-ok");
    if (ok) ok.focus({ preventScroll: false });
    // The table's own announcement was just written; the tip is said after it, in the same region.
    const region = document.getElementById("announce");
    const tipText = `${document.getElementById("tip-title").textContent}. ${document.getElementById("tip-text").textContent}`;
    if (said !== current[0]) {
      said = current[0];
      ctx.announce(region.textContent ? `${region.textContent} ${tipText}` : tipText);
    }
  }

  return { tip, check, afterDraw, dismiss, isOpen: () => !!current };
}
