// The server's names in the page's words (web/static/js/format.js's shownName): a seat whose person gave no name
// ("Player 2", and "You" in records made before the server named it so) and a deleted account's seats are said in
// the page's language, and the unnamed seat is "you" only to the person who sits there.
import assert from "node:assert/strict";
import { test } from "node:test";

import { shownName, shownNames } from "../../src/forsale/web/static/js/format.js";
import { speak } from "./speak.mjs";

test("a seat whose person gave no name is the seat's player to others and 'you' to that person", async () => {
  await speak("fr");
  assert.equal(shownName("Player 2", 1), "Joueur 2");
  assert.equal(shownName("Player 2", 1, { mine: true }), "Vous");
  assert.equal(shownName("Player 2", 1, { bot: "easy" }), "Player 2"); // a bot's seat is never a person's default
  assert.equal(shownName("Player 2", 2), "Player 2"); // not this seat's name: somebody's own (the server refuses it)
  assert.equal(shownName("Player 1 (left; bot)", 0, { bot: "easy" }), "Joueur 1 (parti\u202f; robot)");
  await speak("it");
  assert.equal(shownName("Player 3", 2), "Giocatore 3");
  assert.equal(shownName("Player 3", 2, { mine: true }), "Tu");
});

test("a record's 'You' from before is the seat's player too", async () => {
  await speak("de");
  assert.equal(shownName("You", 0), "Spieler 1");
  assert.equal(shownName("You", 0, { mine: true }), "Du");
  assert.deepEqual(shownNames({ names: ["You", "easy bot", "Ann"], bots: [null, "easy", null] }), ["Spieler 1", "leicht (Bot)", "Ann"]);
});

test("a deleted account's seat is said in the page's language", async () => {
  await speak("nl");
  assert.equal(shownName("deleted player", 3), "verwijderde speler");
  await speak("en");
  assert.equal(shownName("deleted player", 3), "deleted player");
  assert.equal(shownName("Player 4", 3), "Player 4");
  assert.equal(shownName("Player 4", 3, { mine: true }), "You");
});
