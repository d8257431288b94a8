// The page's messages (web/static/js/i18n.js): a number's article as each language says it. Italian writes the
// article by the number's sound ("l’8", "l’11", "l’1": otto, undici, uno) through exact forms ("=8") of a
// message; French keeps "la 8" and "le 11" (no elision before huit and onze); Dutch and German have none.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { t } from "../../src/forsale/web/static/js/i18n.js";
import { speak } from "./speak.mjs";

const pass = (house) => t("act.passFree", { house, count: house });
const took = (house) => t("felt.took.you", { house, count: house });

test("Italian elides the article before 1, 8 and 11, and only there", async () => {
  await speak("it");
  assert.equal(pass(8), "Passa (prendi l’8, gratis)");
  assert.equal(pass(11), "Passa (prendi l’11, gratis)");
  assert.equal(pass(1), "Passa (prendi l’1, gratis)");
  for (const house of [2, 3, 10, 18, 28, 30]) assert.equal(pass(house), `Passa (prendi il ${house}, gratis)`);
  assert.equal(took(8), "Hai preso l’8");
  assert.equal(t("log.sold.other", { name: "Ann", house: 11, count: 11, money: "3.000 $" }), "Ann ha venduto l’11 per 3.000 $");
  assert.equal(t("status.passedTookFor", { house: 1, count: 1, paid: "2k" }), "ha passato · ha preso l’1 per 2k");
  assert.equal(t("profile.since", { date: "08/12/26, 10:00", count: 8 }), "Gioca dall’08/12/26, 10:00");
  assert.equal(t("profile.since", { date: "09/12/26, 10:00", count: 9 }), "Gioca dal 09/12/26, 10:00");
});

test("no Italian message about a house puts an unelided article before 1, 8 or 11", async () => {
  const it = JSON.parse(readFileSync(new URL("../../src/forsale/web/static/i18n/it.json", import.meta.url), "utf8"));
  await speak("it");
  const about = Object.entries(it).filter(([, message]) => JSON.stringify(message).includes("{house}"));
  assert.ok(about.length >= 10);
  for (const [key] of about) {
    for (const house of [1, 8, 11]) {
      assert.doesNotMatch(t(key, { house, count: house, name: "Ann" }), /\b(il|del|al|dal|nel|sul|col) (1|8|11)\b/, key);
    }
  }
});

test("French, Dutch and German say a number the same whatever it is", async () => {
  await speak("fr");
  assert.equal(pass(8), "Passer (prendre la 8, gratuit)");
  assert.equal(pass(11), "Passer (prendre la 11, gratuit)");
  await speak("nl");
  assert.equal(pass(8).replace("8", "3"), pass(3));
  await speak("de");
  assert.equal(pass(11).replace("11", "3"), pass(3));
});
