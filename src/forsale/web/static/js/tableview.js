// @ts-check
// A live table drawn from its state (tablemodel.js): the board, the seat's corner with its moves, the side panels,
// the end screen and the header's tools. Views read the model and call back through `TableUi` (live.js's): they
// never send, store or fetch anything themselves, so what the page does stays in one place and what it shows in
// another.
import { analysisPanel, hintButton, hintsSwitch } from "./analysis.js";
import { api, seats } from "./api.js";
import { felt, myArea, resultsTable, sceneFromView, seatName, seatsRow } from "./board.js";
import { houseCard } from "./cards.js";
import { spectatorChatSwitch } from "./chat.js";
import { distinctNames, h, k, money, shownName, shownTableName } from "./format.js";
import { has, t } from "./i18n.js";
import { explainResult, fold, setupFromView, winners } from "./ledger.js";
import { notifyButton } from "./notify.js";
import { refusedText } from "./refused.js";
import { storyLines } from "./story.js";
import {
  clockShown, costOfPass, decisionKey, legal, memoryAllowed, offline, revealNow, seated, seatsOf, solo, stillChoosing,
  unannounced, waitingForPlayers,
} from "./tablemodel.js";

/**
 * What the views may ask of the page around them (live.js).
 * @typedef {object} TableUi
 * @property {any} ctx the page's frame (main.js): toast, announce, setInfo, setTools
 * @property {any} tips the tutorial's tips at a "Learn to play" table, else null
 * @property {(action: import("./tablemodel.js").Action) => void} act send a move
 * @property {() => void} draw redraw the table
 * @property {(on: boolean) => void} setMemory this browser's memory-aid switch
 * @property {(table: any) => void} setTable the creator changed a setting; here is the table's new description
 *   (who may write in the chat may have changed too)
 * @property {(accept: boolean) => void} answerRematch offer or accept (true) or decline (false) a rematch
 * @property {() => void} leave give up the seat
 * @property {() => void} askRating after a rated game, ask for this seat's rating change
 */

/** @typedef {import("./tablemodel.js").TableModel} TableModel */

/**
 * Seat names in the page's language, made distinct ("random bot 2", "random bot 3") so the log can be followed.
 * @param {TableModel} m
 * @returns {string[]}
 */
export function names(m) {
  return distinctNames(seatsOf(m).map((seat, s) => shownName(seat ? seat.name : "", s, { bot: seat?.bot, open: seat?.kind === "open", mine: s === m.seat })));
}

/** @param {TableModel} m */
function badges(m) {
  return seatsOf(m).map((seat) => {
    if (!seat) return "";
    if (seat.kind === "bot") return t("seat.badge.bot");
    if (seat.kind === "open") return t("seat.badge.free");
    if (seat.bot_account) return t("seat.badge.botAccount"); // a program playing through the Bot API
    return seat.account ? t("seat.badge.account") : ""; // a signed-in account's seat, under its name
  });
}

/** The table's name as the page shows it. @param {TableModel} m */
export function tableTitle(m) {
  return m.table && m.table.name ? shownTableName(m.table.name, m.table.players) : t("table.name", { id: m.tableId });
}

/** @param {TableModel} m */
function scene(m) {
  const v = m.view;
  const folded = fold(setupFromView(v, names(m)));
  // Waiting for players, nobody is "to bid" yet: the seats and the felt say so too, not "your turn".
  const sc = sceneFromView(waitingForPlayers(m) ? { ...v, turn: null, legal: [] } : v, {
    names: names(m),
    badges: badges(m),
    offline: offline(m),
    me: m.watch ? null : m.seat,
    foldState: folded.states.at(-1),
    reveal: revealNow(m),
    showAll: m.memory && memoryAllowed(m),
  });
  sc.folded = folded;
  return sc;
}

// -- the action bar -----------------------------------------------------------------
/** @param {TableModel} m @param {TableUi} ui @param {any} sc */
function auctionActions(m, ui, sc) {
  const v = m.view;
  const seat = /** @type {number} */ (m.seat);
  const myTurn = legal(m).length > 0;
  const coins = v.coins[seat];
  const canRaise = legal(m).some((a) => "bid" in a);
  const min = v.high + 1;
  const lowest = v.table[0];
  const myBid = v.bids[seat];
  const refund = myBid - costOfPass(v, myBid);
  const passText = myBid ? t("act.passPaid", { house: lowest, count: lowest, paid: k(costOfPass(v, myBid)), back: k(refund) }) : t("act.passFree", { house: lowest, count: lowest });
  if (!v.active[seat]) return h("div.actions", null, h("span.note", null, t("act.passedWait")));
  if (!myTurn) {
    return h("div.actions", null, h("span.note.waiting-dots", null, t("act.waitingFor", { name: seatName(sc, v.turn) })));
  }
  const input = /** @type {HTMLInputElement} */ (h("input.bid-input", {
    type: "number",
    id: "bid-amount",
    min,
    max: coins,
    step: 1,
    // What you were typing survives a redraw (a seat connecting, a clock message), not a new move.
    value: canRaise ? (m.draft && m.draft.moves === v.history.length ? m.draft.value : min) : "",
    disabled: !canRaise || m.pending,
    "aria-label": t("act.bidField"),
    inputmode: "numeric",
    dataset: { focus: "bid" },
    oninput: (/** @type {Event} */ event) => {
      m.draft = { moves: v.history.length, value: /** @type {HTMLInputElement} */ (event.target).value };
    },
    onkeydown: (/** @type {KeyboardEvent} */ event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        submitBid();
      }
    },
  }));
  function submitBid() {
    const amount = Number(input.value);
    if (!Number.isInteger(amount) || amount < min || amount > coins) {
      ui.ctx.toast(t("act.bidRange", { min, max: coins }));
      return;
    }
    ui.act({ bid: amount });
  }
  const quick = (/** @type {number} */ step) =>
    h(
      "button.btn",
      {
        type: "button",
        "data-focus": `plus${step}`,
        disabled: !canRaise || v.high + step > coins || m.pending,
        title: t("act.bidTo", { amount: k(v.high + step) }),
        "aria-label": t("act.bidPlus", { amount: k(v.high + step), step }),
        onclick: () => ui.act({ bid: v.high + step }),
      },
      `+${step}`,
    );
  return h(
    "div.actions",
    { role: "group", "aria-label": t("act.yourMove") },
    canRaise ? [h("label.sr-only", { for: "bid-amount" }, t("act.bid")), input, h("span.note", null, t("act.thousands")),
      h("button.btn.primary", { type: "button", "data-focus": "bid-btn", disabled: m.pending, onclick: submitBid }, t("act.bid")),
      quick(1), quick(2)] : h("span.note", null, t("act.cannotTop", { high: k(v.high), coins: k(coins) })),
    h("button.btn", { type: "button", "data-focus": "pass", disabled: m.pending, onclick: () => ui.act({ pass: true }) }, passText),
    h("span.note", null, canRaise ? t("act.youHold", { money: money(coins) }) : ""),
  );
}

/** @param {TableModel} m @param {TableUi} ui @param {any} sc */
function saleActions(m, ui, sc) {
  const v = m.view;
  const waiting = stillChoosing(v, m.seat);
  if (v.my_commit) {
    return h(
      "div.actions",
      null,
      h("span.note", null, t("act.selling", { house: v.my_commit }), " ",
        waiting.length ? h("span.waiting-dots", null, t("act.othersChoosing", { names: waiting.map((s) => sc.names[s]).join(", ") })) : t("act.revealing")),
    );
  }
  const chosen = m.selected;
  return h(
    "div.actions",
    { role: "group", "aria-label": t("act.yourSale") },
    h("span.note", null, chosen ? t("act.sellAsk", { house: chosen }) : t("act.pick")),
    h("button.btn.primary", { type: "button", "data-focus": "sell", disabled: !chosen || m.pending, onclick: () => chosen && ui.act({ sell: chosen }) }, chosen ? t("act.sellHouse", { house: chosen }) : t("act.sell")),
  );
}

/** @param {TableModel} m @param {TableUi} ui */
function handCard(m, ui) {
  const v = m.view;
  const choosing = v.phase === "sale" && !v.my_commit && legal(m).length > 0;
  return (/** @type {number} */ house) => {
    if (!choosing) return houseCard(house);
    const card = /** @type {HTMLButtonElement} */ (houseCard(house, { button: true, label: t("act.sellHouse", { house }) }));
    card.dataset.focus = `house-${house}`;
    const current = m.selected ?? (v.hands[/** @type {number} */ (m.seat)] || [])[0];
    card.tabIndex = current === house ? 0 : -1;
    card.disabled = m.pending; // sent: no second choice until the server answers
    if (m.selected === house) card.classList.add("chosen");
    card.setAttribute("aria-pressed", m.selected === house ? "true" : "false");
    // The hand is one stop for Tab (a roving tabindex); the arrow keys move between its houses (Space or Enter chooses).
    card.addEventListener("keydown", (event) => {
      const step = /** @type {Object<string, number>} */ ({ ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 })[event.key];
      if (!step) return;
      event.preventDefault();
      const all = /** @type {HTMLElement[]} */ ([...(card.parentElement?.querySelectorAll("button.card.house") || [])]);
      const next = all[(all.indexOf(card) + step + all.length) % all.length];
      if (next) next.focus();
    });
    card.addEventListener("click", () => {
      if (m.selected === house) ui.act({ sell: house });
      else {
        m.selected = house;
        ui.draw();
      }
    });
    return card;
  };
}

// -- side panels ------------------------------------------------------------------
/** @param {any} sc */
function logPanel(sc) {
  const lines = storyLines(sc.folded, (s) => seatName(sc, s), sc.rounds);
  const list = h("ol.log", { "aria-label": t("log.label"), tabindex: "0" }, lines.map((l) => h(`li.${l.cls || "x"}`, null, l.text)));
  return h("section.panel", null, h("h2", null, t("log.title")), list);
}

/** The table's creator may allow or forbid the memory aid at any time. @param {TableModel} m @param {TableUi} ui */
function creatorSwitch(m, ui) {
  const saved = seats.get(m.tableId);
  if (!saved || !saved.creator || !m.table) return null;
  // Alone with bots, the memory aid's own switch is the one setting; "allow it" shows only to turn it back on.
  if (solo(m) && memoryAllowed(m)) return null;
  const box = h("input", {
    type: "checkbox",
    id: "memory-allowed",
    checked: memoryAllowed(m),
    onchange: async (/** @type {Event} */ event) => {
      try {
        const res = await api.settings(m.tableId, { creator_token: saved.creator, memory_aid: /** @type {HTMLInputElement} */ (event.target).checked });
        ui.setTable(res.table);
      } catch (e) {
        ui.ctx.toast(/** @type {Error} */ (e).message);
      }
    },
  });
  return h("label.toggle", { for: "memory-allowed", title: t("memory.creator") }, box, t("memory.allowHere"));
}

/** @param {TableModel} m @param {TableUi} ui @param {any} sc */
function memoryPanel(m, ui, sc) {
  const v = m.view;
  if (!memoryAllowed(m)) {
    return h(
      "section.panel.memory",
      null,
      h("h2", null, t("memory.title")),
      h("p.hint", null, t("memory.off")),
      creatorSwitch(m, ui),
    );
  }
  const toggle = h("input", {
    type: "checkbox",
    id: "memory-toggle",
    checked: m.memory,
    onchange: (/** @type {Event} */ event) => ui.setMemory(/** @type {HTMLInputElement} */ (event.target).checked),
  });
  const panel = h("section.panel.memory", { id: "memory" }, h("label.toggle", { for: "memory-toggle" }, toggle, t("memory.title")), creatorSwitch(m, ui));
  if (!m.memory) {
    panel.append(h("p.hint", null, t("memory.what")));
    return panel;
  }
  panel.append(
    h("h3", null, t("memory.housesToCome", { count: v.houses_to_come }), aside(v.houses_to_come, v.unseen_houses.length)),
    h("div.cards-line", { id: "memory-houses", dataset: { cards: v.unseen_houses.join(",") } }, v.houses_to_come ? v.unseen_houses.map((/** @type {number} */ x) => h("span.tiny.house", { title: t("card.house", { value: x }) }, String(x))) : null),
    h("h3", null, t("memory.chequesToCome", { count: v.cheques_to_come }), aside(v.cheques_to_come, v.unseen_cheques.length)),
    h("div.cards-line", { id: "memory-cheques", dataset: { cards: v.unseen_cheques.join(",") } }, v.cheques_to_come ? v.unseen_cheques.map((/** @type {number} */ x) => h("span.tiny.cheque", { title: t("card.cheque.label", { money: money(x) }) }, k(x))) : null),
    h("h3", null, t("memory.everySeat")),
    h(
      "table",
      { id: "memory-seats" },
      h("thead", null, h("tr", null, h("th", null, t("memory.seat")), h("th", null, t("memory.coins")), h("th", null, t("memory.houses")), h("th", null, t("memory.cheques")))),
      h(
        "tbody",
        null,
        v.coins.map((/** @type {number} */ c, /** @type {number} */ s) =>
          h(
            "tr",
            { dataset: { seat: s, coins: c, hand: v.hands[s].join(","), cheques: v.cheques_won[s].join(",") } },
            h("td", null, seatName(sc, s)),
            h("td.num", null, money(c)),
            h("td", null, v.hands[s].join(" ") || "–"),
            h("td", null, v.cheques_won[s].map(k).join(" ") || "–"),
          ),
        ),
      ),
    ),
  );
  return panel;
}

/**
 * " (8 of the 10 unseen; the others were set aside at the start)" when cards were removed unseen.
 * @param {number} toCome
 * @param {number} unseen
 */
function aside(toCome, unseen) {
  if (unseen <= toCome) return "";
  return ` ${toCome ? t("memory.asideSome", { count: unseen, aside: unseen - toCome }) : t("memory.asideAll", { count: unseen })}`;
}

/** Before every seat is taken: who is missing, and the link to send each of them. @param {TableModel} m */
function waitingPanel(m) {
  if (!m.table || m.table.status !== "waiting") return null;
  const open = (m.table.seats || []).filter((s) => s.kind === "open");
  const tableId = m.tableId;
  return h(
    "section.panel",
    { id: "waiting", "aria-live": "polite" },
    h("h2", null, t("waiting.title")),
    h("p.hint", null, t("waiting.hint")),
    h(
      "div.links",
      null,
      open.map((s) => {
        const invite = seats.get(tableId)?.invite;
        const url = `${location.origin}${location.pathname}#/table/${tableId}?seat=${s.seat}${invite ? `&invite=${encodeURIComponent(invite)}` : ""}`;
        return h("div.link-row", null, h("span", null, t("seat.number", { seat: s.seat + 1 })), h("input", { type: "text", readonly: true, value: url, "aria-label": t("link.forSeat", { seat: s.seat + 1 }), onfocus: (/** @type {Event} */ e) => /** @type {HTMLInputElement} */ (e.target).select() }));
      }),
    ),
  );
}

/** @param {TableModel} m @param {TableUi} ui */
function ratingChangeLine(m, ui) {
  if (m.table && m.table.rated && seated(m) && !m.ratingAsked) {
    m.ratingAsked = true;
    ui.askRating();
  }
  const r = m.ratingChange;
  if (!r) return null;
  const d = r.after - r.before;
  const change = d > 0 ? `+${d}` : d < 0 ? `−${-d}` : "±0";
  return h("p.rating-change", { id: "rating-change" }, t("end.ratingChange", { before: String(r.before), after: String(r.after), change }));
}

/** @param {TableModel} m @param {TableUi} ui @param {any} sc */
function endPanel(m, ui, sc) {
  const win = m.result ? m.result.winners : winners(sc.scores, sc.coins); // the server's word, once it has said it
  const tableId = m.tableId;
  return h(
    "div.end",
    { id: "end" },
    h("div.headline", null, h("strong", null, t("end.title"))),
    h("p.verdict", { id: "verdict" }, explainResult(sc.scores, sc.coins, sc.names.map((/** @type {string} */ _, /** @type {number} */ s) => seatName(sc, s)), win)),
    ratingChangeLine(m, ui),
    resultsTable(sc, win),
    h(
      "div.end-actions",
      null,
      h("a.btn.primary", { href: api.recordUrl(tableId), download: `forsale-${tableId}.json`, id: "download" }, t("end.download")),
      h("a.btn", { href: `#/replay/${tableId}`, id: "replay-link" }, t("end.replay")),
      h("a.btn", { href: "#/" }, t("end.newGame")),
      // In the same row as the other three (alone on a line of its own, it looked left over).
      rematchBox(m, ui, sc),
    ),
    analysisPanel(tableId, m.token, sc.names.map((/** @type {string} */ _, /** @type {number} */ s) => seatName(sc, s)), seats.get(tableId)?.invite, m.view ? m.view.history : null),
  );
}

/** The rematch: offer it, accept or decline another's offer, and see who is awaited (docs/protocol.md). */
/** @param {TableModel} m @param {TableUi} ui @param {any} sc */
function rematchBox(m, ui, sc) {
  const r = m.rematch;
  const mine = seated(m);
  const parts = [];
  if (r && r.status === "offered") {
    const waiting = (r.waiting || []).map((s) => seatName(sc, s)).join(", ");
    // "You offered a rematch.", not "You offers": the offer's own words when the offer is this seat's.
    const by = mine && r.by === m.seat ? t("rematch.offeredByYou") : t("rematch.offeredBy", { name: seatName(sc, r.by) });
    parts.push(h("p", null, by, " ", waiting ? t("rematch.waiting", { names: waiting }) : ""));
    if (mine && !(r.accepted || []).includes(/** @type {number} */ (m.seat))) {
      parts.push(h("button.btn.primary", { type: "button", id: "rematch-accept", onclick: () => ui.answerRematch(true) }, t("rematch.accept")),
        h("button.btn", { type: "button", id: "rematch-decline", onclick: () => ui.answerRematch(false) }, t("rematch.decline")));
    }
  } else if (r && r.status === "started") {
    parts.push(h("p", null, t("rematch.started"), " ", h("a.btn", { href: `#/watch/${r.table}`, id: "rematch-watch" }, t("rematch.watch"))));
  } else {
    if (r && r.status === "declined") parts.push(h("p", null, t("rematch.declined", { name: seatName(sc, r.declined_by) })));
    if (r && r.status === "expired") parts.push(h("p", null, t("rematch.expired")));
    if (mine) parts.push(h("button.btn.primary", { type: "button", id: "rematch", onclick: () => ui.answerRematch(true) }, t("rematch.offer")));
  }
  return h("div.rematch", { id: "rematch-box", role: "status", "aria-live": "polite" }, parts);
}

// -- drawing ----------------------------------------------------------------------
/** The header's tools: the clock, the connection's state, "notify me" and Leave. @param {TableModel} m @param {TableUi} ui */
export function drawTools(m, ui) {
  // No seat and not watching: a share link's form to sit down, with no connection yet, and no seat to leave.
  if (m.seat === null && !m.watch) return ui.ctx.setTools();
  // "connecting" before the first state, "reconnecting" once the table was there (not to a joiner who just sat down).
  const status = m.status === "open" ? t("conn.open") : m.status === "connecting" && !m.view ? t("conn.connecting") : m.status === "lost" || m.status === "connecting" ? t("conn.reconnecting") : has(`conn.${m.status}`) ? t(`conn.${m.status}`) : m.status;
  const clock = h("span.clock", { id: "clock", role: "timer", hidden: true, "aria-label": t("clock.label") });
  ui.ctx.setTools(
    clock,
    h("span.conn", { id: "conn", class: `conn ${m.status === "open" ? "" : "bad"}`, dataset: { status: m.status } }, status),
    m.turnLimit && m.seat !== null && m.seat !== undefined ? notifyButton(ui.draw) : null,
    m.watch || (m.view && m.view.phase === "over") ? null : h("button.btn.quiet", { type: "button", onclick: ui.leave, title: t("leave.title") }, t("leave.button")),
  );
  tick(m);
}

/** The clock's text, a second at a time (live.js calls it on a timer). @param {TableModel} m */
export function tick(m) {
  const el = document.getElementById("clock");
  if (!el) return;
  const shown = clockShown(m, Date.now());
  if (!shown) {
    el.hidden = true;
    return;
  }
  const { seat, left } = shown;
  el.hidden = false;
  const who = seat === m.seat ? t("seat.badge.you") : names(m)[seat];
  const time = left >= 3600 ? longTime(left) : `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  el.textContent = t("clock.text", { who, time });
  el.title = m.turnLimit ? t("clock.turnLimit", { time: longTime(m.turnLimit) }) : m.timeLimit ? t("clock.limit", { seconds: m.timeLimit }) : t("clock.safest");
  el.classList.toggle("low", left <= 5);
}

/** A long clock's time in days and hours ("2 d 5 h"), as a turn-based table shows it. @param {number} seconds */
function longTime(seconds) {
  const hours = Math.floor(seconds / 3600);
  const days = Math.floor(hours / 24);
  return days ? t("clock.daysHours", { days, hours: hours % 24 }) : t("clock.hours", { count: hours });
}

/**
 * The whole table, drawn into `root` from the model (a full redraw that keeps the focus and the log's scroll).
 * @param {HTMLElement} root
 * @param {TableModel} m
 * @param {TableUi} ui
 */
export function drawTable(root, m, ui) {
  const { ctx, tips } = ui;
  if (!m.view) {
    const error = m.error && (m.error.refusal ? refusedText(m.error.refusal) : t("table.noSuch"));
    root.replaceChildren(error ? h("p.error-box", { role: "alert" }, error, " ", h("a", { href: "#/" }, t("nav.backToLobby"))) : h("p.empty", null, t("table.joining")));
    drawTools(m, ui);
    return;
  }
  const active = /** @type {HTMLElement | null} */ (document.activeElement);
  const focusKey = active && active.dataset ? active.dataset.focus : null;
  const logEl = root.querySelector(".log");
  const logAtBottom = !logEl || logEl.scrollTop + logEl.clientHeight >= logEl.scrollHeight - 8;
  const logScroll = logEl ? logEl.scrollTop : 0; // someone reading back up the log stays where they are
  const sc = scene(m);
  const v = m.view;
  const tableId = m.tableId;
  const moves = legal(m).length > 0;
  // A tab in the background says when it is your move.
  document.title = moves ? t("title.yourMove") : v.phase === "over" ? t("title.over") : t("title.page");
  const stage = v.phase === "over" ? t("info.finished") : t(`info.${v.phase}`, { round: v.round + 1, rounds: v.rounds });
  ctx.setInfo(`${tableTitle(m)} · ${stage}${m.watch ? ` · ${t("info.watching")}` : ""}`);
  let prompt = null;
  let actions = null;
  if (!m.watch && m.seat !== null && waitingForPlayers(m)) {
    // The deal is there, but the game starts when every seat is taken: no "your turn", no live buttons.
    prompt = h("div.prompt", { id: "prompt" }, t("prompt.waitingPlayers"));
    actions = h("div.actions", null, h("span.note.waiting-dots", null, t("waiting.title")));
  } else if (!m.watch && m.seat !== null) {
    if (v.phase === "auction") {
      prompt = h("div.prompt", { class: `prompt ${moves ? "yours" : ""}`, id: "prompt" }, moves ? t("prompt.auction") : "");
      actions = auctionActions(m, ui, sc);
    } else if (v.phase === "sale") {
      actions = saleActions(m, ui, sc);
      prompt = h("div.prompt", { class: `prompt ${v.my_commit ? "" : "yours"}`, id: "prompt" }, v.my_commit ? "" : t("prompt.sale"));
    }
  }
  ctx.announce(announcement(m, sc));
  const board = h(
    "div.board",
    null,
    waitingPanel(m),
    seatsRow(sc),
    felt(sc, v.phase === "over" ? endPanel(m, ui, sc) : null),
    m.watch || m.seat === null ? h("p.hint", null, t("table.watching")) : null,
  );
  // The seat's decision stays in view (docs/browser.md, "Your move stays in view"): the tutorial's tip, the hint and
  // the seat's own corner (hand, prompt, bid/pass or Sell) stick to the bottom of the screen, so
  // that neither a tall table nor a tip ever pushes the move out of sight.
  const tipEl = tips ? tips.tip(sc, v, { me: m.seat, watching: m.watch }) : null;
  const hintEl = !m.watch && m.token && m.table && m.table.hints && moves ? hintButton(tableId, m.token, decisionKey(v)) : null;
  const dock = !m.watch && m.seat !== null
    ? h("div.dock", { id: "dock", class: `dock ${moves ? "yours" : ""} ${v.phase === "over" ? "over" : ""}` }, tipEl, hintEl ? h("div.hint-bar", null, hintEl) : null, myArea(sc, { handCard: handCard(m, ui), actions, prompt }))
    : tipEl;
  const creator = seats.get(tableId)?.creator;
  const hintsToggle = creator && m.table && !m.table.rated && v.phase !== "over" ? hintsSwitch(tableId, creator, !!m.table.hints, ui.setTable) : null;
  // Chat goes on after the game (a rematch is arranged there), so this switch stays at the end too.
  // A solo game is unlisted and has no invitation to share: nobody comes to watch, so no spectators' chat switch.
  const unwatched = solo(m) && m.table && m.table.private && !m.table.invite_only;
  const chatToggle = creator && m.table && !unwatched ? spectatorChatSwitch(tableId, creator, !!m.table.spectator_chat, ui.setTable, ctx.toast) : null;
  const side = h("aside.side", null, memoryPanel(m, ui, sc), hintsToggle, chatToggle, logPanel(sc));
  root.replaceChildren(h("div.game", { dataset: { phase: v.phase, moves: v.history.length, seat: m.seat ?? "" } }, board, side, dock));
  const newLog = root.querySelector(".log");
  if (newLog) newLog.scrollTop = logAtBottom ? newLog.scrollHeight : logScroll;
  if (focusKey) {
    const again = /** @type {HTMLButtonElement | null} */ (root.querySelector(`[data-focus="${focusKey}"]`));
    if (again && !again.disabled) again.focus();
  } else if (document.activeElement === document.body) {
    const first = /** @type {HTMLElement | null} */ (root.querySelector(".actions [data-focus]:not(:disabled)"));
    if (first && moves && v.phase === "auction") first.focus({ preventScroll: true });
  }
  if (tips) tips.afterDraw();
  drawTools(m, ui);
}

/**
 * What happened since the last announcement (the log's new lines: bots may make several moves
 * between two drawings, and each is said) and whose turn it is now, in words.
 * @param {TableModel} m
 * @param {any} sc
 */
function announcement(m, sc) {
  const v = m.view;
  const lines = storyLines(sc.folded, (s) => seatName(sc, s), sc.rounds);
  const parts = unannounced(m, lines, (l) => Boolean(l.mine)).map((l) => l.text);
  if (waitingForPlayers(m)) parts.push(t("waiting.title"));
  else if (v.phase === "auction" && v.turn !== null && v.turn !== undefined) {
    parts.push(v.turn === m.seat && !m.watch ? t("felt.toBid.you") : t("felt.toBid.other", { name: seatName(sc, v.turn) }));
  } else if (v.phase === "sale") {
    const waiting = stillChoosing(v);
    if (!m.watch && waiting.includes(/** @type {number} */ (m.seat)) && legal(m).length) parts.push(t("prompt.sale"));
    else if (waiting.length) parts.push(t("act.othersChoosing", { names: waiting.map((s) => seatName(sc, s)).join(", ") }));
  }
  return parts.filter(Boolean).join(" ");
}
