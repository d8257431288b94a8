// @ts-check
// The readable log: the fold's events in words, in the page's language.
import { k, money } from "./format.js";
import { t } from "./i18n.js";

function cards(list) {
  return list.join(" · ");
}

/** One line of text per event; `name(seat)` gives "You" (`seat.you`) or a seat's name. */
export function describe(ev, name, rounds) {
  // The page's own seat takes its own grammar ("You pass" / "Ann passes"): a message per person.
  const line = (cls, key, seat, params = {}) => {
    const who = name(seat);
    const mine = who === t("seat.you");
    return { cls, mine, text: t(`${key}.${mine ? "you" : "other"}`, { name: who, ...params }) };
  };
  switch (ev.kind) {
    case "round":
      if (ev.phase === "auction") return line("round", "log.auction", ev.first, { round: ev.round + 1, rounds, houses: cards(ev.table) });
      return { cls: "round", text: t("log.sale", { round: ev.round + 1, rounds, cheques: cards(ev.table.map(money)) }) };
    case "bid":
      return line("bid", "log.bid", ev.seat, { amount: k(ev.amount) });
    case "pass":
      if (!ev.bid) return line("pass", "log.passFree", ev.seat, { house: ev.house });
      return line("pass", "log.pass", ev.seat, { house: ev.house, bid: k(ev.bid), back: k(ev.bid - ev.paid), paid: k(ev.paid) });
    case "take":
      if (!ev.paid) return line("take", "log.takeFree", ev.seat, { house: ev.house });
      return line("take", "log.take", ev.seat, { house: ev.house, paid: k(ev.paid) });
    case "sale":
      return {
        cls: "sale",
        text: t("log.sales", { sales: ev.sales.map((s) => line("sale", "log.sold", s.seat, { house: s.house, count: s.house, money: money(s.cheque) }).text).join(t("list.semicolon")) }),
      };
    case "end":
      return { cls: "end", text: t("log.end", { scores: ev.scores.map((sc, s) => t("log.score", { name: name(s), score: k(sc) })).join(", ") }) };
    default:
      return { cls: "", text: JSON.stringify(ev) };
  }
}

/** All lines of a folded game, oldest first. */
export function storyLines(folded, name, rounds) {
  const lines = folded.opening.map((ev) => describe(ev, name, rounds));
  for (const evs of folded.events) for (const ev of evs) lines.push(describe(ev, name, rounds));
  return lines;
}
