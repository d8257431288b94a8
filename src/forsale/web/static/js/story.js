// The readable log: the fold's events in words.
import { money } from "./format.js";

function cards(list) {
  return list.join(" · ");
}

/** One line of text per event; `name(seat)` gives "You" or a seat's name. */
export function describe(ev, name, rounds) {
  switch (ev.kind) {
    case "round":
      if (ev.phase === "auction") {
        const who = name(ev.first);
        return { cls: "round", text: `Auction ${ev.round + 1} of ${rounds}: houses ${cards(ev.table)} for sale; ${who} ${who === "You" ? "open" : "opens"}.` };
      }
      return { cls: "round", text: `Sale ${ev.round + 1} of ${rounds}: cheques ${cards(ev.table.map(money))} on the table.` };
    case "bid":
      return { cls: "bid", text: `${name(ev.seat)} bid${name(ev.seat) === "You" ? "" : "s"} ${ev.amount}k.` };
    case "pass": {
      const who = name(ev.seat);
      const verb = who === "You" ? "pass" : "passes";
      if (!ev.bid) return { cls: "pass", text: `${who} ${verb} and take${who === "You" ? "" : "s"} house ${ev.house} for nothing.` };
      const back = ev.bid - ev.paid;
      return {
        cls: "pass",
        text: `${who} ${verb} and take${who === "You" ? "" : "s"} house ${ev.house}: bid ${ev.bid}k, ${back}k back, paid ${ev.paid}k.`,
      };
    }
    case "take": {
      const who = name(ev.seat);
      if (!ev.paid) {
        return { cls: "take", text: `${who} ${who === "You" ? "are" : "is"} the last one in: take${who === "You" ? "" : "s"} house ${ev.house} for nothing.` };
      }
      return {
        cls: "take",
        text: `${who} ${who === "You" ? "are" : "is"} the last bidder: pay${who === "You" ? "" : "s"} ${ev.paid}k for house ${ev.house}.`,
      };
    }
    case "sale":
      return {
        cls: "sale",
        text: ev.sales.map((s) => `${name(s.seat)} sold ${s.house} for ${money(s.cheque)}`).join("; ") + ".",
      };
    case "end":
      return { cls: "end", text: `Game over. ${ev.scores.map((sc, s) => `${name(s)} ${sc}k`).join(", ")}.` };
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
