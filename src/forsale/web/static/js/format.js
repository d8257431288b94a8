// Money and small words, the same everywhere on the page.
// Money is an integer count of coins in all data; 1 coin = $1,000 (docs/rules.md).

/** `$14,000` */
export function money(coins) {
  const sign = coins < 0 ? "-" : "";
  return `${sign}$${(Math.abs(coins) * 1000).toLocaleString("en-US")}`;
}

/** `14k` */
export function k(coins) {
  return `${coins}k`;
}

export function plural(count, word, many = `${word}s`) {
  return `${count} ${count === 1 ? word : many}`;
}

/** Create an element: h("div.card.house", {title: "x"}, child, "text", ...). */
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
      else if (key === "html") el.innerHTML = value;
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
