// The live table's model (web/static/js/tablemodel.js) under scripted server messages (docs/protocol.md,
// "WebSocket"): what the table's state becomes and what the page is asked to do, with no browser and no server.
// The same messages from a real server, drawn, are the browser tests' (tests/web/test_web_solo.py and others).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  canAct, clockShown, connection, costOfPass, legal, offline, receive, revealNow, seated, sent, solo, stillChoosing,
  tableModel, takeState, unannounced, waitingForPlayers,
} from "../../src/forsale/web/static/js/tablemodel.js";

const NOW = 1_800_000_000_000;

/** A table of three: seat 0 a person (this page), 1 a person, 2 a bot. */
function info(status = "playing", more = {}) {
  return {
    id: "T",
    name: "Table of 3",
    status,
    memory_aid: true,
    seats: [
      { seat: 0, kind: "human", name: "Ann", bot: null, connected: true },
      { seat: 1, kind: "human", name: "Bob", bot: null, connected: false },
      { seat: 2, kind: "bot", name: "medium bot", bot: "medium" },
    ],
    ...more,
  };
}

/** The parts of a seat's view the model reads. */
function view(more = {}) {
  return {
    players: 3,
    phase: "auction",
    round: 0,
    hands: [[], [], []],
    history: [],
    legal: [{ pass: true }, { bid: 1 }, { bid: 2 }],
    committed: [false, false, false],
    my_commit: null,
    ruleset: { refund: "down" },
    ...more,
  };
}

function welcome(more = {}) {
  return { type: "welcome", table: "T", seq: 0, seat: 0, info: info(), view: view(), clock: { deadlines: {}, now: NOW }, result: null, ...more };
}

test("a welcome gives the seat, the table and the view; a move is sent once and answered by its ack", () => {
  const m = tableModel("T");
  assert.equal(m.status, "connecting");
  connection(m, "open");
  takeState(m, welcome(), NOW);
  assert.equal(m.seat, 0);
  assert.ok(seated(m));
  assert.deepEqual(legal(m), [{ pass: true }, { bid: 1 }, { bid: 2 }]);
  assert.deepEqual(offline(m), [false, true, false]); // Bob's connection dropped; a bot is never offline
  assert.equal(solo(m), false);

  assert.ok(sent(m, 7));
  assert.equal(canAct(m), false); // no second move before the first is answered
  assert.deepEqual(receive(m, { type: "ack", id: 6 }), []); // another request's answer
  assert.equal(m.pending, true);
  assert.deepEqual(receive(m, { type: "ack", id: 7 }), []);
  assert.equal(canAct(m), true);
});

test("a move that could not be sent is not pending", () => {
  const m = tableModel("T");
  takeState(m, welcome(), NOW);
  assert.equal(sent(m, null), false);
  assert.equal(canAct(m), true);
});

test("a refused move is no longer pending, and the page is asked to say why", () => {
  const m = tableModel("T");
  takeState(m, welcome(), NOW);
  sent(m, 3);
  const refusal = { type: "error", id: 3, code: "illegal", message: "bid 1-2 or pass", params: { why: "bid_range" } };
  assert.deepEqual(receive(m, refusal), [{ do: "refused", message: refusal }]);
  assert.equal(m.pending, false);
  // A refusal of another request leaves the move in flight.
  sent(m, 4);
  receive(m, { type: "error", id: 2, code: "rate_limited", message: "slow down" });
  assert.equal(m.pending, true);
});

test("a reconnection's welcome is the whole picture: whatever was in flight was answered or lost", () => {
  const m = tableModel("T");
  takeState(m, welcome(), NOW);
  sent(m, 9);
  connection(m, "lost");
  assert.equal(m.status, "lost");
  connection(m, "connecting");
  takeState(m, welcome({ seq: 5, view: view({ history: [{ seat: 2, bid: 1 }] }) }), NOW);
  assert.equal(m.pending, false);
  assert.equal(m.view.history.length, 1);
});

test("a state that is not a welcome keeps the move in flight and the seat", () => {
  const m = tableModel("T");
  takeState(m, welcome(), NOW);
  sent(m, 9);
  takeState(m, { type: "state", seq: 1, view: view({ history: [{ seat: 0, bid: 1 }] }) }, NOW);
  assert.equal(m.pending, true);
  assert.equal(m.seat, 0);
});

test("a lost token makes the page watch, except after a password change (the page may take the seat back)", () => {
  const m = tableModel("T");
  m.token = "secret";
  takeState(m, welcome(), NOW);
  assert.deepEqual(receive(m, { type: "error", code: "bad_token", message: "no seat" }), [{ do: "seatLost", passwordChanged: false }]);
  assert.equal(m.token, null);
  assert.equal(m.seat, null);
  assert.equal(m.watch, true);
  assert.equal(seated(m), false);

  const again = tableModel("T");
  again.token = "secret";
  const changed = { type: "error", code: "bad_token", message: "ended", params: { why: "password_changed" } };
  assert.deepEqual(receive(again, changed), [{ do: "seatLost", passwordChanged: true }]);
  assert.equal(again.watch, false);
  assert.equal(again.token, null);
});

test("a private table that does not admit the page says so where the table would be", () => {
  const m = tableModel("T", { watch: true });
  const refusal = { type: "error", code: "private_table", message: "invitation only" };
  assert.deepEqual(receive(m, refusal), [{ do: "notAdmitted", message: refusal }]);
  assert.deepEqual(m.error, { refusal });
  // A socket the server closed (no such table) leaves an error with no refusal to word.
  const gone = tableModel("X");
  connection(gone, "refused");
  assert.deepEqual(gone.error, { refusal: null });
});

test("chat and rematch messages become the page's effects; a started rematch sends this seat to its table", () => {
  const m = tableModel("T");
  takeState(m, welcome(), NOW);
  assert.deepEqual(receive(m, { type: "chat_history", messages: [{ text: "hi" }] }), [{ do: "chatHistory", messages: [{ text: "hi" }] }]);
  assert.deepEqual(receive(m, { type: "chat", message: { text: "gg" } }), [{ do: "chat", message: { text: "gg" } }]);
  const offered = { status: "offered", by: 1, waiting: [0], accepted: [1] };
  assert.deepEqual(receive(m, { type: "rematch", rematch: offered }), [{ do: "draw" }]);
  assert.deepEqual(m.rematch, offered);
  const started = { status: "started", table: "U", seat: 0, token: "new" };
  assert.deepEqual(receive(m, { type: "rematch", rematch: started }), [{ do: "goToRematch", rematch: started }]);
  // A spectator's copy of a started rematch has no token: it stays, and draws the link to watch.
  assert.deepEqual(receive(tableModel("T", { watch: true }), { type: "rematch", rematch: { status: "started", table: "U" } }), [{ do: "draw" }]);
  assert.deepEqual(receive(m, { type: "pong" }), []); // a type this page does not know is ignored
});

test("the game's end brings the server's result", () => {
  const m = tableModel("T");
  takeState(m, welcome(), NOW);
  const result = { scores: [50, 61, 40], coins: [1, 0, 3], winners: [1] };
  takeState(m, { type: "state", seq: 40, status: "over", view: view({ phase: "over", legal: [] }), result }, NOW);
  assert.deepEqual(m.result, result);
  assert.deepEqual(legal(m), []);
  assert.equal(clockShown(m, NOW), null); // no clock once the game is over
});

test("a table waiting for players offers no move, even with the deal there", () => {
  const m = tableModel("T");
  takeState(m, welcome({ info: info("waiting") }), NOW);
  assert.ok(waitingForPlayers(m));
  assert.deepEqual(legal(m), []);
  takeState(m, { type: "table", info: info("playing") }, NOW);
  assert.equal(waitingForPlayers(m), false);
  assert.equal(legal(m).length, 3);
});

test("deadlines are kept in this browser's clock; this seat's own comes first", () => {
  const m = tableModel("T");
  // The server's clock is 2 s behind this browser's.
  const clock = { now: NOW - 2000, deadlines: { 1: NOW + 5000, 0: NOW + 28_000 }, time_limit: 30 };
  takeState(m, welcome({ clock }), NOW);
  assert.deepEqual(m.deadlines, { 0: NOW + 30_000, 1: NOW + 7000 });
  assert.equal(m.timeLimit, 30);
  assert.deepEqual(clockShown(m, NOW), { seat: 0, left: 30 });
  m.seat = 2; // a seat with no clock of its own sees the first one to run out
  assert.deepEqual(clockShown(m, NOW + 1500), { seat: 1, left: 6 });
  assert.deepEqual(clockShown(m, NOW + 60_000), { seat: 1, left: 0 });
});

test("a house chosen to sell is forgotten once it can no longer be sold", () => {
  const m = tableModel("T");
  const sale = view({ phase: "sale", hands: [[4, 17], [], []], legal: [{ sell: 4 }, { sell: 17 }] });
  takeState(m, welcome({ view: sale }), NOW);
  m.selected = 17;
  takeState(m, { type: "state", view: { ...sale, committed: [false, true, false] } }, NOW);
  assert.equal(m.selected, 17); // another seat chose: the choice stands
  takeState(m, { type: "state", view: { ...sale, my_commit: 17 } }, NOW);
  assert.equal(m.selected, null); // sold
  assert.deepEqual(stillChoosing({ committed: [true, false, false] }, 2), [1]);
});

test("passing costs the bid less its refund, rounded as the ruleset says", () => {
  assert.equal(costOfPass({ ruleset: { refund: "down" } }, 5), 3);
  assert.equal(costOfPass({ ruleset: { refund: "up" } }, 5), 2);
  assert.equal(costOfPass({ ruleset: { refund: "down" } }, 0), 0);
});

test("a sale is revealed once, and the log is announced from where it was last said", () => {
  const m = tableModel("T");
  takeState(m, welcome({ view: view({ phase: "sale", history: [{ sell: [4, 9, 12] }] }) }), NOW);
  assert.equal(revealNow(m), true);
  assert.equal(revealNow(m), false); // a redraw of the same state does not animate again
  assert.deepEqual(unannounced(m, ["a", "b", "c"]), ["c"]); // the first time: the latest line only
  assert.deepEqual(unannounced(m, ["a", "b", "c", "d", "e"]), ["d", "e"]);
  assert.deepEqual(unannounced(m, "abcdefghijklmnopqrst".split("")), "mnopqrst".split("")); // at most 8
  // ... but the player's own move is said however many bots' moves follow it
  const own = "uvWxyzABCDEFGH".split("");
  assert.deepEqual(unannounced(m, [..."abcdefghijklmnopqrst".split(""), ...own], (l) => l === "W"), ["W", ..."ABCDEFGH".split("")]);
});

test("a game against bots alone is solo", () => {
  const m = tableModel("T");
  const seats = info().seats.map((s) => (s.seat === 1 ? { ...s, kind: "bot", bot: "easy" } : s));
  takeState(m, welcome({ info: info("playing", { seats }) }), NOW);
  assert.ok(solo(m));
});
