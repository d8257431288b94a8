// @ts-check
// Folding a game's public history into states, move by move.
//
// The page never referees a game (the server does, with the engine); it only
// needs to *tell the story* of a game: the readable log of a live table and
// the replay viewer of a finished one. Both come from the same fold over the
// public moves, so the log and the replay can never disagree. Only public
// information goes in: the houses and cheques revealed each round (sorted) and
// the moves, exactly what every seat's view carries.
//
// No second engine: the rules live in the server's package (forsale.rules). A preset's knobs come from the server
// (`GET /api/rulesets`' preset_knobs), a live game's from its view, a finished game's result from the server's
// `result`. What stays here is what the page must compute from what it sees, because nothing else says it: the
// states *between* moves (a view is only the latest), the log's events, and for a record file opened from disk
// (no server has seen it) the final scores and winners. tests/js/ledger.test.mjs holds the fold's coins, scores and
// winners to the engine's on records the engine made (tests/js/fixtures).
import { k } from "./format.js";
import { joinList, t } from "./i18n.js";

/**
 * Each preset's knobs at each player count it is for, as the server states them (`/api/rulesets`' preset_knobs).
 * @typedef {Object<string, Object<string, {starting_coins: number, removed: number, refund: string}>>} PresetKnobs
 */

/**
 * The knobs of a record's `rules` value (a preset name or an object); a preset's come from `presets`.
 * `startingCoins` is null for a preset this server does not know at `n` players.
 * @param {string | {starting_coins: number, refund: string} | null | undefined} rules
 * @param {number} n
 * @param {PresetKnobs} presets
 * @returns {{name: string, startingCoins: number | null, refund: string | null}}
 */
export function rulesKnobs(rules, n, presets) {
  if (rules && typeof rules === "object") {
    return { name: "custom", startingCoins: rules.starting_coins, refund: rules.refund };
  }
  const name = /** @type {string} */ (rules || (n === 2 ? "two-player" : "official"));
  const knobs = (presets[name] || {})[String(n)];
  return { name, startingCoins: knobs ? knobs.starting_coins : null, refund: knobs ? knobs.refund : null };
}

function chunks(cards, n) {
  const out = [];
  for (let i = 0; i + n <= cards.length; i += n) out.push(cards.slice(i, i + n).sort((a, b) => a - b));
  return out;
}

/**
 * The setup of a finished game from a `forsale-record/1` record; `presets`: the server's preset knobs.
 * @param {any} record
 * @param {PresetKnobs} presets
 * @returns {Setup}
 */
export function setupFromRecord(record, presets) {
  const names = record.players;
  const n = names.length;
  const knobs = rulesKnobs(record.rules, n, presets);
  if (knobs.startingCoins === null) throw new Error(t("replay.unknownRules", { rules: JSON.stringify(record.rules), count: n }));
  return {
    n,
    names,
    rules: record.rules,
    coins0: Array(n).fill(knobs.startingCoins),
    refund: /** @type {string} */ (knobs.refund),
    first: record.deal.first,
    auctionTables: chunks(record.deal.houses, n),
    saleTables: chunks(record.deal.cheques, n),
    moves: record.moves,
  };
}

/**
 * What a fold starts from: the seats, their starting coins, the refund's rounding, who bids first, each round's
 * houses and cheques, and the moves (record form). `totalRounds`: a live view lists only the rounds revealed.
 * @typedef {{n: number, names: string[], rules: any, coins0: number[], refund: string, first: number,
 *            auctionTables: number[][], saleTables: number[][], moves: any[], totalRounds?: number}} Setup
 */

/**
 * The setup of a live game from one view (`View.to_json()`): what every seat may know.
 * @param {any} view
 * @param {string[]} names
 * @returns {Setup}
 */
export function setupFromView(view, names) {
  const n = view.players;
  /** @type {Setup} */
  const setup = {
    n,
    names,
    rules: view.rules,
    coins0: Array(n).fill(0),
    refund: view.ruleset.refund, // the view carries its ruleset's knobs: no preset table needed
    first: view.first,
    auctionTables: view.auction_tables,
    saleTables: view.sale_tables,
    totalRounds: view.rounds,
    moves: view.history,
  };
  // Starting coins follow from where the coins are now and what was paid on the way.
  const end = fold(setup).states.at(-1);
  setup.coins0 = view.coins.map((c, s) => c - end.coins[s]);
  return setup;
}

function snapshot(g) {
  return {
    phase: g.phase,
    round: g.round,
    coins: g.coins.slice(),
    hands: g.hands.map((h) => h.slice().sort((a, b) => a - b)),
    cheques: g.cheques.map((c) => c.slice().sort((a, b) => a - b)),
    table: g.table.slice(),
    bids: g.bids.slice(),
    active: g.active.slice(),
    high: g.high,
    turn: g.turn,
    lastSale: g.lastSale,
    lastTake: g.lastTake,
    taken: g.taken.slice(),
    rounds: g.rounds,
  };
}

/**
 * Every state of a game, from the deal (states[0]) to after the last move
 * (states[moves.length]), and the log events each move caused.
 *
 * `events[i]` is the list of events of move i (`-1`: the opening events).
 * Event kinds: `round` {phase, round, table, first}, `bid` {seat, amount},
 * `pass` {seat, house, paid}, `take` {seat, house, paid}, `sale` {round, sales:
 * [{seat, house, cheque}]}, `end` {scores, winners, coins}.
 */
export function fold(setup) {
  const n = setup.n;
  const rounds = Math.max(setup.auctionTables.length, setup.saleTables.length);
  const g = {
    phase: "auction",
    round: 0,
    rounds,
    coins: setup.coins0.slice(),
    hands: Array.from({ length: n }, () => []),
    cheques: Array.from({ length: n }, () => []),
    table: (setup.auctionTables[0] || []).slice(),
    bids: Array(n).fill(0),
    active: Array(n).fill(true),
    high: 0,
    turn: setup.first,
    lastSale: null,
    lastTake: null,
    taken: [],
  };
  const opening = [{ kind: "round", phase: "auction", round: 0, table: g.table.slice(), first: setup.first }];
  const states = [snapshot(g)];
  const events = [];
  const refundOf = (b) => (setup.refund === "up" ? Math.ceil(b / 2) : Math.floor(b / 2));
  // How many auction rounds the game has: a live view only lists the ones revealed so far.
  const auctionRounds = setup.totalRounds || rounds;
  for (const move of setup.moves) {
    const ev = [];
    g.lastSale = null;
    g.lastTake = null;
    if (move.sell) {
      const table = (setup.saleTables[g.round] || []).slice().sort((a, b) => b - a);
      const order = move.sell.map((house, seat) => ({ seat, house })).sort((a, b) => b.house - a.house);
      const sales = order.map((x, i) => ({ seat: x.seat, house: x.house, cheque: table[i] }));
      for (const s of sales) {
        g.hands[s.seat] = g.hands[s.seat].filter((h) => h !== s.house);
        g.cheques[s.seat].push(s.cheque);
      }
      g.lastSale = sales.slice().sort((a, b) => a.seat - b.seat);
      ev.push({ kind: "sale", round: g.round, sales });
      g.round += 1;
      if (g.round >= auctionRounds) {
        g.phase = "over";
        g.table = [];
        const scores = g.coins.map((c, s) => c + g.cheques[s].reduce((a, b) => a + b, 0));
        ev.push({ kind: "end", scores, coins: g.coins.slice(), winners: winners(scores, g.coins) });
      } else {
        g.table = (setup.saleTables[g.round] || []).slice();
        if (g.table.length) ev.push({ kind: "round", phase: "sale", round: g.round, table: g.table.slice() });
      }
    } else if (move.pass) {
      const seat = move.seat;
      const bid = g.bids[seat];
      const paid = bid - refundOf(bid);
      g.coins[seat] -= paid;
      const house = g.table.shift();
      g.hands[seat].push(house);
      g.active[seat] = false;
      g.bids[seat] = -1;
      ev.push({ kind: "pass", seat, house, paid, bid });
      g.lastTake = [{ seat, house, paid }];
      g.taken.push({ seat, house, paid });
      const left = g.active.map((a, s) => (a ? s : -1)).filter((s) => s >= 0);
      if (left.length === 1) {
        const last = left[0];
        const lastPaid = g.bids[last];
        const lastHouse = g.table.pop();
        g.coins[last] -= lastPaid;
        g.hands[last].push(lastHouse);
        ev.push({ kind: "take", seat: last, house: lastHouse, paid: lastPaid });
        g.lastTake.push({ seat: last, house: lastHouse, paid: lastPaid });
        g.round += 1;
        g.taken = [];
        g.bids = Array(n).fill(0);
        g.active = Array(n).fill(true);
        g.high = 0;
        if (g.round >= auctionRounds) {
          g.phase = "sale";
          g.round = 0;
          g.turn = null;
          g.active = Array(n).fill(false);
          g.table = (setup.saleTables[0] || []).slice();
          ev.push({ kind: "round", phase: "sale", round: 0, table: g.table.slice() });
        } else {
          g.turn = last;
          g.table = (setup.auctionTables[g.round] || []).slice();
          ev.push({ kind: "round", phase: "auction", round: g.round, table: g.table.slice(), first: last });
        }
      } else {
        g.turn = nextActive(g.active, seat);
      }
    } else {
      g.bids[move.seat] = move.bid;
      g.high = move.bid;
      ev.push({ kind: "bid", seat: move.seat, amount: move.bid });
      g.turn = nextActive(g.active, move.seat);
    }
    events.push(ev);
    states.push(snapshot(g));
  }
  return { states, events, opening };
}

function nextActive(active, seat) {
  const n = active.length;
  for (let i = 1; i <= n; i++) {
    const s = (seat + i) % n;
    if (active[s]) return s;
  }
  return seat;
}

/**
 * The winning seats: highest score, then most coins; several only for a shared win (forsale.rules.winners, for
 * a game no server has scored: a record file).
 * @param {number[]} scores
 * @param {number[]} coins
 * @returns {number[]}
 */
export function winners(scores, coins) {
  let best = null;
  for (let s = 0; s < scores.length; s++) {
    if (best === null || scores[s] > scores[best] || (scores[s] === scores[best] && coins[s] > coins[best])) best = s;
  }
  return scores.map((_, s) => s).filter((s) => scores[s] === scores[best] && coins[s] === coins[best]);
}

/**
 * Words that explain how the winner was decided, tie-break included; `win`: the winning seats (the server's
 * result where there is one).
 * @param {number[]} scores
 * @param {number[]} coins
 * @param {string[]} names
 * @param {number[]} [win]
 */
export function explainResult(scores, coins, names, win = winners(scores, coins)) {
  const top = Math.max(...scores);
  const tiedOnScore = scores.map((_, s) => s).filter((s) => scores[s] === top);
  const who = (list) => joinList(list.map((s) => names[s]));
  const params = { winners: who(win), tied: who(tiedOnScore), top: k(top), coins: k(coins[win[0]]), count: win.length };
  // A lone winner who is the page's own seat takes its own grammar ("You won" / "Ann won").
  const person = win.length === 1 && names[win[0]] === t("seat.you") ? "you" : "other";
  if (tiedOnScore.length === 1) return t(`result.won.${person}`, params);
  if (win.length === 1) return t(`result.tieBroken.${person}`, params);
  if (win.length === tiedOnScore.length) return t("result.shared", params);
  return t("result.sharedAfterTie", params);
}
