// Money and small words, the same everywhere on the page, in the page's language (i18n.js).
// Money is an integer count of coins in all data; 1 coin = $1,000 (docs/rules.md).
import { t } from "./i18n.js";

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
      else el.setAttribute(key, value === true ? "" : value);
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}


/** Seat names made distinct ("random bot 2", "random bot 3") so a log can be followed. */
export function distinctNames(list) {
  return list.map((name, s) => (list.filter((x) => x === name).length > 1 ? `${name} ${s + 1}` : name));
}
