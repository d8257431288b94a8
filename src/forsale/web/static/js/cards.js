// @ts-check
// Houses, cheques and coins drawn as things on a table, not as numbers in a form.
import { h, k, money } from "./format.js";
import { t } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) el.setAttribute(key, value);
  for (const child of children) el.append(child);
  return el;
}

// Six tiers of property, from a cardboard box (1) to a palace (30).
const TIERS = [
  { name: "shack", wall: "#b98b5e", roof: "#7a5232" },
  { name: "cottage", wall: "#e6c89a", roof: "#a0523d" },
  { name: "house", wall: "#f0dcb4", roof: "#6b7f99" },
  { name: "townhouse", wall: "#d9b9a3", roof: "#4f6d5a" },
  { name: "villa", wall: "#f4ecdc", roof: "#b4643c" },
  { name: "mansion", wall: "#efe6d0", roof: "#3f4a68" },
];

function tierOf(value) {
  return TIERS[Math.min(TIERS.length - 1, Math.floor((value - 1) / 5))];
}

/** A little drawing of a house whose size and style grow with its value. */
function houseArt(value) {
  const tier = tierOf(value);
  const floors = 1 + Math.floor((value - 1) / 10);
  const width = 34 + value * 1.4;
  const floorH = 16;
  const x0 = (100 - width) / 2;
  const base = 72;
  const top = base - floors * floorH;
  const g = svg("svg", { viewBox: "0 0 100 80", class: "art", "aria-hidden": "true" });
  g.append(svg("rect", { x: 4, y: base, width: 92, height: 3, rx: 1.5, fill: "var(--ground)" }));
  if (value >= 21) {
    // side wings for the grand properties
    g.append(svg("rect", { x: x0 - 8, y: base - floorH, width: 10, height: floorH, fill: tier.wall, stroke: "#0003" }));
    g.append(svg("rect", { x: x0 + width - 2, y: base - floorH, width: 10, height: floorH, fill: tier.wall, stroke: "#0003" }));
  }
  g.append(svg("rect", { x: x0, y: top, width, height: base - top, fill: tier.wall, stroke: "#0004" }));
  g.append(svg("polygon", { points: `${x0 - 4},${top} ${50},${top - 14 - floors * 2} ${x0 + width + 4},${top}`, fill: tier.roof }));
  if (value >= 16) g.append(svg("rect", { x: x0 + width * 0.7, y: top - 12, width: 5, height: 10, fill: tier.roof }));
  const perFloor = Math.max(2, Math.min(6, Math.round(width / 14)));
  for (let f = 0; f < floors; f++) {
    const y = top + f * floorH + 4;
    for (let i = 0; i < perFloor; i++) {
      const wx = x0 + ((i + 0.5) * width) / perFloor - 3;
      if (f === floors - 1 && i === Math.floor(perFloor / 2)) continue; // the door goes here
      g.append(svg("rect", { x: wx, y, width: 6, height: 7, fill: "#f6e7a8", stroke: "#0003" }));
    }
  }
  g.append(svg("rect", { x: 47, y: base - 12, width: 6, height: 12, fill: tier.roof }));
  return g;
}

/** A house card. `opts.small` for hands and logs; `opts.button` makes it a choosable button. */
export function houseCard(value, opts = {}) {
  const tag = opts.button ? "button.card.house" : "div.card.house";
  const el = h(
    tag,
    {
      type: opts.button ? "button" : null,
      // A drawn card is one picture with one name (its parts are decoration); a choosable one is a button.
      role: opts.button ? null : "img",
      title: t("card.house", { value }),
      "aria-label": opts.label || t("card.house", { value }),
      dataset: { house: value },
    },
    h("span.corner", null, String(value)),
    houseArt(value),
    h("span.value", null, String(value)),
  );
  el.classList.add(`tier-${tierOf(value).name}`);
  if (opts.small) el.classList.add("small");
  return el;
}

/** A cheque card. */
export function chequeCard(value, opts = {}) {
  const el = h(
    "div.card.cheque",
    { role: "img", title: t("card.cheque.title", { money: money(value) }), "aria-label": t("card.cheque.label", { money: money(value) }), dataset: { cheque: value } },
    h("span.bank", null, t("card.cheque.bank")),
    h("span.amount", null, money(value)),
    h("span.value", null, k(value)),
    h("span.sign", null, t("card.cheque.bearer")),
  );
  // "zahlbar an den Überbringer" is half as long again as "pay to the bearer": the CSS sizes the line by its length
  // so that every language's words fit the card's foot on one line.
  el.style.setProperty("--sign-chars", String(Math.max(1, t("card.cheque.bearer").length)));
  if (value === 0) el.classList.add("void");
  if (opts.small) el.classList.add("small");
  return el;
}

/** A face-down card (a house chosen but not yet revealed). */
export function backCard(opts = {}) {
  const el = h("div.card.back", { role: "img", "aria-label": opts.label || t("card.hidden.label"), title: opts.label || t("card.hidden.title") });
  if (opts.small) el.classList.add("small");
  return el;
}

/** A stack of coins with its value: at most `max` coins are drawn, the figure says the rest. */
export function coinStack(coins, opts = {}) {
  const drawn = Math.min(coins, opts.max ?? 10);
  const stack = h("span.coins", { "aria-hidden": "true" });
  for (let i = 0; i < drawn; i++) stack.append(h("span.coin", { style: `--i:${i}` }));
  return h(
    "span.purse",
    { title: t("card.purse", { count: coins, money: money(coins) }) },
    stack,
    h("span.amount", null, money(coins)),
  );
}

/** A single coin chip with a number, used for bids. */
export function bidChip(amount) {
  return h("span.chip", { title: t("card.bid", { money: money(amount) }) }, k(amount));
}
