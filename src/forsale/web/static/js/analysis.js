// @ts-check
// Post-game analysis (GET /api/tables/{id}/analysis) and hints during play (POST /api/tables/{id}/hint).
//
// The server computes the analysis once, in its bot workers, with forsale.bots.analysis; until it
// is ready it answers 202 "pending" and this panel asks again. The chart of each seat's chance of
// winning is public; the costliest decisions are the viewing seat's own (its token). The chart is
// an SVG with a title and a description, a dash pattern and a marker shape per seat (colour is
// never the only carrier), and the same numbers as a table for screen readers and keyboards.
import { h, k } from "./format.js";
import { has, t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const DASHES = ["", "8 4", "2 3", "10 3 2 3", "5 5", "1 6"];
const MARKERS = ["circle", "square", "triangle", "diamond", "cross", "star"];
const COLOURS = ["#1f6fb2", "#b2461f", "#2e7d32", "#7b3fa0", "#8a6d00", "#00838f"];
const POLL_MS = 1000;

function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) if (value !== null && value !== undefined) el.setAttribute(key, value);
  for (const child of children) if (child) el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return el;
}

function percent(chance) {
  return t("analysis.percent", { n: Math.round(chance * 100) });
}

/** An action of the analysis (`{"pass": true}`, `{"bid": 4}`, `{"sell": 17}`) in the page's words. */
export function actionText(action) {
  if (action.bid !== undefined) return t("analysis.action.bid", { amount: k(action.bid) });
  if (action.sell !== undefined) return t("analysis.action.sell", { house: action.sell });
  return t("analysis.action.pass");
}

function marker(kind, x, y, colour) {
  const r = 4;
  const common = { fill: colour, stroke: colour, "aria-hidden": "true" };
  if (kind === "circle") return s("circle", { cx: x, cy: y, r, ...common });
  if (kind === "square") return s("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, ...common });
  if (kind === "triangle") return s("polygon", { points: `${x},${y - r - 1} ${x - r - 1},${y + r} ${x + r + 1},${y + r}`, ...common });
  if (kind === "diamond") return s("polygon", { points: `${x},${y - r - 1} ${x + r + 1},${y} ${x},${y + r + 1} ${x - r - 1},${y}`, ...common });
  if (kind === "cross") return s("path", { d: `M${x - r},${y - r}L${x + r},${y + r}M${x - r},${y + r}L${x + r},${y - r}`, "stroke-width": 2, ...common, fill: "none" });
  return s("polygon", { points: [0, 1, 2, 3, 4].map((i) => { const a = -Math.PI / 2 + (i * 4 * Math.PI) / 5; return `${x + r * 1.3 * Math.cos(a)},${y + r * 1.3 * Math.sin(a)}`; }).join(" "), ...common });
}

/**
 * The rounds of a game as spans of its moves (record form, docs/record-format.md): an auction ends at its
 * (n-1)th pass, and each `sell` move is a whole sale round. Move i is the chart's step from i to i + 1.
 */
export function roundSpans(moves, n) {
  const spans = [];
  let passes = 0;
  let auctions = 0;
  let sales = 0;
  moves.forEach((mv, i) => {
    if (mv && mv.sell) {
      spans.push({ phase: "sale", round: sales++, from: i, to: i + 1 });
      return;
    }
    let span = spans[spans.length - 1];
    if (!span || span.phase !== "auction" || span.closed) {
      span = { phase: "auction", round: auctions++, from: i, to: i + 1 };
      spans.push(span);
    }
    span.to = i + 1;
    if (mv && mv.pass && ++passes === n - 1) {
      span.closed = true;
      passes = 0;
    }
  });
  return spans;
}

/**
 * The chart of every seat's chance of winning after each move, with its legend and its table. With the game's
 * `moves`, the x-axis marks its rounds (A1, A2 … S1 … as the replay's round buttons do, the sales shaded), so a
 * reader sees in which auction or sale a chance turned; without them it says only "moves".
 */
export function chanceChart(chances, names, moves = null) {
  // A phone draws the chart at about 314 px: a 400-unit chart keeps its labels readable there (css: 14 units, about
  // 11 px), where a 640-unit one had them at half size, or cut at its edges once set larger.
  const narrow = typeof matchMedia === "function" && matchMedia("(max-width: 640px)").matches;
  const W = narrow ? 400 : 640, H = narrow ? 220 : 260, L = 60, R = 16, T = 12, B = 30; // L: room for "100 %"
  const steps = Math.max(1, chances.length - 1);
  const x = (i) => L + ((W - L - R) * i) / steps;
  const y = (c) => T + (H - T - B) * (1 - c);
  const every = Math.max(1, Math.round(steps / 12));
  const titleId = "chance-chart-title", descId = "chance-chart-desc";
  const final = chances[chances.length - 1] || [];
  const svg = s(
    "svg",
    { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": `${titleId} ${descId}`, id: "chance-chart", class: "chance-chart" },
    s("title", { id: titleId }, t("analysis.chartTitle")),
    s("desc", { id: descId }, t("analysis.chartDesc", { moves: steps, end: names.map((n, seat) => `${n} ${percent(final[seat] || 0)}`).join(", ") })),
  );
  for (const c of [0, 0.25, 0.5, 0.75, 1]) {
    svg.append(s("line", { x1: L, x2: W - R, y1: y(c), y2: y(c), class: "grid", stroke: "currentColor", "stroke-opacity": c === 0 ? 0.6 : 0.15 }));
    svg.append(s("text", { x: L - 6, y: y(c) + 4, "text-anchor": "end", "font-size": 11, fill: "currentColor" }, percent(c)));
  }
  const spans = moves && moves.length === steps ? roundSpans(moves, names.length) : [];
  if (!spans.length) {
    svg.append(s("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", "font-size": 11, fill: "currentColor" }, t("analysis.axisMoves")));
  }
  const sales = spans.filter((sp) => sp.phase === "sale");
  if (sales.length) {
    const from = x(sales[0].from), to = x(sales[sales.length - 1].to);
    svg.append(s("rect", { x: from, y: T, width: to - from, height: H - T - B, fill: "currentColor", "fill-opacity": 0.06, class: "sale-band" }));
  }
  const axisMark = (label, title, cx) =>
    s("text", { x: cx, y: H - 8, "text-anchor": "middle", "font-size": 11, fill: "currentColor", class: "round-mark" }, s("title", {}, title), label);
  for (const sp of spans) {
    if (sp.from > 0) svg.append(s("line", { x1: x(sp.from), x2: x(sp.from), y1: T, y2: H - B + 4, stroke: "currentColor", "stroke-opacity": sp.phase === "sale" && sp.round > 0 ? 0.1 : 0.3 }));
  }
  // Marks from left to right, each whole inside the chart and clear of the last one drawn: two short auctions
  // side by side ("A7A8") keep the first mark; the tick lines still show both rounds. Width: about 0.62 em a letter.
  const em = narrow ? 14 : 11; // the labels' size in units (css sets 14 on a phone)
  let lastRight = -Infinity;
  const mark = (label, title, centre) => {
    const half = (0.62 * em * label.length) / 2;
    const cx = Math.min(Math.max(centre, half), W - half);
    if (cx - half < lastRight + 4) return;
    lastRight = cx + half;
    svg.append(axisMark(label, title, cx));
  };
  // A round's mark where it has room (about 22 units); the sale rounds, one move each, share one mark otherwise.
  const roomy = (sp) => x(sp.to) - x(sp.from) >= 22;
  for (const sp of spans.filter((sp) => sp.phase === "auction" || sales.every(roomy))) {
    mark(t(`replay.mark.${sp.phase}`, { round: sp.round + 1 }), t(`replay.mark.${sp.phase}Title`, { round: sp.round + 1 }), (x(sp.from) + x(sp.to)) / 2);
  }
  if (sales.length && !sales.every(roomy)) {
    const range = `1–${sales.length}`;
    mark(t("replay.mark.sale", { round: range }), t("replay.mark.saleTitle", { round: range }), (x(sales[0].from) + x(sales[sales.length - 1].to)) / 2);
  }
  names.forEach((_, seat) => {
    const colour = COLOURS[seat % COLOURS.length];
    const points = chances.map((p, i) => `${x(i).toFixed(1)},${y(p[seat]).toFixed(1)}`).join(" ");
    const g = s("g", { class: "seat-line", "data-seat": seat });
    g.append(s("polyline", { points, fill: "none", stroke: colour, "stroke-width": 2, "stroke-dasharray": DASHES[seat % DASHES.length] || null }));
    chances.forEach((p, i) => {
      if (i % every === 0 || i === steps) g.append(marker(MARKERS[seat % MARKERS.length], x(i), y(p[seat]), colour));
    });
    svg.append(g);
  });
  const legend = h(
    "ul.chart-legend",
    { "aria-label": t("analysis.legend") },
    names.map((name, seat) => {
      const colour = COLOURS[seat % COLOURS.length];
      const sample = s("svg", { width: 36, height: 12, viewBox: "0 0 36 12", "aria-hidden": "true" },
        s("line", { x1: 0, x2: 36, y1: 6, y2: 6, stroke: colour, "stroke-width": 2, "stroke-dasharray": DASHES[seat % DASHES.length] || null }),
        marker(MARKERS[seat % MARKERS.length], 18, 6, colour));
      return h("li", null, sample, " ", name);
    }),
  );
  const table = h(
    "table.chance-table",
    { id: "chance-table" },
    h("caption", null, t("analysis.tableCaption")),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, t("analysis.move")), names.map((n) => h("th", { scope: "col" }, n)))),
    h("tbody", null, chances.map((p, i) => h("tr", { dataset: { step: i } }, h("th", { scope: "row" }, i === 0 ? t("analysis.deal") : String(i)), p.map((c) => h("td", { dataset: { chance: String(c) } }, percent(c)))))),
  );
  // The table scrolls sideways in its own box: six seats' columns are wider than a phone, and the page must not be.
  return h("div.chart-block", null, svg, legend, h("details.chart-data", null, h("summary", null, t("analysis.showTable")), h("div.chance-table-box", null, table)));
}

function roundName(d) {
  return t(d.phase === "auction" ? "analysis.roundAuction" : "analysis.roundSale", { round: d.round + 1 });
}

/**
 * The replay of table `tableId` at the moment of `seat`'s decision: the table as it was before move `move` (a step
 * of the replay is the state after that many moves), so the reader sees what the seat saw when it chose; the
 * replay marks the seat and the move it made.
 */
export function replayHref(tableId, move, seat) {
  return `#/replay/${encodeURIComponent(tableId)}?step=${move}&seat=${seat}`;
}

/**
 * The viewing seat's costliest decisions, each with the better move and what it would have changed, and a link to
 * the replay at that moment (the replay itself moves there in place: replay.js follows links with `data-step`).
 */
export function mistakesList(all, tableId) {
  // A decision that cost no point (rounded) is not a mistake: "+0 points" listed as costly confused people.
  const costliest = all.filter((d) => Math.round(d.loss * 100) > 0);
  if (!costliest.length) return h("p.empty", { id: "mistakes-none" }, t("analysis.noMistakes"));
  return h(
    "ol.mistakes",
    { id: "mistakes" },
    costliest.map((d) => {
      const textId = `mistake-${d.move}`;
      return h(
        "li",
        { dataset: { move: d.move, loss: String(d.loss) } },
        h(
          "span",
          { id: textId },
          t("analysis.mistake", {
            when: roundName(d),
            played: actionText(d.chosen),
            chance: percent(d.chosen_chance),
            better: actionText(d.best),
            betterChance: percent(d.best_chance),
            gain: t("analysis.points", { count: Math.round(d.loss * 100) }), // "+1 point", "+2 points": plural-aware
          }),
        ),
        " ",
        // Every item's link has the same words: the decision it is for is its description.
        h("a.replay-move", { href: replayHref(tableId, d.move, d.seat), dataset: { step: d.move, seat: d.seat }, "aria-describedby": textId }, t("analysis.seeMove")),
      );
    }),
  );
}

/**
 * The analysis panel of a finished game: asks the server (again while it is pending) and draws the
 * chart and, for a seated viewer (`token`), the costliest decisions. `names`: the seats' names; `invite`: the
 * invitation code that admits a spectator to a private table (a seat's token admits its player).
 */
let lastPanel = null; // the end screen redraws: one panel per table, viewer and names, fetched once

export function analysisPanel(tableId, token, names, invite = null, moves = null) {
  // The names are part of the key: the end screen says "You" where its replay names the seat (the legend too).
  const key = names.join("\u0000");
  if (lastPanel && lastPanel.tableId === tableId && lastPanel.token === token && lastPanel.key === key) return lastPanel.el;
  const status = h("p.analysis-status", { id: "analysis-status", role: "status" }, t("analysis.pending"));
  const panel = h("section.analysis.panel", { id: "analysis", "aria-labelledby": "analysis-title" }, h("h3", { id: "analysis-title" }, t("analysis.title")), status);
  const query = token ? `?token=${encodeURIComponent(token)}` : invite ? `?invite=${encodeURIComponent(invite)}` : "";
  let tries = 0;
  async function ask() {
    if (tries > 0 && !panel.isConnected) return; // the page moved on
    tries += 1;
    let response;
    try {
      response = await fetch(`/api/tables/${encodeURIComponent(tableId)}/analysis${query}`);
    } catch {
      setTimeout(ask, POLL_MS * 2);
      return;
    }
    if (response.status === 202) {
      setTimeout(ask, POLL_MS);
      return;
    }
    const data = await response.json().catch(() => null);
    if (!response.ok || !data) {
      status.textContent = t("analysis.failed", { reason: (data && data.error && data.error.message) || response.status });
      return;
    }
    status.textContent = t("analysis.ready", { budget: data.budget });
    panel.dataset.ready = "true";
    panel.append(chanceChart(data.chances, names, moves));
    if (data.seat !== null && data.seat !== undefined) {
      panel.append(h("h4", null, t("analysis.yourMistakes")), mistakesList(data.costliest, tableId));
    }
  }
  ask();
  lastPanel = { tableId, token, key, el: panel };
  return panel;
}

/** The creator's switch that allows or forbids hints at the table (POST /api/tables/{id}/settings). */
export function hintsSwitch(tableId, creatorToken, allowed, changed) {
  const box = h("input", { type: "checkbox", id: "hints-allowed", checked: allowed });
  box.addEventListener("change", async () => {
    const response = await fetch(`/api/tables/${encodeURIComponent(tableId)}/settings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ creator_token: creatorToken, hints: box.checked }),
    });
    if (response.ok) changed((await response.json()).table);
    else box.checked = !box.checked;
  });
  return h("section.panel.hints-setting", null, h("label.toggle", { for: "hints-allowed" }, box, t("settings.hints")));
}

const HINT_KEYS = { only: "hint.only", pass_close: "hint.passClose", better: "hint.line", mixed: "hint.mixed", close: "hint.close" };

/**
 * A hint (forsale.bots.analysis.hint: hard's move, a reason code and the numbers behind it) in one line
 * of the page's language: the server's English `line` is never shown.
 */
export function hintLine(hint) {
  const params = { action: actionText(hint.action), chance: percent(hint.chance), low: hint.low, high: hint.high };
  if (hint.alternative) Object.assign(params, { other: actionText(hint.alternative), otherChance: percent(hint.alternative_chance) });
  return t(HINT_KEYS[hint.reason] || "hint.line", params);
}

let lastHint = null; // the table redraws often: one button per table, seat and decision, its answer kept

/**
 * The Hint button of a seat with a decision to make, at a table that allows hints. `decision` names
 * the decision (live.js's decisionKey): the answer is kept while the table redraws for this one
 * decision and is gone at the next, so a hint never stays beside a move it was not about.
 */
export function hintButton(tableId, token, decision) {
  if (lastHint && lastHint.tableId === tableId && lastHint.token === token && lastHint.decision === decision) return lastHint.el;
  if (lastHint) clearTimeout(lastHint.timer);
  const out = h("span.hint-line", { id: "hint-line", role: "status", dataset: { decision } });
  const button = h("button.btn.quiet", { type: "button", id: "hint", title: t("hint.title") }, t("hint.button"));
  const mine = { tableId, token, decision, el: null, timer: null, answer: "" }; // answer: this decision's hint, once given
  button.addEventListener("click", async () => {
    button.disabled = true;
    clearTimeout(mine.timer);
    out.textContent = t("hint.thinking");
    delete out.dataset.refused;
    try {
      const response = await fetch(`/api/tables/${encodeURIComponent(tableId)}/hint`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token }),
      });
      const data = await response.json().catch(() => null);
      if (!response.ok) {
        // A refusal in the page's words, by its code (the server's English sentence is for other
        // clients); one that says when to try again ("rate_limited": Retry-After) goes away then, and
        // the hint this decision already had comes back (asking twice lost it to the refusal).
        const code = data && data.error && data.error.code;
        out.dataset.refused = code || String(response.status);
        out.textContent = code && has(`error.${code}`) ? t(`error.${code}`) : t("table.refused");
        const after = Number(response.headers.get("retry-after"));
        if (after > 0) {
          mine.timer = setTimeout(() => {
            if (out.dataset.refused) {
              out.textContent = mine.answer;
              delete out.dataset.refused;
            }
          }, after * 1000);
        }
      } else {
        const hint = data.hint;
        out.dataset.action = JSON.stringify(hint.action);
        out.dataset.reason = hint.reason;
        out.textContent = mine.answer = hintLine(hint);
      }
    } finally {
      button.disabled = false;
    }
  });
  mine.el = h("span.hint", null, button, " ", out);
  lastHint = mine;
  return mine.el;
}
