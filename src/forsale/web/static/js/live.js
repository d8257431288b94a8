// @ts-check
// A live table: the page around its model. The model (tablemodel.js) holds the table's state and folds the server's
// messages into it; the views (tableview.js) draw it; the socket (socket.js) carries the messages. What is left here
// is the wiring and what the model's effects ask of the page: sitting down, keeping seat tokens, toasts, going to a
// rematch's table, the tutorial's held states, the clock's timer.
import { account, accountApi } from "./account.js";
import { api, playerName, savePlayerName, seats } from "./api.js";
import { chatPanel } from "./chat.js";
import { h, RATING_START, shownName, shownRating, shownTableName } from "./format.js";
import { joinList, t } from "./i18n.js";
import { fold, setupFromView } from "./ledger.js";
import { turnWatcher } from "./notify.js";
import { refusedText } from "./refused.js";
import { presetName } from "./rulesform.js";
import { Connection } from "./socket.js";
import { canAct, connection, legal, receive as modelReceive, seated, sent, tableModel, takeState as modelTakeState } from "./tablemodel.js";
import { drawTable, drawTools, names, tableTitle, tick } from "./tableview.js";
import { isTutorial, tutorial } from "./tutorial.js";

const MEMORY_KEY = "forsale.memory";

/**
 * Show the table `tableId`; returns the cleanup function the router calls on leaving.
 * @param {any} ctx the page's frame (main.js)
 * @param {string} tableId
 * @param {{watch?: boolean, join?: string | number | null, invite?: string | null}} [opts]
 */
export function showTable(ctx, tableId, opts = {}) {
  const m = tableModel(tableId, { watch: !!opts.watch, memory: localStorage.getItem(MEMORY_KEY) === "on" });
  /** @type {Connection | null} */
  let conn = null;
  /** @type {ReturnType<typeof setInterval> | null} */
  let ticker = null;
  const turnNotice = turnWatcher(() => (m.table && m.table.name && tableTitle(m)) || tableId);
  let gone = false;
  // A table started by "Learn to play": its tips come with the drawings (tutorial.js).
  const tips = isTutorial(tableId) ? tutorial(ctx, tableId, { redraw: () => (release(), draw()) }) : null;
  // While a tutorial tip is open, the states that follow its moment wait here (the bots play on at the server):
  // the learner reads the tip beside the table it speaks of, and no auction passes by unseen behind it.
  /** @type {import("./tablemodel.js").Message[]} */
  const held = [];

  const root = h("div.game-root");
  // The chat stays outside the redrawn table, so what is being typed survives every move.
  const chat = chatPanel({
    send: (/** @type {string} */ text) => (conn ? conn.send({ type: "chat", text }) : null),
    me: () => (m.watch ? null : m.seat),
    canWrite: () => seated(m) || !!(m.table && m.table.spectator_chat),
    botAccount: (/** @type {number} */ seat) => Boolean(m.table?.seats?.[seat]?.bot_account), // its author is marked
  });
  ctx.app.replaceChildren(root, chat.el);

  /** @type {import("./tableview.js").TableUi} */
  const ui = {
    ctx,
    tips,
    act,
    draw: () => draw(),
    setMemory: (on) => {
      m.memory = on;
      localStorage.setItem(MEMORY_KEY, on ? "on" : "off");
      draw();
    },
    setTable: (table) => {
      m.table = table;
      chat.refresh();
      draw();
    },
    answerRematch: (accept) => {
      if (!conn || conn.send({ type: "rematch", accept }) === null) ctx.toast(t("table.notSent"));
    },
    leave,
    askRating: () => {
      fetchRatingChange();
    },
  };

  function start() {
    if (opts.invite) seats.put(tableId, { invite: opts.invite }); // an invitation link: this browser may see the table
    const saved = seats.get(tableId);
    if (!m.watch && saved && saved.token) {
      m.token = saved.token;
      m.seat = saved.seat;
    }
    if (!m.watch && !m.token && opts.join !== null && opts.join !== undefined) {
      return askToJoin(Number(opts.join));
    }
    if (!m.watch && !m.token && opts.invite) return askToJoin(null); // an invitation: the first free seat
    if (!m.watch && !m.token) return resumeSeat().then(connect);
    connect();
  }

  /**
   * Signed in, with no token for this table in this browser (another device, an email's link): take back the
   * account's own seat here, if it has one (the server gives it a fresh token); else watch.
   */
  async function resumeSeat() {
    try {
      if (await account()) {
        const res = await accountApi.resume(tableId);
        if (gone) return;
        // At a table this account created, a fresh creator token comes too (the old one ended with the password).
        if (res.creator_token) seats.put(tableId, { creator: res.creator_token });
        if (res.token) {
          seats.put(tableId, { token: res.token, seat: res.seat });
          m.token = res.token;
          m.seat = res.seat;
          return;
        }
      }
    } catch {
      // no seat of this account here (or not signed in): watching, as for anyone
    }
    m.watch = true;
  }

  /** A share link's landing: sit down at that seat if it is still free, else say so and offer the rest. */
  async function askToJoin(seat) {
    let info = null;
    try {
      info = (await api.table(tableId, seats.get(tableId)?.invite)).table;
    } catch (e) {
      root.replaceChildren(h("p.error-box", { role: "alert" }, `${e.message}. `, h("a", { href: "#/" }, t("nav.backToLobby"))));
      return;
    }
    if (gone) return;
    if (seat === null) seat = (info.open_seats || [0])[0] ?? 0;
    const wanted = info.seats[seat];
    if (!wanted || wanted.kind !== "open") {
      const free = info.open_seats || [];
      root.replaceChildren(
        h(
          "div.panel",
          { style: "max-width:480px;margin:0 auto", id: "seat-taken" },
          h("h2", null, info.status === "over" ? t("join.over") : t("join.taken", { seat: seat + 1 })),
          h("p.hint", null, free.length ? t("join.stillFree") : t("join.allTaken")),
          h("div.end-actions", { style: "justify-content:flex-start" },
            free.map((s) => h("a.btn", { href: `#/table/${tableId}?seat=${s}` }, t("seat.number", { seat: s + 1 }))),
            h("a.btn.quiet", { href: info.status === "over" ? `#/replay/${tableId}` : `#/watch/${tableId}` }, info.status === "over" ? t("join.replay") : t("join.watch"))),
        ),
      );
      return;
    }
    const name = h("input", { type: "text", id: "join-name", value: playerName(), maxlength: 40, required: true, autocomplete: "nickname" });
    const err = h("div.error-box", { role: "alert" });
    const form = h(
      "form.panel.form",
      {
        onsubmit: async (event) => {
          event.preventDefault();
          err.textContent = "";
          try {
            savePlayerName(name.value.trim());
            const res = await api.join(tableId, { seat, name: name.value.trim() || undefined, invite: seats.get(tableId)?.invite || undefined });
            seats.put(tableId, { token: res.token, seat: res.seat ?? seat, name: name.value.trim() });
            m.token = res.token;
            m.seat = res.seat ?? seat;
            history.replaceState(null, "", `#/table/${tableId}`);
            connect();
          } catch (e) {
            err.textContent = e.message;
          }
        },
      },
      h("h2", null, t("join.title", { seat: seat + 1 })),
      // Which table the link leads to, before sitting down: its name, its rules and who sits there already.
      h("p.hint", { id: "join-about" }, t("join.about", {
        table: shownTableName(info.name, info.players),
        rules: typeof info.rules === "string" ? presetName(info.rules) : t("rules.custom"),
        who: joinList(info.seats.flatMap((s, i) => (s.kind === "open" ? [] : [shownName(s.name, i, { bot: s.bot })]))),
      })),
      h("label", { for: "join-name" }, t("form.yourName"), name),
      h("div.row", null, h("button.btn.primary", { type: "submit" }, t("join.sit")), h("a.btn.quiet", { href: `#/watch/${tableId}` }, t("join.justWatch"))),
      err,
    );
    root.replaceChildren(h("div", { style: "max-width:420px;margin:0 auto" }, form));
    name.focus();
  }

  function connect() {
    const invite = seats.get(tableId)?.invite || null;
    conn = new Connection(tableId, m.token, {
      onMessage: receive,
      onStatus: (/** @type {string} */ status) => {
        if (gone) return;
        connection(m, status);
        drawTools(m, ui);
        if (status === "refused") draw();
      },
    });
    conn.invite = invite;
    conn.open();
    if (!ticker) ticker = setInterval(() => tick(m), 250);
  }

  /** A server message: states are taken (or held behind a tutorial's tip); the rest goes to the model. */
  function receive(/** @type {import("./tablemodel.js").Message} */ msg) {
    if (msg.type === "welcome" || msg.type === "state" || msg.type === "table") {
      if (tips && msg.type === "state" && (held.length || tips.isOpen())) {
        held.push(msg);
        return;
      }
      if (msg.type === "welcome") held.length = 0; // a new connection's view is the whole story
      takeState(msg);
      drawSoon();
      return;
    }
    for (const effect of modelReceive(m, msg)) {
      switch (effect.do) {
        case "draw":
          drawSoon();
          break;
        case "chatHistory":
          chat.history(effect.messages);
          break;
        case "chat":
          chat.add(effect.message);
          break;
        case "goToRematch": {
          // Our seat at the new table: keep its token (and what opened this one) and go there.
          const r = effect.rematch;
          const saved = seats.get(tableId) || {};
          seats.put(/** @type {string} */ (r.table), { token: r.token, seat: r.seat, invite: saved.invite, creator: saved.creator, name: saved.name });
          location.hash = `#/table/${r.table}`;
          break;
        }
        case "seatLost":
          seats.drop(tableId);
          conn?.close();
          if (effect.passwordChanged) {
            // The account's password changed (here, or on another device): its seat tokens ended. Signed in
            // here with the new password, the seat comes back with a fresh token; a device the change signed
            // out watches. (Only this reason: a seat taken up on another device stays there, no ping-pong.)
            resumeSeat().then(() => {
              if (gone) return;
              if (m.watch) ctx.toast(t("table.seatLost"));
              connect();
            });
            break;
          }
          // The token no longer holds a seat here (the seat was given up, or taken up elsewhere): watch instead.
          ctx.toast(t("table.seatLost"));
          connect();
          break;
        case "notAdmitted":
          conn?.close();
          draw();
          break;
        case "refused":
          console.warn(`forsale server: ${effect.message.code}: ${effect.message.message}`);
          ctx.toast(refusedText(effect.message, (/** @type {number} */ s) => names(m)[s] || t("seat.number", { seat: s + 1 })));
          draw();
          break;
      }
    }
  }

  /** Take in a table's state, and tell those who follow it: the turn notice, the chat, the tutorial. */
  function takeState(/** @type {import("./tablemodel.js").Message} */ msg) {
    modelTakeState(m, msg, Date.now());
    if (msg.view) turnNotice(m.view, m.seat);
    if (msg.info) chat.refresh(); // the seat or the creator's setting may have changed who writes
    if (tips && m.view) tips.check(fold(setupFromView(m.view, names(m))), m.view, { me: m.seat, watching: m.watch });
  }

  /** A tip was dismissed: take the held states in, one by one, up to the next tip's moment. */
  function release() {
    while (held.length && !tips.isOpen()) takeState(/** @type {import("./tablemodel.js").Message} */ (held.shift()));
  }

  /** Send a move; its buttons stay disabled until the server answers it. */
  function act(/** @type {import("./tablemodel.js").Action} */ action) {
    if (!canAct(m) || !conn) return;
    // A move made with a tip open is the learner moving on: its state must not wait behind the tip.
    if (tips && tips.isOpen()) tips.dismiss();
    if (!sent(m, conn.send({ type: "act", action }))) {
      ctx.toast(t("table.notSent"));
      return;
    }
    draw();
  }

  /**
   * After a rated game, this seat's rating before and after it, read from its player's history (one seat per
   * account at a rated table). The server rates the game on its writer thread just behind the last event, so the
   * history is asked a few times, a second apart, until the game is in it.
   */
  async function fetchRatingChange() {
    const me = await account();
    if (!me) return;
    for (let tries = 0; tries < 10 && !gone; tries++) {
      try {
        const history = ((await accountApi.player(me.name)).player.history || {})["0"] || [];
        const i = history.findIndex((/** @type {any} */ p) => p.game === tableId);
        if (i >= 0) {
          m.ratingChange = { before: i > 0 ? shownRating(history[i - 1]) : RATING_START, after: shownRating(history[i]) };
          if (!gone) draw();
          return;
        }
      } catch {
        return; // the end screen is whole without it
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  async function leave() {
    if (!m.token) return;
    if (m.view && m.view.phase !== "over" && !confirm(t("leave.confirm"))) return;
    try {
      conn?.send({ type: "leave" });
      await api.leave(tableId, m.token).catch(() => {});
    } finally {
      seats.drop(tableId);
      location.hash = "#/";
    }
  }

  // Bots can make many moves in a burst: draw once per frame, not once per message.
  let drawQueued = false;
  function drawSoon() {
    if (drawQueued) return;
    drawQueued = true;
    requestAnimationFrame(() => {
      drawQueued = false;
      draw();
    });
  }

  // A press on one of the table's controls lasts until it is released (the mouse's button, a finger, Space on a
  // button), and its click comes only then, on the element pressed: a redraw in between replaced that element, and
  // the click was lost (another seat's choice arriving as a house was pressed: the house was not chosen). Redraws
  // wait for the release; the click, dispatched after it, still finds the element pressed, then the table is drawn.
  let pressed = false;
  let drawAfterPress = false;
  function press(/** @type {Event} */ event) {
    const target = /** @type {HTMLElement} */ (event.target);
    if (event instanceof KeyboardEvent && event.key !== " ") return;
    if (event instanceof PointerEvent && event.button !== 0) return; // not a right click: its menu takes the release
    if (target.closest && target.closest("button, a, input, label, summary")) pressed = true;
  }
  function unpress(/** @type {Event} */ event) {
    if (event instanceof KeyboardEvent && event.key !== " ") return;
    pressed = false;
    if (drawAfterPress) drawSoon(); // on the next frame: after the click this release fires
  }
  root.addEventListener("pointerdown", press);
  root.addEventListener("keydown", press);
  // Wherever it ends (off the table, outside the window); and the window's own blur (not an element's, which a press
  // itself causes as it moves the focus): a press that another window took over ends there.
  const releases = /** @type {const} */ (["pointerup", "pointercancel", "keyup"]);
  for (const type of releases) window.addEventListener(type, unpress, true);
  window.addEventListener("blur", unpress);

  function draw() {
    if (gone) return;
    if (pressed) {
      drawAfterPress = true;
      return;
    }
    drawAfterPress = false;
    drawTable(root, m, ui);
  }

  function onKey(/** @type {KeyboardEvent} */ event) {
    const target = /** @type {HTMLElement} */ (event.target);
    if (!m.view || m.watch || target.tagName === "INPUT" || event.ctrlKey || event.metaKey || event.altKey) return;
    const v = m.view;
    if (v.phase === "auction" && legal(m).length) {
      if (event.key === "p") act({ pass: true });
      else if (event.key === "1" && legal(m).some((a) => "bid" in a && a.bid === v.high + 1)) act({ bid: v.high + 1 });
      else if (event.key === "2" && legal(m).some((a) => "bid" in a && a.bid === v.high + 2)) act({ bid: v.high + 2 });
    }
  }
  document.addEventListener("keydown", onKey);

  draw();
  // The page's language changed: the same table, redrawn in the new words.
  const relabel = () => (chat.refresh(), draw());
  document.addEventListener("forsale:language", relabel);
  start();
  return () => {
    gone = true;
    ctx.announce("");
    document.title = t("title.page");
    document.removeEventListener("keydown", onKey);
    document.removeEventListener("forsale:language", relabel);
    for (const type of releases) window.removeEventListener(type, unpress, true);
    window.removeEventListener("blur", unpress);
    if (ticker) clearInterval(ticker);
    turnNotice.stop();
    if (conn) conn.close();
  };
}
