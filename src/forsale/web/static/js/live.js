// A live table: the seat's view from the server, drawn and acted upon.
import { analysisPanel, hintButton, hintsSwitch } from "./analysis.js";
import { account, accountApi } from "./account.js";
import { api, Connection, playerName, savePlayerName, seats } from "./api.js";
import { felt, myArea, resultsTable, sceneFromView, seatName, seatsRow } from "./board.js";
import { houseCard } from "./cards.js";
import { chatPanel, spectatorChatSwitch } from "./chat.js";
import { distinctNames, h, k, money, RATING_START, shownName, shownRating, shownTableName } from "./format.js";
import { has, t } from "./i18n.js";
import { explainResult, fold, setupFromView, winners } from "./ledger.js";
import { refusedText } from "./refused.js";
import { storyLines } from "./story.js";
import { notifyButton, turnWatcher } from "./notify.js";
import { isTutorial, tutorial } from "./tutorial.js";

const MEMORY_KEY = "forsale.memory";

/** Show the table `tableId`; returns the cleanup function the router calls on leaving. */
export function showTable(ctx, tableId, opts = {}) {
  const m = {
    tableId,
    watch: !!opts.watch,
    token: null,
    seat: null,
    table: null, // the table's public description (names, kinds, clock, memory aid allowed)
    view: null,
    deadlines: {}, // seat -> ms since epoch (this browser's clock) when the server acts for it
    timeLimit: null,
    result: null,
    status: "connecting",
    pending: false,
    selected: null,
    revealKey: null, // the history length whose sale reveal was already animated
    memory: localStorage.getItem(MEMORY_KEY) === "on",
    error: null,
    rematch: null, // after the game: the offer as this seat sees it (docs/protocol.md, "rematch")
    ratingAsked: false,
    ratingChange: null, // after a rated game: this seat's {before, after} on the shown scale
  };
  let conn = null;
  let ticker = null;
  const turnNotice = turnWatcher(() => (m.table && m.table.name && shownTableName(m.table.name)) || tableId);
  let gone = false;
  // A table started by "Learn to play": its tips come with the drawings (tutorial.js).
  const tips = isTutorial(tableId) ? tutorial(ctx, tableId, { redraw: () => (release(), draw()) }) : null;
  // While a tutorial tip is open, the states that follow its moment wait here (the bots play on at the server):
  // the learner reads the tip beside the table it speaks of, and no auction passes by unseen behind it.
  const held = [];

  const root = h("div.game-root");
  // The chat stays outside the redrawn table, so what is being typed survives every move.
  const chat = chatPanel({
    send: (text) => (conn ? conn.send({ type: "chat", text }) : null),
    me: () => (m.watch ? null : m.seat),
    canWrite: () => (!m.watch && m.seat !== null && m.seat !== undefined) || !!(m.table && m.table.spectator_chat),
  });
  ctx.app.replaceChildren(root, chat.el);

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
      onStatus: (status) => {
        if (gone) return;
        m.status = status;
        if (status === "refused") m.error = t("table.noSuch");
        drawTools();
        if (status === "refused") draw();
      },
    });
    conn.invite = invite;
    conn.open();
    if (!ticker) ticker = setInterval(tick, 250);
  }

  function receive(msg) {
    switch (msg.type) {
      case "welcome":
      case "state":
      case "table": {
        if (tips && msg.type === "state" && (held.length || tips.isOpen())) {
          held.push(msg);
          break;
        }
        if (msg.type === "welcome") held.length = 0; // a new connection's view is the whole story
        takeState(msg);
        drawSoon();
        break;
      }
      case "chat_history":
        chat.history(msg.messages);
        break;
      case "chat":
        chat.add(msg.message);
        break;
      case "rematch":
        m.rematch = msg.rematch;
        if (m.rematch && m.rematch.status === "started" && m.rematch.token) {
          // Our seat at the new table: keep its token (and what opened this one) and go there.
          const saved = seats.get(tableId) || {};
          seats.put(m.rematch.table, { token: m.rematch.token, seat: m.rematch.seat, invite: saved.invite, creator: saved.creator, name: saved.name });
          location.hash = `#/table/${m.rematch.table}`;
          return;
        }
        drawSoon();
        break;
      case "ack":
        // Accepted. The state that shows it follows at once; until then the buttons stay disabled,
        // so an older state arriving meanwhile cannot offer the same move twice.
        if (msg.id === m.pendingId) m.pending = false;
        break;
      case "error":
        if (msg.code === "bad_token") {
          seats.drop(tableId);
          m.token = null;
          m.seat = null;
          conn.close();
          if (msg.params && msg.params.why === "password_changed") {
            // The account's password changed (here, or on another device): its seat tokens ended. Signed in
            // here with the new password, the seat comes back with a fresh token; a device the change signed
            // out watches. (Only this reason: a seat taken up on another device stays there, no ping-pong.)
            resumeSeat().then(() => {
              if (gone) return;
              if (m.watch) ctx.toast(t("table.seatLost"));
              connect();
            });
            return;
          }
          // The token no longer holds a seat here (the seat was given up, or taken up elsewhere): watch instead.
          m.watch = true;
          ctx.toast(t("table.seatLost"));
          connect();
          return;
        }
        if (msg.code === "private_table" && !m.view) {
          // Not admitted to a private table (no invitation code): say so where the table would be, not "joining…" for ever.
          m.error = refusedText(msg);
          conn.close();
          draw();
          return;
        }
        if (msg.id === m.pendingId || msg.id === null || msg.id === undefined) m.pending = false;
        console.warn(`forsale server: ${msg.code}: ${msg.message}`);
        ctx.toast(refusedText(msg, (s) => names()[s] || t("seat.number", { seat: s + 1 })));
        draw();
        break;
      default:
        break;
    }
  }

  /** Take in a table's state (a welcome, a move, a change of the table's description). */
  function takeState(msg) {
    if (msg.info) m.table = msg.info;
    if (msg.clock) setClock(msg.clock);
    if (msg.view) {
      m.view = msg.view;
      if (msg.type === "welcome") {
        m.seat = msg.seat;
        m.pending = false; // a new connection: whatever was in flight was answered or lost
      }
      turnNotice(m.view, m.seat);
      const hand = m.seat !== null && m.seat !== undefined ? m.view.hands[m.seat] || [] : [];
      if (m.view.phase !== "sale" || m.view.my_commit || !hand.includes(m.selected)) m.selected = null;
    }
    if (msg.result) m.result = msg.result;
    if (msg.info) chat.refresh(); // the seat or the creator's setting may have changed who writes
    if (tips && m.view) tips.check(fold(setupFromView(m.view, names())), m.view, { me: m.seat, watching: m.watch });
  }

  /** A tip was dismissed: take the held states in, one by one, up to the next tip's moment. */
  function release() {
    while (held.length && !tips.isOpen()) takeState(held.shift());
  }

  /** Deadlines come in server time (epoch ms); keep them in this browser's time. */
  function setClock(clock) {
    const skew = clock.now ? Date.now() - clock.now : 0;
    m.deadlines = {};
    for (const [seat, when] of Object.entries(clock.deadlines || {})) m.deadlines[seat] = when + skew;
    m.timeLimit = clock.time_limit;
    m.turnLimit = clock.turn_limit || null;
  }

  /** Seat names, made distinct ("random bot 2", "random bot 3") so the log can be followed. */
  function names() {
    const n = m.view ? m.view.players : 0;
    const list = [];
    for (let s = 0; s < n; s++) {
      const seat = m.table && m.table.seats ? m.table.seats[s] : null;
      list.push(shownName(seat ? seat.name : "", s, { bot: seat?.bot, open: seat?.kind === "open" }));
    }
    return distinctNames(list);
  }

  function badges() {
    return names().map((_, s) => {
      const seat = m.table && m.table.seats ? m.table.seats[s] : null;
      if (!seat) return "";
      if (seat.kind === "bot") return t("seat.badge.bot");
      if (seat.kind === "open") return t("seat.badge.free");
      return seat.account ? t("seat.badge.account") : ""; // a signed-in account's seat, under its name
    });
  }

  function offline() {
    return names().map((_, s) => {
      const seat = m.table && m.table.seats ? m.table.seats[s] : null;
      return !!(seat && seat.kind === "human" && seat.connected === false);
    });
  }

  function memoryAllowed() {
    return !!(m.table && m.table.memory_aid);
  }

  function scene() {
    const v = m.view;
    const setup = setupFromView(v, names());
    const folded = fold(setup);
    const last = folded.states.at(-1);
    const revealKey = v.history.length;
    const lastMove = v.history.at(-1);
    const animate = !!(lastMove && lastMove.sell && m.revealKey !== revealKey);
    if (animate) m.revealKey = revealKey;
    // Waiting for players, nobody is "to bid" yet: the seats and the felt say so too, not "your turn".
    const sc = sceneFromView(waitingForPlayers() ? { ...v, turn: null, legal: [] } : v, {
      names: names(),
      badges: badges(),
      offline: offline(),
      me: m.watch ? null : m.seat,
      foldState: last,
      reveal: animate,
      showAll: m.memory && memoryAllowed(),
    });
    sc.folded = folded;
    return sc;
  }

  function act(action) {
    if (m.pending || !conn) return;
    // A move made with a tip open is the learner moving on: its state must not wait behind the tip.
    if (tips && tips.isOpen()) tips.dismiss();
    const id = conn.send({ type: "act", action });
    if (id === null) {
      ctx.toast(t("table.notSent"));
      return;
    }
    m.pending = true;
    m.pendingId = id;
    draw();
  }

  /** Whether the table still waits for people to sit down: nobody moves yet (the server would refuse it). */
  function waitingForPlayers() {
    return !!(m.table && m.table.status === "waiting");
  }

  function legal() {
    return m.view && !waitingForPlayers() ? m.view.legal : [];
  }

  // -- the action bar -----------------------------------------------------------------
  function auctionActions(sc) {
    const v = m.view;
    const myTurn = legal().length > 0;
    const coins = v.coins[m.seat];
    const canRaise = legal().some((a) => "bid" in a);
    const min = v.high + 1;
    const lowest = v.table[0];
    const myBid = v.bids[m.seat];
    const refund = myBid - costOfPass(v, myBid);
    const passText = myBid ? t("act.passPaid", { house: lowest, paid: k(costOfPass(v, myBid)), back: k(refund) }) : t("act.passFree", { house: lowest });
    if (!v.active[m.seat]) return h("div.actions", null, h("span.note", null, t("act.passedWait")));
    if (!myTurn) {
      return h("div.actions", null, h("span.note.waiting-dots", null, t("act.waitingFor", { name: seatName(sc, v.turn) })));
    }
    const input = h("input.bid-input", {
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
      oninput: (event) => {
        m.draft = { moves: v.history.length, value: event.target.value };
      },
      onkeydown: (event) => {
        if (event.key === "Enter") {
          event.preventDefault();
          submitBid();
        }
      },
    });
    function submitBid() {
      const amount = Number(input.value);
      if (!Number.isInteger(amount) || amount < min || amount > coins) {
        ctx.toast(t("act.bidRange", { min, max: coins }));
        return;
      }
      act({ bid: amount });
    }
    const quick = (step) =>
      h(
        "button.btn",
        {
          type: "button",
          "data-focus": `plus${step}`,
          disabled: !canRaise || v.high + step > coins || m.pending,
          title: t("act.bidTo", { amount: k(v.high + step) }),
          "aria-label": t("act.bidPlus", { amount: k(v.high + step), step }),
          onclick: () => act({ bid: v.high + step }),
        },
        `+${step}`,
      );
    return h(
      "div.actions",
      { role: "group", "aria-label": t("act.yourMove") },
      canRaise ? [h("label.sr-only", { for: "bid-amount" }, t("act.bid")), input, h("span.note", null, t("act.thousands")),
        h("button.btn.primary", { type: "button", "data-focus": "bid-btn", disabled: m.pending, onclick: submitBid }, t("act.bid")),
        quick(1), quick(2)] : h("span.note", null, t("act.cannotTop", { high: k(v.high), coins: k(coins) })),
      h("button.btn", { type: "button", "data-focus": "pass", disabled: m.pending, onclick: () => act({ pass: true }) }, passText),
      h("span.note", null, canRaise ? t("act.youHold", { money: money(coins) }) : ""),
    );
  }

  function saleActions(sc) {
    const v = m.view;
    const waiting = v.committed.map((c, s) => (c ? -1 : s)).filter((s) => s >= 0 && s !== m.seat);
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
      h("button.btn.primary", { type: "button", "data-focus": "sell", disabled: !chosen || m.pending, onclick: () => act({ sell: chosen }) }, chosen ? t("act.sellHouse", { house: chosen }) : t("act.sell")),
    );
  }

  function handCard(sc) {
    const v = m.view;
    const choosing = v.phase === "sale" && !v.my_commit && legal().length > 0;
    return (house) => {
      if (!choosing) return houseCard(house);
      const card = houseCard(house, { button: true, label: t("act.sellHouse", { house }) });
      card.dataset.focus = `house-${house}`;
      const current = m.selected ?? (v.hands[m.seat] || [])[0];
      card.tabIndex = current === house ? 0 : -1;
      card.disabled = m.pending; // sent: no second choice until the server answers
      if (m.selected === house) card.classList.add("chosen");
      card.setAttribute("aria-pressed", m.selected === house ? "true" : "false");
      // The hand is one stop for Tab (a roving tabindex); the arrow keys move between its houses (Space or Enter chooses).
      card.addEventListener("keydown", (event) => {
        const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
        if (!step) return;
        event.preventDefault();
        const all = [...card.parentElement.querySelectorAll("button.card.house")];
        const next = all[(all.indexOf(card) + step + all.length) % all.length];
        if (next) next.focus();
      });
      card.addEventListener("click", () => {
        if (m.selected === house) act({ sell: house });
        else {
          m.selected = house;
          draw();
        }
      });
      return card;
    };
  }

  // -- side panels ------------------------------------------------------------------
  function logPanel(sc) {
    const lines = storyLines(sc.folded, (s) => seatName(sc, s), sc.rounds);
    const list = h("ol.log", { "aria-label": t("log.label"), tabindex: "0" }, lines.map((l) => h(`li.${l.cls || "x"}`, null, l.text)));
    return h("section.panel", null, h("h2", null, t("log.title")), list);
  }

  /** The table's creator may allow or forbid the memory aid at any time. */
  /** A game against bots alone: one person, so "allow it at this table" and spectators' chat mean nothing. */
  function solo() {
    return !!(m.table && m.table.seats && m.table.seats.filter((s) => s.kind !== "bot").length <= 1);
  }

  function creatorSwitch() {
    const saved = seats.get(tableId);
    if (!saved || !saved.creator || !m.table) return null;
    // Alone with bots, the memory aid's own switch is the one setting; "allow it" shows only to turn it back on.
    if (solo() && memoryAllowed()) return null;
    const box = h("input", {
      type: "checkbox",
      id: "memory-allowed",
      checked: memoryAllowed(),
      onchange: async (event) => {
        try {
          const res = await api.settings(tableId, { creator_token: saved.creator, memory_aid: event.target.checked });
          m.table = res.table;
          draw();
        } catch (e) {
          ctx.toast(e.message);
        }
      },
    });
    return h("label.toggle", { for: "memory-allowed", title: t("memory.creator") }, box, t("memory.allowHere"));
  }

  function memoryPanel(sc) {
    const v = m.view;
    if (!memoryAllowed()) {
      return h(
        "section.panel.memory",
        null,
        h("h2", null, t("memory.title")),
        h("p.hint", null, t("memory.off")),
        creatorSwitch(),
      );
    }
    const toggle = h("input", {
      type: "checkbox",
      id: "memory-toggle",
      checked: m.memory,
      onchange: (event) => {
        m.memory = event.target.checked;
        localStorage.setItem(MEMORY_KEY, m.memory ? "on" : "off");
        draw();
      },
    });
    const panel = h("section.panel.memory", { id: "memory" }, h("label.toggle", { for: "memory-toggle" }, toggle, t("memory.title")), creatorSwitch());
    if (!m.memory) {
      panel.append(h("p.hint", null, t("memory.what")));
      return panel;
    }
    panel.append(
      h("h3", null, t("memory.housesToCome", { count: v.houses_to_come }), aside(v.houses_to_come, v.unseen_houses.length)),
      h("div.cards-line", { id: "memory-houses", dataset: { cards: v.unseen_houses.join(",") } }, v.houses_to_come ? v.unseen_houses.map((x) => h("span.tiny.house", { title: t("card.house", { value: x }) }, String(x))) : null),
      h("h3", null, t("memory.chequesToCome", { count: v.cheques_to_come }), aside(v.cheques_to_come, v.unseen_cheques.length)),
      h("div.cards-line", { id: "memory-cheques", dataset: { cards: v.unseen_cheques.join(",") } }, v.cheques_to_come ? v.unseen_cheques.map((x) => h("span.tiny.cheque", { title: t("card.cheque.label", { money: money(x) }) }, k(x))) : null),
      h("h3", null, t("memory.everySeat")),
      h(
        "table",
        { id: "memory-seats" },
        h("thead", null, h("tr", null, h("th", null, t("memory.seat")), h("th", null, t("memory.coins")), h("th", null, t("memory.houses")), h("th", null, t("memory.cheques")))),
        h(
          "tbody",
          null,
          v.coins.map((c, s) =>
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

  /** Before every seat is taken: who is missing, and the link to send each of them. */
  function waitingPanel() {
    if (!m.table || m.table.status !== "waiting") return null;
    const open = m.table.seats.filter((s) => s.kind === "open");
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
          return h("div.link-row", null, h("span", null, t("seat.number", { seat: s.seat + 1 })), h("input", { type: "text", readonly: true, value: url, "aria-label": t("link.forSeat", { seat: s.seat + 1 }), onfocus: (e) => e.target.select() }));
        }),
      ),
    );
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
        const i = history.findIndex((p) => p.game === tableId);
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

  function ratingChangeLine() {
    if (m.table && m.table.rated && !m.watch && m.seat !== null && m.seat !== undefined && !m.ratingAsked) {
      m.ratingAsked = true;
      fetchRatingChange();
    }
    const r = m.ratingChange;
    if (!r) return null;
    const d = r.after - r.before;
    const change = d > 0 ? `+${d}` : d < 0 ? `−${-d}` : "±0";
    return h("p.rating-change", { id: "rating-change" }, t("end.ratingChange", { before: String(r.before), after: String(r.after), change }));
  }

  function endPanel(sc) {
    const win = winners(sc.scores, sc.coins);
    return h(
      "div.end",
      { id: "end" },
      h("div.headline", null, h("strong", null, t("end.title"))),
      h("p.verdict", { id: "verdict" }, explainResult(sc.scores, sc.coins, sc.names.map((_, s) => seatName(sc, s)))),
      ratingChangeLine(),
      resultsTable(sc, win),
      h(
        "div.end-actions",
        null,
        h("a.btn.primary", { href: api.recordUrl(tableId), download: `forsale-${tableId}.json`, id: "download" }, t("end.download")),
        h("a.btn", { href: `#/replay/${tableId}`, id: "replay-link" }, t("end.replay")),
        h("a.btn", { href: "#/" }, t("end.newGame")),
        // In the same row as the other three (alone on a line of its own, it looked left over).
        rematchBox(sc),
      ),
      analysisPanel(tableId, m.token, sc.names.map((_, s) => seatName(sc, s)), seats.get(tableId)?.invite, m.view ? m.view.history : null),
    );
  }

  /** The rematch: offer it, accept or decline another's offer, and see who is awaited (docs/protocol.md). */
  function rematchBox(sc) {
    const r = m.rematch;
    const seated = !m.watch && m.seat !== null && m.seat !== undefined;
    const answer = (accept) => {
      if (!conn || conn.send({ type: "rematch", accept }) === null) ctx.toast(t("table.notSent"));
    };
    const parts = [];
    if (r && r.status === "offered") {
      const waiting = r.waiting.map((s) => seatName(sc, s)).join(", ");
      // "You offered a rematch.", not "You offers": the offer's own words when the offer is this seat's.
      const by = seated && r.by === m.seat ? t("rematch.offeredByYou") : t("rematch.offeredBy", { name: seatName(sc, r.by) });
      parts.push(h("p", null, by, " ", waiting ? t("rematch.waiting", { names: waiting }) : ""));
      if (seated && !r.accepted.includes(m.seat)) {
        parts.push(h("button.btn.primary", { type: "button", id: "rematch-accept", onclick: () => answer(true) }, t("rematch.accept")),
          h("button.btn", { type: "button", id: "rematch-decline", onclick: () => answer(false) }, t("rematch.decline")));
      }
    } else if (r && r.status === "started") {
      parts.push(h("p", null, t("rematch.started"), " ", h("a.btn", { href: `#/watch/${r.table}`, id: "rematch-watch" }, t("rematch.watch"))));
    } else {
      if (r && r.status === "declined") parts.push(h("p", null, t("rematch.declined", { name: seatName(sc, r.declined_by) })));
      if (r && r.status === "expired") parts.push(h("p", null, t("rematch.expired")));
      if (seated) parts.push(h("button.btn.primary", { type: "button", id: "rematch", onclick: () => answer(true) }, t("rematch.offer")));
    }
    return h("div.rematch", { id: "rematch-box", role: "status", "aria-live": "polite" }, parts);
  }

  // -- drawing ----------------------------------------------------------------------
  function drawTools() {
    const status = m.status === "open" ? t("conn.open") : m.status === "lost" || m.status === "connecting" ? t("conn.reconnecting") : has(`conn.${m.status}`) ? t(`conn.${m.status}`) : m.status;
    const clock = h("span.clock", { id: "clock", role: "timer", hidden: true, "aria-label": t("clock.label") });
    ctx.setTools(
      clock,
      h("span.conn", { id: "conn", class: `conn ${m.status === "open" ? "" : "bad"}`, dataset: { status: m.status } }, status),
      m.turnLimit && m.seat !== null && m.seat !== undefined ? notifyButton(draw) : null,
      m.watch || (m.view && m.view.phase === "over") ? null : h("button.btn.quiet", { type: "button", onclick: leave, title: t("leave.title") }, t("leave.button")),
    );
    tick();
  }

  function tick() {
    const el = document.getElementById("clock");
    if (!el) return;
    const entries = Object.entries(m.deadlines || {});
    if (!entries.length || !m.view || m.view.phase === "over") {
      el.hidden = true;
      return;
    }
    // Your own clock first; otherwise the first seat the server will act for.
    const mine = entries.find(([s]) => Number(s) === m.seat);
    const [seat, when] = mine || entries.sort((a, b) => a[1] - b[1])[0];
    const left = Math.max(0, Math.ceil((when - Date.now()) / 1000));
    el.hidden = false;
    const who = Number(seat) === m.seat ? t("seat.badge.you") : names()[Number(seat)];
    const time = left >= 3600 ? longTime(left) : `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    el.textContent = t("clock.text", { who, time });
    el.title = m.turnLimit ? t("clock.turnLimit", { time: longTime(m.turnLimit) }) : m.timeLimit ? t("clock.limit", { seconds: m.timeLimit }) : t("clock.safest");
    el.classList.toggle("low", left <= 5);
  }

  /** A long clock's time in days and hours ("2 d 5 h"), as a turn-based table shows it. */
  function longTime(seconds) {
    const hours = Math.floor(seconds / 3600);
    const days = Math.floor(hours / 24);
    return days ? t("clock.daysHours", { days, hours: hours % 24 }) : t("clock.hours", { count: hours });
  }

  async function leave() {
    if (!m.token) return;
    if (m.view && m.view.phase !== "over" && !confirm(t("leave.confirm"))) return;
    try {
      conn.send({ type: "leave" });
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

  function draw() {
    if (gone) return;
    if (!m.view) {
      root.replaceChildren(m.error ? h("p.error-box", { role: "alert" }, m.error, " ", h("a", { href: "#/" }, t("nav.backToLobby"))) : h("p.empty", null, t("table.joining")));
      drawTools();
      return;
    }
    const focusKey = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.focus : null;
    const logEl = root.querySelector(".log");
    const logAtBottom = !logEl || logEl.scrollTop + logEl.clientHeight >= logEl.scrollHeight - 8;
    const logScroll = logEl ? logEl.scrollTop : 0; // someone reading back up the log stays where they are
    const sc = scene();
    const v = m.view;
    const title = m.table && m.table.name ? shownTableName(m.table.name) : t("table.name", { id: tableId });
    // A tab in the background says when it is your move.
    document.title = legal().length ? t("title.yourMove") : v.phase === "over" ? t("title.over") : t("title.page");
    const stage = v.phase === "over" ? t("info.finished") : t(`info.${v.phase}`, { round: v.round + 1, rounds: v.rounds });
    ctx.setInfo(`${title} · ${stage}${m.watch ? ` · ${t("info.watching")}` : ""}`);
    let prompt = null;
    let actions = null;
    if (!m.watch && m.seat !== null && waitingForPlayers()) {
      // The deal is there, but the game starts when every seat is taken: no "your turn", no live buttons.
      prompt = h("div.prompt", { id: "prompt" }, t("prompt.waitingPlayers"));
      actions = h("div.actions", null, h("span.note.waiting-dots", null, t("waiting.title")));
    } else if (!m.watch && m.seat !== null) {
      if (v.phase === "auction") {
        const mine = legal().length > 0;
        prompt = h("div.prompt", { class: `prompt ${mine ? "yours" : ""}`, id: "prompt" }, mine ? t("prompt.auction") : "");
        actions = auctionActions(sc);
      } else if (v.phase === "sale") {
        actions = saleActions(sc);
        prompt = h("div.prompt", { class: `prompt ${v.my_commit ? "" : "yours"}`, id: "prompt" }, v.my_commit ? "" : t("prompt.sale"));
      }
    }
    ctx.announce(announcement(sc));
    const board = h(
      "div.board",
      null,
      waitingPanel(),
      seatsRow(sc),
      felt(sc, v.phase === "over" ? endPanel(sc) : null),
      m.watch || m.seat === null ? h("p.hint", null, t("table.watching")) : null,
    );
    // The seat's decision stays in view (docs/browser.md, "Your move stays in view"): the tutorial's tip, the hint and
    // the seat's own corner (hand, prompt, bid/pass or Sell) stick to the bottom of the screen, so
    // that neither a tall table nor a tip ever pushes the move out of sight.
    const tipEl = tips ? tips.tip(sc, v, { me: m.seat, watching: m.watch }) : null;
    const hintEl = !m.watch && m.token && m.table && m.table.hints && legal().length ? hintButton(tableId, m.token, decisionKey(v)) : null;
    const dock = !m.watch && m.seat !== null
      ? h("div.dock", { id: "dock", class: `dock ${legal().length ? "yours" : ""} ${v.phase === "over" ? "over" : ""}` }, tipEl, hintEl ? h("div.hint-bar", null, hintEl) : null, myArea(sc, { handCard: handCard(sc), actions, prompt }))
      : tipEl;
    const creator = seats.get(tableId)?.creator;
    const hintsToggle = creator && m.table && !m.table.rated && v.phase !== "over" ? hintsSwitch(tableId, creator, !!m.table.hints, (table) => ((m.table = table), draw())) : null;
    // Chat goes on after the game (a rematch is arranged there), so this switch stays at the end too.
    // A solo game is unlisted and has no invitation to share: nobody comes to watch, so no spectators' chat switch.
    const unwatched = solo() && m.table && m.table.private && !m.table.invite_only;
    const chatToggle = creator && m.table && !unwatched ? spectatorChatSwitch(tableId, creator, !!m.table.spectator_chat, (table) => ((m.table = table), chat.refresh(), draw()), ctx.toast) : null;
    const side = h("aside.side", null, memoryPanel(sc), hintsToggle, chatToggle, logPanel(sc));
    root.replaceChildren(h("div.game", { dataset: { phase: v.phase, moves: v.history.length, seat: m.seat ?? "" } }, board, side, dock));
    const newLog = root.querySelector(".log");
    if (newLog) newLog.scrollTop = logAtBottom ? newLog.scrollHeight : logScroll;
    if (focusKey) {
      const again = root.querySelector(`[data-focus="${focusKey}"]`);
      if (again && !again.disabled) again.focus();
    } else if (document.activeElement === document.body) {
      const first = root.querySelector(".actions [data-focus]:not(:disabled)");
      if (first && legal().length && v.phase === "auction") first.focus({ preventScroll: true });
    }
    if (tips) tips.afterDraw();
    drawTools();
  }

  /**
   * What happened since the last announcement (the log's new lines: bots may make several moves
   * between two drawings, and each is said) and whose turn it is now, in words.
   */
  function announcement(sc) {
    const v = m.view;
    const lines = storyLines(sc.folded, (s) => seatName(sc, s), sc.rounds);
    const from = m.announced === undefined || m.announced > lines.length ? lines.length - 1 : m.announced;
    m.announced = lines.length;
    const parts = lines.slice(Math.max(0, from, lines.length - 8)).map((l) => l.text);
    if (waitingForPlayers()) parts.push(t("waiting.title"));
    else if (v.phase === "auction" && v.turn !== null && v.turn !== undefined) {
      parts.push(v.turn === m.seat && !m.watch ? t("felt.toBid.you") : t("felt.toBid.other", { name: seatName(sc, v.turn) }));
    } else if (v.phase === "sale") {
      const waiting = v.committed.map((c, s) => (c ? -1 : s)).filter((s) => s >= 0);
      if (!m.watch && waiting.includes(m.seat) && legal().length) parts.push(t("prompt.sale"));
      else if (waiting.length) parts.push(t("act.othersChoosing", { names: waiting.map((s) => seatName(sc, s)).join(", ") }));
    }
    return parts.filter(Boolean).join(" ");
  }

  function onKey(event) {
    if (!m.view || m.watch || event.target.tagName === "INPUT" || event.ctrlKey || event.metaKey || event.altKey) return;
    const v = m.view;
    if (v.phase === "auction" && legal().length) {
      if (event.key === "p") act({ pass: true });
      else if (event.key === "1" && legal().some((a) => a.bid === v.high + 1)) act({ bid: v.high + 1 });
      else if (event.key === "2" && legal().some((a) => a.bid === v.high + 2)) act({ bid: v.high + 2 });
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
    clearInterval(ticker);
    turnNotice.stop();
    if (conn) conn.close();
  };
}

/** " (8 of the 10 unseen; the others were set aside at the start)" when cards were removed unseen. */
function aside(toCome, unseen) {
  if (unseen <= toCome) return "";
  return ` ${toCome ? t("memory.asideSome", { count: unseen, aside: unseen - toCome }) : t("memory.asideAll", { count: unseen })}`;
}

/**
 * Which decision the seat faces: a hint answers this one only, and is gone at the next (a new bid
 * to answer, a new auction or sale round), since the moves so far and the phase name it.
 */
function decisionKey(view) {
  return `${view.phase}:${view.round}:${view.history.length}`;
}

/** What passing costs now: the bid minus its refund, rounded as the view's ruleset says. */
function costOfPass(view, bid) {
  const refund = view.ruleset.refund === "up" ? Math.ceil(bid / 2) : Math.floor(bid / 2);
  return bid - refund;
}

