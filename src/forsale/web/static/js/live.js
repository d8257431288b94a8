// A live table: the seat's view from the server, drawn and acted upon.
import { api, Connection, playerName, savePlayerName, seats } from "./api.js";
import { felt, myArea, resultsTable, sceneFromView, seatName, seatsRow } from "./board.js";
import { houseCard } from "./cards.js";
import { distinctNames, h, k, money } from "./format.js";
import { explainResult, fold, setupFromView, winners } from "./ledger.js";
import { storyLines } from "./story.js";

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
  };
  let conn = null;
  let ticker = null;
  let gone = false;

  const root = h("div.game-root");
  ctx.app.replaceChildren(root);

  function start() {
    const saved = seats.get(tableId);
    if (!m.watch && saved && saved.token) {
      m.token = saved.token;
      m.seat = saved.seat;
    }
    if (!m.watch && !m.token && opts.join !== null && opts.join !== undefined) {
      return askToJoin(Number(opts.join));
    }
    if (!m.watch && !m.token) m.watch = true;
    connect();
  }

  /** A share link's landing: sit down at that seat if it is still free, else say so and offer the rest. */
  async function askToJoin(seat) {
    let info = null;
    try {
      info = (await api.table(tableId)).table;
    } catch (e) {
      root.replaceChildren(h("p.error-box", { role: "alert" }, `${e.message}. `, h("a", { href: "#/" }, "Back to the lobby")));
      return;
    }
    if (gone) return;
    const wanted = info.seats[seat];
    if (!wanted || wanted.kind !== "open") {
      const free = info.open_seats || [];
      root.replaceChildren(
        h(
          "div.panel",
          { style: "max-width:480px;margin:0 auto", id: "seat-taken" },
          h("h2", null, info.status === "over" ? "This game is over" : `Seat ${seat + 1} is taken`),
          h("p.hint", null, free.length ? "These seats are still free:" : "Every seat is taken; you can watch."),
          h("div.end-actions", { style: "justify-content:flex-start" },
            free.map((s) => h("a.btn", { href: `#/table/${tableId}?seat=${s}` }, `Seat ${s + 1}`)),
            h("a.btn.quiet", { href: info.status === "over" ? `#/replay/${tableId}` : `#/watch/${tableId}` }, info.status === "over" ? "Replay it" : "Watch")),
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
            const res = await api.join(tableId, { seat, name: name.value.trim() || undefined });
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
      h("h2", null, `Take seat ${seat + 1} at this table`),
      h("label", { for: "join-name" }, "Your name", name),
      h("div.row", null, h("button.btn.primary", { type: "submit" }, "Sit down"), h("a.btn.quiet", { href: `#/watch/${tableId}` }, "Just watch")),
      err,
    );
    root.replaceChildren(h("div", { style: "max-width:420px;margin:0 auto" }, form));
    name.focus();
  }

  function connect() {
    conn = new Connection(tableId, m.token, {
      onMessage: receive,
      onStatus: (status) => {
        if (gone) return;
        m.status = status;
        if (status === "refused") m.error = "There is no such table.";
        drawTools();
        if (status === "refused") draw();
      },
    });
    conn.open();
    if (!ticker) ticker = setInterval(tick, 250);
  }

  function receive(msg) {
    switch (msg.type) {
      case "welcome":
      case "state":
      case "table": {
        if (msg.info) m.table = msg.info;
        if (msg.clock) setClock(msg.clock);
        if (msg.view) {
          m.view = msg.view;
          if (msg.type === "welcome") {
            m.seat = msg.seat;
            m.pending = false; // a new connection: whatever was in flight was answered or lost
          }
          const hand = m.seat !== null && m.seat !== undefined ? m.view.hands[m.seat] || [] : [];
          if (m.view.phase !== "sale" || m.view.my_commit || !hand.includes(m.selected)) m.selected = null;
        }
        if (msg.result) m.result = msg.result;
        drawSoon();
        break;
      }
      case "ack":
        // Accepted. The state that shows it follows at once; until then the buttons stay disabled,
        // so an older state arriving meanwhile cannot offer the same move twice.
        if (msg.id === m.pendingId) m.pending = false;
        break;
      case "error":
        if (msg.code === "bad_token") {
          // The token no longer holds a seat here (the seat was given up): watch instead.
          seats.drop(tableId);
          m.token = null;
          m.seat = null;
          m.watch = true;
          ctx.toast("This seat is no longer yours; you are watching the table.");
          conn.close();
          connect();
          return;
        }
        if (msg.id === m.pendingId || msg.id === null || msg.id === undefined) m.pending = false;
        console.warn(`forsale server: ${msg.code}: ${msg.message}`);
        ctx.toast(msg.message || "the server refused that");
        draw();
        break;
      default:
        break;
    }
  }

  /** Deadlines come in server time (epoch ms); keep them in this browser's time. */
  function setClock(clock) {
    const skew = clock.now ? Date.now() - clock.now : 0;
    m.deadlines = {};
    for (const [seat, when] of Object.entries(clock.deadlines || {})) m.deadlines[seat] = when + skew;
    m.timeLimit = clock.time_limit;
  }

  /** Seat names, made distinct ("random bot 2", "random bot 3") so the log can be followed. */
  function names() {
    const n = m.view ? m.view.players : 0;
    const list = [];
    for (let s = 0; s < n; s++) {
      const seat = m.table && m.table.seats ? m.table.seats[s] : null;
      list.push(seat && seat.name ? seat.name : `Seat ${s + 1}`);
    }
    return distinctNames(list);
  }

  function badges() {
    return names().map((_, s) => {
      const seat = m.table && m.table.seats ? m.table.seats[s] : null;
      if (!seat) return "";
      if (seat.kind === "bot") return "bot";
      if (seat.kind === "open") return "free seat";
      return "";
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
    const sc = sceneFromView(v, {
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
    const id = conn.send({ type: "act", action });
    if (id === null) {
      ctx.toast("Not connected: your move was not sent. Reconnecting…");
      return;
    }
    m.pending = true;
    m.pendingId = id;
    draw();
  }

  function legal() {
    return m.view ? m.view.legal : [];
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
    const passText = myBid ? `Pass (take ${lowest}, pay ${k(costOfPass(v, myBid))}, ${k(refund)} back)` : `Pass (take ${lowest}, free)`;
    if (!v.active[m.seat]) return h("div.actions", null, h("span.note", null, "You passed this round. Waiting for the others."));
    if (!myTurn) {
      return h("div.actions", null, h("span.note.waiting-dots", null, `Waiting for ${seatName(sc, v.turn)}`));
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
      "aria-label": "your bid in thousands",
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
        ctx.toast(`Bid a whole number from ${min} to ${coins} (in thousands).`);
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
          title: `Bid ${k(v.high + step)}`,
          "aria-label": `Bid ${k(v.high + step)} (plus ${step})`,
          onclick: () => act({ bid: v.high + step }),
        },
        `+${step}`,
      );
    return h(
      "div.actions",
      { role: "group", "aria-label": "your move" },
      canRaise ? [h("label.sr-only", { for: "bid-amount" }, "Bid"), input, h("span.note", null, "k"),
        h("button.btn.primary", { type: "button", "data-focus": "bid-btn", disabled: m.pending, onclick: submitBid }, "Bid"),
        quick(1), quick(2)] : h("span.note", null, `You cannot top ${k(v.high)} with ${k(coins)}.`),
      h("button.btn", { type: "button", "data-focus": "pass", disabled: m.pending, onclick: () => act({ pass: true }) }, passText),
      h("span.note", null, canRaise ? `You hold ${money(coins)}.` : ""),
    );
  }

  function saleActions(sc) {
    const v = m.view;
    const waiting = v.committed.map((c, s) => (c ? -1 : s)).filter((s) => s >= 0 && s !== m.seat);
    if (v.my_commit) {
      return h(
        "div.actions",
        null,
        h("span.note", { "aria-live": "polite" }, `You are selling house ${v.my_commit}. `,
          waiting.length ? h("span.waiting-dots", null, `Others are still choosing: ${waiting.map((s) => sc.names[s]).join(", ")}`) : "Revealing…"),
      );
    }
    const chosen = m.selected;
    return h(
      "div.actions",
      { role: "group", "aria-label": "your sale" },
      h("span.note", null, chosen ? `Sell house ${chosen}?` : "Pick a house from your hand to sell."),
      h("button.btn.primary", { type: "button", "data-focus": "sell", disabled: !chosen || m.pending, onclick: () => act({ sell: chosen }) }, chosen ? `Sell house ${chosen}` : "Sell"),
    );
  }

  function handCard(sc) {
    const v = m.view;
    const choosing = v.phase === "sale" && !v.my_commit && legal().length > 0;
    return (house) => {
      if (!choosing) return houseCard(house);
      const card = houseCard(house, { button: true, label: `Sell house ${house}` });
      card.dataset.focus = `house-${house}`;
      card.disabled = m.pending; // sent: no second choice until the server answers
      if (m.selected === house) card.classList.add("chosen");
      card.setAttribute("aria-pressed", m.selected === house ? "true" : "false");
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
    const list = h("ol.log", { "aria-label": "game log", tabindex: "0" }, lines.map((l) => h(`li.${l.cls || "x"}`, null, l.text)));
    return h("section.panel", null, h("h2", null, "Log"), list);
  }

  /** The table's creator may allow or forbid the memory aid at any time. */
  function creatorSwitch() {
    const saved = seats.get(tableId);
    if (!saved || !saved.creator || !m.table) return null;
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
    return h("label.toggle", { for: "memory-allowed", title: "You created this table" }, box, "Allow it at this table");
  }

  function memoryPanel(sc) {
    const v = m.view;
    if (!memoryAllowed()) {
      return h(
        "section.panel.memory",
        null,
        h("h2", null, "Memory aid"),
        h("p.hint", null, "The table's creator turned the memory aid off: remembering is part of the game."),
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
    const panel = h("section.panel.memory", { id: "memory" }, h("label.toggle", { for: "memory-toggle" }, toggle, "Memory aid"), creatorSwitch());
    if (!m.memory) {
      panel.append(h("p.hint", null, "What a perfect memory would know: cards still to come, everyone's coins and houses."));
      return panel;
    }
    panel.append(
      h("h3", null, `Houses to come: ${v.houses_to_come}`, aside(v.houses_to_come, v.unseen_houses.length)),
      h("div.cards-line", { id: "memory-houses", dataset: { cards: v.unseen_houses.join(",") } }, v.houses_to_come ? v.unseen_houses.map((x) => h("span.tiny.house", { title: `house ${x}` }, String(x))) : null),
      h("h3", null, `Cheques to come: ${v.cheques_to_come}`, aside(v.cheques_to_come, v.unseen_cheques.length)),
      h("div.cards-line", { id: "memory-cheques", dataset: { cards: v.unseen_cheques.join(",") } }, v.cheques_to_come ? v.unseen_cheques.map((x) => h("span.tiny.cheque", { title: `cheque ${money(x)}` }, `${x}k`)) : null),
      h("h3", null, "Every seat"),
      h(
        "table",
        { id: "memory-seats" },
        h("thead", null, h("tr", null, h("th", null, "Seat"), h("th", null, "Coins"), h("th", null, "Houses"), h("th", null, "Cheques"))),
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
      h("h2", null, "Waiting for players"),
      h("p.hint", null, `The game starts when every seat is taken. Send each friend the link to a free seat:`),
      h(
        "div.links",
        null,
        open.map((s) => {
          const url = `${location.origin}${location.pathname}#/table/${tableId}?seat=${s.seat}`;
          return h("div.link-row", null, h("span", null, `Seat ${s.seat + 1}`), h("input", { type: "text", readonly: true, value: url, "aria-label": `link for seat ${s.seat + 1}`, onfocus: (e) => e.target.select() }));
        }),
      ),
    );
  }

  function endPanel(sc) {
    const win = winners(sc.scores, sc.coins);
    return h(
      "div.end",
      { id: "end" },
      h("div.headline", null, h("strong", null, "Game over")),
      h("p.verdict", { id: "verdict" }, explainResult(sc.scores, sc.coins, sc.names.map((_, s) => seatName(sc, s)))),
      resultsTable(sc, win),
      h(
        "div.end-actions",
        null,
        h("a.btn.primary", { href: api.recordUrl(tableId), download: `forsale-${tableId}.json`, id: "download" }, "Download record"),
        h("a.btn", { href: `#/replay/${tableId}`, id: "replay-link" }, "Watch the replay"),
        h("a.btn", { href: "#/" }, "New game"),
      ),
    );
  }

  // -- drawing ----------------------------------------------------------------------
  function drawTools() {
    const status = m.status === "open" ? "connected" : m.status === "lost" || m.status === "connecting" ? "reconnecting…" : m.status;
    const clock = h("span.clock", { id: "clock", hidden: true, "aria-label": "time left for the move" });
    ctx.setTools(
      clock,
      h("span.conn", { id: "conn", class: `conn ${m.status === "open" ? "" : "bad"}`, dataset: { status: m.status } }, status),
      m.watch || (m.view && m.view.phase === "over") ? null : h("button.btn.quiet", { type: "button", onclick: leave, title: "Give up your seat" }, "Leave"),
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
    const who = Number(seat) === m.seat ? "you" : names()[Number(seat)];
    el.textContent = `${who}: ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    el.title = m.timeLimit ? `${m.timeLimit} s a move; then the safest move is played` : "then the safest move is played";
    el.classList.toggle("low", left <= 5);
  }

  async function leave() {
    if (!m.token) return;
    if (m.view && m.view.phase !== "over" && !confirm("Leave this table? A bot or the clock will play your seat.")) return;
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
      root.replaceChildren(m.error ? h("p.error-box", { role: "alert" }, m.error, " ", h("a", { href: "#/" }, "Back to the lobby")) : h("p.empty", null, "Joining the table…"));
      drawTools();
      return;
    }
    const focusKey = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.focus : null;
    const logEl = root.querySelector(".log");
    const logAtBottom = !logEl || logEl.scrollTop + logEl.clientHeight >= logEl.scrollHeight - 8;
    const logScroll = logEl ? logEl.scrollTop : 0; // someone reading back up the log stays where they are
    const sc = scene();
    const v = m.view;
    const title = m.table && m.table.name ? m.table.name : `Table ${tableId}`;
    // A tab in the background says when it is your move.
    document.title = legal().length ? "● Your move · For Sale" : v.phase === "over" ? "Game over · For Sale" : "For Sale";
    ctx.setInfo(
      `${title} · ${v.phase === "over" ? "finished" : v.phase === "auction" ? `auction ${v.round + 1}/${v.rounds}` : `sale ${v.round + 1}/${v.rounds}`}${m.watch ? " · watching" : ""}`,
    );
    let prompt = null;
    let actions = null;
    if (!m.watch && m.seat !== null) {
      if (v.phase === "auction") {
        const mine = legal().length > 0;
        prompt = h("div.prompt", { class: `prompt ${mine ? "yours" : ""}`, id: "prompt", "aria-live": "polite" }, mine ? "Your turn to bid or pass." : "");
        actions = auctionActions(sc);
      } else if (v.phase === "sale") {
        actions = saleActions(sc);
        prompt = h("div.prompt", { class: `prompt ${v.my_commit ? "" : "yours"}`, id: "prompt", "aria-live": "polite" }, v.my_commit ? "" : "Choose a house to sell.");
      }
    }
    const board = h(
      "div.board",
      null,
      waitingPanel(),
      seatsRow(sc),
      felt(sc, v.phase === "over" ? endPanel(sc) : null),
      !m.watch && m.seat !== null ? myArea(sc, { handCard: handCard(sc), actions, prompt }) : h("p.hint", null, "You are watching: only public information is shown."),
    );
    const side = h("aside.side", null, memoryPanel(sc), logPanel(sc));
    root.replaceChildren(h("div.game", { dataset: { phase: v.phase, moves: v.history.length, seat: m.seat ?? "" } }, board, side));
    const newLog = root.querySelector(".log");
    if (newLog) newLog.scrollTop = logAtBottom ? newLog.scrollHeight : logScroll;
    if (focusKey) {
      const again = root.querySelector(`[data-focus="${focusKey}"]`);
      if (again && !again.disabled) again.focus();
    } else if (document.activeElement === document.body) {
      const first = root.querySelector(".actions [data-focus]:not(:disabled)");
      if (first && legal().length && v.phase === "auction") first.focus({ preventScroll: true });
    }
    drawTools();
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
  start();
  return () => {
    gone = true;
    document.title = "For Sale";
    document.removeEventListener("keydown", onKey);
    clearInterval(ticker);
    if (conn) conn.close();
  };
}

/** " (8 of the 10 unseen; the others were set aside at the start)" when cards were removed unseen. */
function aside(toCome, unseen) {
  if (unseen <= toCome) return "";
  return toCome ? ` of these ${unseen} (${unseen - toCome} were set aside unseen)` : ` (the ${unseen} unseen were set aside)`;
}

/** What passing costs now: the bid minus its refund, rounded as the view's ruleset says. */
function costOfPass(view, bid) {
  const refund = view.ruleset.refund === "up" ? Math.ceil(bid / 2) : Math.floor(bid / 2);
  return bid - refund;
}

