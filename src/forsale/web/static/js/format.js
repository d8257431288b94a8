// @ts-check
// Money and small words, the same everywhere on the page, in the page's language (i18n.js).
// Money is an integer count of coins in all data; 1 coin = $1,000 (docs/rules.md).
import { has, t } from "./i18n.js";

export { money } from "./i18n.js";

/** `14k`: coins in thousands, as bids and cheques are spoken of at the table. */
export function k(coins) {
  return t("money.k", { n: coins });
}

/** Create an element: h("div.card.house", {title: "x"}, child, "text", ...). Text is always text (textContent,
 *  text nodes): there is deliberately no way to pass HTML, so no name or chat line can become markup. */
export function h(tag, attrs, ...children) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name || "div");
  if (classes.length) el.className = classes.join(" ");
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
      else if (key === "dataset") Object.assign(el.dataset, value);
      else if (key === "text") el.textContent = value;
      // Through the CSSOM, not the style attribute: the page's Content-Security-Policy refuses inline style
      // attributes (style-src 'self'), and CSSOM changes are not inline styles.
      else if (key === "style") el.style.cssText = value;
      else el.setAttribute(key, value === true ? "" : value);
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}


// The names the server gives what nobody named, in English (forsale.server.names, whose test holds these
// forms to it); the page says them in its own language, whatever language the table was made in. What a name is
// comes with it: a seat's `kind` and `bot`, a table's `players`; a form is then one exact comparison, never a
// pattern. (A person cannot take one of these names: the server refuses look-alikes, forsale.server.names.)
// The forms stay in English on the wire because records keep names as they are, and a record file opened from
// disk says nothing else about its names.
const BOT = " bot";
const LEFT = " (left; bot)";
const TABLE_OF = "Table of ";
const SOLO = "Solo game";
const PLAYER = "Player ";
const DELETED = "deleted player";
// What the server called a table's maker who gave no name, before it gave them a seat's PLAYER name: the
// records of those games still hold it.
const OLD_UNNAMED = "You";

/** A seat's name as the page shows it: an open seat ("Seat 3"), a bot ("medium bot"), a person who left
 *  mid-game ("Ann (left; bot)"), one who gave no name ("Player 2"; "You" to that person, `mine`) and a deleted
 *  account in the page's language. `bot`: the seat's bot spec, if a bot plays it; `open`: nobody sits there
 *  yet; `mine`: the seat is the reader's own. */
export function shownName(name, index, { bot = null, open = false, mine = false } = {}) {
  if (open || !name) return t("seat.number", { seat: index + 1 });
  if (!bot) {
    if (name === PLAYER + (index + 1) || name === OLD_UNNAMED) return mine ? t("seat.you") : t("seat.player", { seat: index + 1 });
    return name === DELETED ? t("seat.deleted") : name;
  }
  const base = bot.split(":")[0];
  // The level in the page's words too ("moyen (robot)", not "medium (robot)"); an unknown bot keeps its spec.
  if (name === base + BOT) return t("seat.bot", { name: has(`seat.botLevel.${base}`) ? t(`seat.botLevel.${base}`) : base });
  return name.endsWith(LEFT) ? t("seat.leftToBot", { name: shownName(name.slice(0, -LEFT.length), index) }) : name;
}

/** A listed game's seat names (`names`, `bots`, `open` as the server lists them), shown and made distinct. */
export function shownNames(game) {
  const bots = game.bots || [];
  const open = game.open || [];
  return distinctNames((game.names || []).map((name, s) => shownName(name, s, { bot: bots[s], open: open.includes(s) })));
}

/**
 * A table's name as the page shows it: the server's "Table of 4" and "Solo game" in the page's language.
 * @param {string} name
 * @param {number} players the table's seats, which the server's name for an unnamed table gives
 */
export function shownTableName(name, players) {
  if (name === SOLO) return t("lobby.soloName");
  return name === TABLE_OF + players ? t("lobby.tableOf", { count: players }) : name;
}

/** Seat names made distinct ("random bot 2", "random bot 3") so a log can be followed. */
export function distinctNames(list) {
  return list.map((name, s) => (list.filter((x) => x === name).length > 1 ? `${name} ${s + 1}` : name));
}

/** Where a newcomer's rating shows (the model's start, mu - 3 sigma = 0), and display points per point of it. */
export const RATING_START = 1500;

/**
 * A rating as people read it: the server's `display` (1500 + 40 * (mu - 3 sigma), docs/protocol.md), or the same
 * map of `rating` from a server that predates it. "-2.76" means nothing to a player; "1390" does.
 */
export function shownRating(r) {
  return typeof r.display === "number" ? r.display : Math.round(RATING_START + 40 * r.rating);
}
