// @ts-check
// A table's WebSocket, the page's one transport for a live game: it opens, says hello with the seat's token,
// hands every message on, and reconnects by itself with a growing, jittered pause. It knows nothing of the game
// (tablemodel.js folds the messages into the table's state; live.js wires the two together).

const FIRST_PAUSE_MS = 500;
const MAX_PAUSE_MS = 10000;

/**
 * Milliseconds to wait before reconnection attempt number `attempt` (0 for
 * the first after a drop): exponential backoff, 0.5 s doubling up to 10 s,
 * with "equal jitter" (between half and all of it, drawn by `random`) so that
 * the pages of a classroom that lost the server together do not all come
 * back in the same instant; and never sooner than `retryAfter` seconds (a
 * `too_many_connections` refusal says how long), plus up to half of it again.
 * @param {number} attempt
 * @param {number} [retryAfter]
 * @param {() => number} [random]
 * @returns {number}
 */
export function reconnectDelay(attempt, retryAfter = 0, random = Math.random) {
  const ceiling = Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** Math.min(attempt, 30));
  const pause = ceiling / 2 + (random() * ceiling) / 2;
  return retryAfter > 0 ? Math.max(pause, retryAfter * 1000 * (1 + random() / 2)) : pause;
}

/**
 * The `retry_after` seconds a refusal asks for: in its error's params, or in the close reason; else 0.
 * @param {string | {params?: {retry_after?: unknown}} | null | undefined} msgOrReason
 * @returns {number}
 */
export function retryAfterOf(msgOrReason) {
  if (typeof msgOrReason === "string") {
    const found = /retry_after=(\d+(?:\.\d+)?)/.exec(msgOrReason);
    return found ? Number(found[1]) : 0;
  }
  const seconds = msgOrReason?.params?.retry_after;
  return typeof seconds === "number" && seconds > 0 ? seconds : 0;
}

/**
 * A table's WebSocket that reconnects by itself: a dropped connection is
 * retried with a growing, jittered pause (reconnectDelay), and every
 * (re)connection starts with a hello carrying the seat token, so the server
 * answers with a fresh snapshot. The pause goes back to its shortest only once
 * the server has welcomed the connection: a socket that opens and is refused
 * (too many from this address) keeps backing off, and waits as long as the
 * refusal says, instead of hammering the server every 300 ms.
 */
export class Connection {
  /**
   * @param {string} tableId
   * @param {string | null} token the seat's token, or null to watch
   * @param {{onMessage: (msg: any) => void, onStatus: (status: string, event?: CloseEvent) => void}} listeners
   *   every message the server sends, parsed; the status: connecting, open, lost, closed or refused
   */
  constructor(tableId, token, { onMessage, onStatus }) {
    this.tableId = tableId;
    this.token = token;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.closed = false;
    this.retry = 0; // reconnection attempts since the server last welcomed this connection
    this.retryAfter = 0; // seconds the last refusal asked us to wait
    this.nextId = 1;
    /** @type {WebSocket | null} */
    this.ws = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.pinger = undefined;
    /** @type {string | null} */
    this.invite = null; // an invitation-only table's code, for watching it
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}/ws/tables/${encodeURIComponent(this.tableId)}`;
  }

  open() {
    if (this.closed) return;
    this.onStatus("connecting");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return; // closed by the page while connecting
      ws.send(JSON.stringify({ type: "hello", token: this.token || null, invite: this.invite || null }));
      this.onStatus("open");
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping" }), 20000);
    });
    ws.addEventListener("message", (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg.type === "welcome") {
        this.retry = 0; // served: the next drop starts again from the shortest pause
        this.retryAfter = 0;
      } else if (msg.type === "error" && msg.code === "too_many_connections") {
        this.retryAfter = retryAfterOf(msg) || 10;
      }
      this.onMessage(msg);
    });
    ws.addEventListener("close", (event) => {
      clearInterval(this.pinger);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.closed || event.code === 4401 || event.code === 4403 || event.code === 4404) {
        this.onStatus(this.closed ? "closed" : "refused", event);
        return;
      }
      this.onStatus("lost");
      const pause = reconnectDelay(this.retry++, Math.max(this.retryAfter, retryAfterOf(event.reason)));
      this.retryAfter = 0;
      this.timer = setTimeout(() => this.open(), pause);
    });
    // An "error" event is always followed by "close", which does the retrying.
    ws.addEventListener("error", () => {});
  }

  /**
   * Send a message; returns its id, or null when not connected.
   * @param {{type: string, [key: string]: unknown}} msg
   * @returns {number | null}
   */
  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return null;
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ ...msg, id }));
    return id;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    const ws = this.ws;
    this.ws = null;
    if (!ws) return;
    // Closing a socket that is still connecting makes the browser log an error: close it once open.
    if (ws.readyState === WebSocket.CONNECTING) ws.addEventListener("open", () => ws.close(1000));
    else ws.close(1000);
  }
}
