// The page's ledger (web/static/js/ledger.js) against the engine: folding an engine-made record's moves holds the
// engine's coins and houses after every move, and ends with its scores and winners. The records and the engine's answers are tests/js/fixtures/records.json,
// made (and kept current) by tests/web/test_web_ledger_records.py.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { fold, rulesKnobs, setupFromRecord, setupFromView, winners } from "../../src/forsale/web/static/js/ledger.js";

const fixture = JSON.parse(readFileSync(new URL("./fixtures/records.json", import.meta.url), "utf8"));
const presets = fixture.preset_knobs;

for (const { record, steps, end } of fixture.games) {
  const rules = JSON.stringify(record.rules);
  test(`a ${rules} game of ${record.players.length} goes and ends as the engine says`, () => {
    const folded = fold(setupFromRecord(record, presets));
    assert.equal(folded.states.length, record.moves.length + 1);
    // After every move, each seat's coins and houses: what the replay of a record file shows.
    folded.states.forEach((state, k) => assert.deepEqual({ coins: state.coins, hands: state.hands }, steps[k], `after ${k} moves`));
    const last = folded.states.at(-1);
    assert.equal(last.phase, "over");
    assert.deepEqual(last.coins, end.coins);
    const ending = folded.events.at(-1).find((ev) => ev.kind === "end");
    assert.deepEqual(ending.scores, end.scores);
    assert.deepEqual(ending.coins, end.coins);
    assert.deepEqual(ending.winners, end.winners);
    assert.deepEqual(winners(end.scores, end.coins), end.winners);
  });
}

test("a preset's starting coins and refund are the server's, at the player count", () => {
  assert.deepEqual(rulesKnobs("first-edition", 4, presets), { name: "first-edition", startingCoins: 21, refund: "up" });
  assert.deepEqual(rulesKnobs(null, 2, presets), { name: "two-player", startingCoins: 18, refund: "down" });
  assert.deepEqual(rulesKnobs({ starting_coins: 9, removed: 2, refund: "up" }, 4, presets), { name: "custom", startingCoins: 9, refund: "up" });
  // A preset this server does not know (a record from a newer one): no coins to start from, said by replay.js.
  assert.equal(rulesKnobs("official", 2, presets).startingCoins, null);
  assert.equal(rulesKnobs("house-rules", 4, presets).startingCoins, null);
});

test("a record's starting coins come from the presets it is given, not from a copy in the page", () => {
  const { record } = fixture.games.find((g) => g.record.rules === "official" && g.record.players.length === 4);
  const richer = { ...presets, official: { ...presets.official, 4: { ...presets.official["4"], starting_coins: 40 } } };
  assert.deepEqual(setupFromRecord(record, richer).coins0, [40, 40, 40, 40]);
});

test("a live view's starting coins follow from its coins now and its history", () => {
  // A view as a seat sees it mid-game, made from the record: the coins after the first auction round.
  const { record } = fixture.games.find((g) => g.record.rules === "official" && g.record.players.length === 4);
  const setup = setupFromRecord(record, presets);
  const folded = fold(setup);
  const moves = folded.events.findIndex((evs) => evs.some((ev) => ev.kind === "round")) + 1;
  const now = folded.states[moves];
  const view = {
    players: 4,
    rules: record.rules,
    ruleset: { refund: "down" },
    first: setup.first,
    auction_tables: setup.auctionTables.slice(0, now.round + 1),
    sale_tables: [],
    rounds: setup.auctionTables.length,
    history: record.moves.slice(0, moves),
    coins: now.coins,
  };
  assert.deepEqual(setupFromView(view, record.players).coins0, [18, 18, 18, 18]);
});
