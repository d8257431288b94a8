// @ts-check
// A live table's state, and how the server's messages change it: the model of live.js's table.
//
// Pure by design: no DOM, no socket, no timers, no storage, no words (the page's language is the views'). The
// server's messages go in (`receive`), the state comes out, with a list of what the rest of the page must do
// about it (`Effect`s: draw, add a chat line, go to the rematch's table...). So the table's logic runs under
// `node --test` (tests/js/tablemodel.test.mjs) with scripted messages, and the browser tests keep to what a
// person sees. live.js owns the effects; tableview.js draws the state; socket.js carries the messages.

/**
 * @typedef {{seat: number, kind: "open" | "human" | "bot", name: string, bot: string | null,
 *            account?: boolean, bot_account?: boolean, connected?: boolean}} Seat
 * @typedef {{name?: string, players?: number, status?: string, seats?: Seat[], memory_aid?: boolean, hints?: boolean,
 *            rated?: boolean, private?: boolean, invite_only?: boolean, spectator_chat?: boolean,
 *            open_seats?: number[]}} TableInfo
 * @typedef {{pass: true} | {bid: number} | {sell: number}} Action
 * @typedef {{now?: number, deadlines?: Object<string, number>, time_limit?: number | null,
 *            turn_limit?: number | null}} Clock
 * @typedef {{status: string, by?: number, waiting?: number[], accepted?: number[], declined_by?: number,
 *            table?: string, token?: string, seat?: number}} Rematch
 * @typedef {{type: string, [key: string]: any}} Message
 *   A server message (docs/protocol.md, "WebSocket"): welcome, state, table, chat_history, chat, rematch, ack, error.
 * @typedef {{do: "draw"} | {do: "chatHistory", messages: any[]} | {do: "chat", message: any} |
 *           {do: "chatRefresh"} | {do: "goToRematch", rematch: Rematch} |
 *           {do: "seatLost", passwordChanged: boolean} | {do: "notAdmitted", message: Message} |
 *           {do: "refused", message: Message}} Effect
 *   What the page does about a message: `seatLost`: the token no longer holds a seat (drop it, reconnect);
 *   `notAdmitted`: a private table refused this page (stop, say so); `refused`: a move or request was refused.
 */

/**
 * The state of one table as this page knows it.
 * @typedef {object} TableModel
 * @property {string} tableId
 * @property {boolean} watch watching (no seat), by choice or because the seat was lost
 * @property {string | null} token the seat's secret token
 * @property {number | null} seat
 * @property {TableInfo | null} table the table's public description (names, kinds, clock, memory aid allowed)
 * @property {any} view the seat's (or a spectator's) view, `View.to_json()`
 * @property {Object<string, number>} deadlines seat -> ms since epoch (this browser's clock) when the server acts for it
 * @property {number | null} timeLimit
 * @property {number | null} turnLimit
 * @property {{scores: number[], coins: number[], winners: number[]} | null} result the server's result, once over
 * @property {string} status the connection's: connecting, open, lost, closed, refused
 * @property {boolean} pending a move is sent and not yet answered: no second one
 * @property {number | null} pendingId
 * @property {number | null} selected the house chosen to sell, before it is sent
 * @property {{moves: number, value: string} | null} draft the bid being typed (kept across redraws of one move)
 * @property {number | null} revealKey the history length whose sale reveal was already animated
 * @property {number | undefined} announced how many log lines were already announced to screen readers
 * @property {boolean} memory this browser's memory-aid switch
 * @property {{refusal: Message | null} | null} error why there is no table to show: the server's refusal, or
 *   (refusal null) a socket the server closed because there is no such table
 * @property {Rematch | null} rematch after the game: the offer as this seat sees it (docs/protocol.md, "rematch")
 * @property {boolean} ratingAsked
 * @property {{before: number, after: number} | null} ratingChange after a rated game, on the shown scale
 */

/**
 * A table's state before the server has said anything.
 * @param {string} tableId
 * @param {{watch?: boolean, memory?: boolean}} [opts]
 * @returns {TableModel}
 */
export function tableModel(tableId, { watch = false, memory = false } = {}) {
  return {
    tableId,
    watch,
    token: null,
    seat: null,
    table: null,
    view: null,
    deadlines: {},
    timeLimit: null,
    turnLimit: null,
    result: null,
    status: "connecting",
    pending: false,
    pendingId: null,
    selected: null,
    draft: null,
    revealKey: null,
    announced: undefined,
    memory,
    error: null,
    rematch: null,
    ratingAsked: false,
    ratingChange: null,
  };
}

/**
 * Whether the page holds a seat (and so moves), rather than watching.
 * @param {TableModel} m
 */
export function seated(m) {
  return !m.watch && m.seat !== null && m.seat !== undefined;
}

/**
 * Take in a table's state (a welcome, a move, a change of the table's description). `now`: this browser's clock,
 * ms since the epoch, to keep the server's deadlines in it.
 * @param {TableModel} m
 * @param {Message} msg
 * @param {number} now
 */
export function takeState(m, msg, now) {
  if (msg.info) m.table = msg.info;
  if (msg.clock) setClock(m, msg.clock, now);
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
}

/**
 * Deadlines come in server time (epoch ms); keep them in this browser's time.
 * @param {TableModel} m
 * @param {Clock} clock
 * @param {number} now
 */
function setClock(m, clock, now) {
  const skew = clock.now ? now - clock.now : 0;
  m.deadlines = {};
  for (const [seat, when] of Object.entries(clock.deadlines || {})) m.deadlines[seat] = when + skew;
  m.timeLimit = clock.time_limit ?? null;
  m.turnLimit = clock.turn_limit || null;
}

/**
 * The socket's status changed (socket.js: connecting, open, lost, closed, refused).
 * @param {TableModel} m
 * @param {string} status
 */
export function connection(m, status) {
  m.status = status;
  if (status === "refused") m.error = { refusal: null }; // the server closed it: no such table
}

/**
 * One server message, other than a table's state (`takeState`; live.js decides when a state is taken, since the
 * tutorial may hold states back while a tip is read). Returns what the page must do about it.
 * @param {TableModel} m
 * @param {Message} msg
 * @returns {Effect[]}
 */
export function receive(m, msg) {
  switch (msg.type) {
    case "chat_history":
      return [{ do: "chatHistory", messages: msg.messages }];
    case "chat":
      return [{ do: "chat", message: msg.message }];
    case "rematch":
      m.rematch = msg.rematch;
      // Our seat at the new table: the page keeps its token and goes there.
      if (m.rematch && m.rematch.status === "started" && m.rematch.token) return [{ do: "goToRematch", rematch: m.rematch }];
      return [{ do: "draw" }];
    case "ack":
      // Accepted. The state that shows it follows at once; until then the buttons stay disabled,
      // so an older state arriving meanwhile cannot offer the same move twice.
      if (msg.id === m.pendingId) m.pending = false;
      return [];
    case "error":
      return refused(m, msg);
    default:
      return [];
  }
}

/**
 * @param {TableModel} m
 * @param {Message} msg
 * @returns {Effect[]}
 */
function refused(m, msg) {
  if (msg.code === "bad_token") {
    // The token no longer holds a seat here: given up, taken up on another device, or ended by a password change
    // (then a page signed in with the new password takes its seat back; live.js asks the server).
    m.token = null;
    m.seat = null;
    const passwordChanged = !!(msg.params && msg.params.why === "password_changed");
    if (!passwordChanged) m.watch = true;
    return [{ do: "seatLost", passwordChanged }];
  }
  if (msg.code === "private_table" && !m.view) {
    // Not admitted to a private table (no invitation code): said where the table would be, not "joining…" for ever.
    m.error = { refusal: msg };
    return [{ do: "notAdmitted", message: msg }];
  }
  if (msg.id === m.pendingId || msg.id === null || msg.id === undefined) m.pending = false;
  return [{ do: "refused", message: msg }];
}

/**
 * A move sent with message id `id` (null: the socket was not open, so nothing was sent).
 * @param {TableModel} m
 * @param {number | null} id
 * @returns {boolean} whether it went
 */
export function sent(m, id) {
  if (id === null) return false;
  m.pending = true;
  m.pendingId = id;
  return true;
}

/**
 * Whether a move may be sent now: one at a time, each answered before the next.
 * @param {TableModel} m
 */
export function canAct(m) {
  return !m.pending;
}

/**
 * Whether the table still waits for people to sit down: nobody moves yet (the server would refuse it).
 * @param {TableModel} m
 */
export function waitingForPlayers(m) {
  return !!(m.table && m.table.status === "waiting");
}

/**
 * The moves this seat may make now (none while the table waits for players).
 * @param {TableModel} m
 * @returns {Action[]}
 */
export function legal(m) {
  return m.view && !waitingForPlayers(m) ? m.view.legal : [];
}

/** @param {TableModel} m */
export function memoryAllowed(m) {
  return !!(m.table && m.table.memory_aid);
}

/**
 * A game against bots alone: one person, so "allow it at this table" and spectators' chat mean nothing.
 * @param {TableModel} m
 */
export function solo(m) {
  return !!(m.table && m.table.seats && m.table.seats.filter((s) => s.kind !== "bot").length <= 1);
}

/**
 * Each seat's kind as the table describes it (null before the table is known).
 * @param {TableModel} m
 * @returns {(Seat | null)[]}
 */
export function seatsOf(m) {
  const n = m.view ? m.view.players : 0;
  return Array.from({ length: n }, (_, s) => (m.table && m.table.seats ? m.table.seats[s] || null : null));
}

/**
 * The people whose connection dropped (a bot is never offline).
 * @param {TableModel} m
 * @returns {boolean[]}
 */
export function offline(m) {
  return seatsOf(m).map((seat) => !!(seat && seat.kind === "human" && seat.connected === false));
}

/**
 * The clock to show: this seat's own deadline first, otherwise the first seat the server will act for, with the
 * whole seconds left at `now`; null when no clock runs.
 * @param {TableModel} m
 * @param {number} now
 * @returns {{seat: number, left: number} | null}
 */
export function clockShown(m, now) {
  const entries = Object.entries(m.deadlines || {});
  if (!entries.length || !m.view || m.view.phase === "over") return null;
  const mine = entries.find(([s]) => Number(s) === m.seat);
  const [seat, when] = mine || entries.sort((a, b) => a[1] - b[1])[0];
  return { seat: Number(seat), left: Math.max(0, Math.ceil((when - now) / 1000)) };
}

/**
 * The seats still choosing a house to sell (`except`: leave this seat out).
 * @param {any} view
 * @param {number | null} [except]
 * @returns {number[]}
 */
export function stillChoosing(view, except = null) {
  return view.committed.map((/** @type {boolean} */ c, /** @type {number} */ s) => (c ? -1 : s)).filter((/** @type {number} */ s) => s >= 0 && s !== except);
}

/**
 * What passing costs now: the bid minus its refund, rounded as the view's ruleset says.
 * @param {any} view
 * @param {number} bid
 */
export function costOfPass(view, bid) {
  const refund = view.ruleset.refund === "up" ? Math.ceil(bid / 2) : Math.floor(bid / 2);
  return bid - refund;
}

/**
 * Which decision the seat faces: a hint answers this one only, and is gone at the next (a new bid
 * to answer, a new auction or sale round), since the moves so far and the phase name it.
 * @param {any} view
 */
export function decisionKey(view) {
  return `${view.phase}:${view.round}:${view.history.length}`;
}

/**
 * Whether the sale just revealed should be animated: once per reveal, not at every redraw.
 * @param {TableModel} m
 */
export function revealNow(m) {
  const v = m.view;
  const lastMove = v.history.at(-1);
  const animate = !!(lastMove && lastMove.sell && m.revealKey !== v.history.length);
  if (animate) m.revealKey = v.history.length;
  return animate;
}

/**
 * The log lines not yet announced to screen readers, of `lines` (at most the last 8, plus any older one `keep`
 * marks: the player's own moves, so that a burst of bots' moves never swallows what the player just did), and
 * remember them said.
 * @template T
 * @param {TableModel} m
 * @param {T[]} lines
 * @param {(line: T) => boolean} [keep]
 * @returns {T[]}
 */
export function unannounced(m, lines, keep = () => false) {
  const from = m.announced === undefined || m.announced > lines.length ? lines.length - 1 : m.announced;
  m.announced = lines.length;
  const start = Math.max(0, from);
  const tail = Math.max(start, lines.length - 8);
  return [...lines.slice(start, tail).filter(keep), ...lines.slice(tail)];
}
