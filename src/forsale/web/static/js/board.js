// @ts-check
// The table drawn from a "scene": the same drawing for a live game (from a
// seat's view) and for the replay viewer (from the public fold of a record).
//
// scene = { n, names, badges[], me (seat|null), phase, round, rounds, coins[],
//   hands[], cheques[], table[], roundTable[], taken[{seat,house,paid}],
//   bids[], active[], high, turn, committed[], myCommit, lastSale, lastTake,
//   reveal (bool: animate lastSale), showAll (bool: every seat's coins and hand),
//   offline[] }
import { backCard, bidChip, chequeCard, coinStack, houseCard } from "./cards.js";
import { h, k, money } from "./format.js";
import { t } from "./i18n.js";

/**
 * A scene from a view (`View.to_json()`) and the fold's state after the same moves.
 * @param {any} v
 * @param {{names: string[], badges?: string[], offline?: boolean[], me: number | null, foldState: any,
 *          reveal?: boolean, showAll?: boolean}} parts
 */
export function sceneFromView(v, { names, badges, offline, me, foldState, reveal, showAll }) {
  return {
    n: v.players,
    names,
    badges: badges || names.map(() => ""),
    offline: offline || names.map(() => false),
    me,
    phase: v.phase,
    round: v.round,
    rounds: v.rounds,
    coins: v.coins,
    hands: v.hands,
    cheques: v.cheques_won,
    table: v.table,
    roundTable: v.phase === "auction" ? v.auction_tables[v.round] : v.table,
    taken: v.phase === "auction" ? v.takes.filter((x) => x.round === v.round).map((x) => ({ seat: x.seat, house: x.house, paid: x.paid })) : [],
    bids: v.bids,
    active: v.active,
    high: v.high,
    turn: v.turn,
    committed: v.committed,
    myCommit: v.my_commit,
    lastSale: foldState ? foldState.lastSale : null,
    lastTake: foldState ? foldState.lastTake : null,
    reveal: !!reveal,
    showAll: !!showAll,
    scores: v.scores,
  };
}

/** "Ann (you)" for your own seat, but not "You (you)". */
function myLabel(scene, s) {
  const name = scene.names[s];
  return s === scene.me && !isYou(name) ? t("seat.mine", { name }) : name;
}

/** Whether a seat's name already says "you" (a player who typed it as their name). */
function isYou(name) {
  return name.toLowerCase() === t("seat.you").toLowerCase() || name.toLowerCase() === t("seat.badge.you").toLowerCase();
}

export function seatName(scene, seat) {
  return seat === scene.me ? t("seat.you") : scene.names[seat];
}

function seatStatus(scene, s) {
  if (scene.phase === "auction") {
    if (!scene.active[s]) {
      const x = scene.taken.find((y) => y.seat === s);
      return h("span.took", null, x ? (x.paid ? t("status.passedTookFor", { house: x.house, count: x.house, paid: k(x.paid) }) : t("status.passedTook", { house: x.house, count: x.house })) : t("status.passed"));
    }
    const parts = [];
    if (scene.bids[s] > 0) parts.push(bidChip(scene.bids[s]));
    if (scene.turn === s) parts.push(s === scene.me ? h("strong", null, t("status.yourTurn")) : h("span.waiting-dots", null, t("status.toBid")));
    else if (scene.bids[s] === 0) parts.push(h("span", null, t("status.noBid")));
    else if (scene.bids[s] === scene.high) parts.push(h("span", null, t("status.highest")));
    return parts;
  }
  if (scene.phase === "sale") {
    if (scene.replay) return h("span", null, t("status.leftToSell", { count: scene.hands[s].length }));
    if (scene.committed && scene.committed[s]) return h("span", null, t("status.chosen"));
    return h("span.waiting-dots", null, s === scene.me ? t("status.chooseHouse") : t("status.choosing"));
  }
  return h("span", null, scene.scores ? t("status.total", { total: k(scene.scores[s]) }) : "");
}

function seatPanel(scene, s) {
  const classes = ["seat"];
  if (scene.phase === "auction" && scene.turn === s) classes.push("turn");
  if (scene.phase === "sale" && !scene.replay && scene.committed && !scene.committed[s]) classes.push("turn");
  if (s === scene.me) classes.push("me");
  if (scene.phase === "auction" && !scene.active[s]) classes.push("passed");
  if (scene.offline && scene.offline[s]) classes.push("offline");
  const known = [];
  const hand = scene.hands[s];
  if (scene.showAll || s === scene.me) {
    known.push(h("div.known", null, t("seat.coins", { money: money(scene.coins[s]) })));
    // Your own hand is drawn large in your corner; here it would only repeat it.
    if (hand.length && s !== scene.me) known.push(h("div.mini", { role: "group", "aria-label": t("seat.housesOf", { name: scene.names[s] }) }, hand.map((x) => houseCard(x, { small: true }))));
  }
  if (!(scene.showAll && s !== scene.me)) known.push(h("div.known", null, t("seat.inHand", { count: hand.length })));
  if (scene.cheques[s].length) {
    known.push(
      scene.showAll || s === scene.me || scene.phase === "over"
        ? h("div.known", null, t("seat.cheques", { list: scene.cheques[s].map((c) => k(c)).join(" ") }))
        : h("div.known", null, t("seat.chequeCount", { count: scene.cheques[s].length })),
    );
  }
  return h(
    `div.${classes.join(".")}`,
    { role: "group", dataset: { seat: s }, "aria-label": t("seat.label", { seat: s + 1, name: scene.names[s] }) },
    // The name whole (it wraps; the title holds it if it is ever clamped), "you" as a badge beside it.
    h(
      "div.name",
      { dataset: { offline: t("seat.offline") } },
      h("span.nm", { title: scene.names[s] }, scene.names[s]),
      s === scene.me && !isYou(scene.names[s]) ? h("span.badge.you", null, t("seat.badge.you")) : null,
      scene.badges[s] ? h("span.badge", null, scene.badges[s]) : null,
    ),
    h("div.status", { "aria-live": "off" }, seatStatus(scene, s)),
    known,
  );
}

export function seatsRow(scene) {
  const order = [];
  for (let i = 0; i < scene.n; i++) order.push(i);
  return h("section.seats", { "aria-label": t("felt.players") }, order.map((s) => seatPanel(scene, s)));
}

/** The reveal of a sale round: each seat's house flips over, then its cheque slides in. */
export function revealRow(scene, sales, animate) {
  const row = h("div.reveal", { role: "group", "aria-label": t("felt.justSold") });
  sales.forEach((x, i) => {
    const pair = h(
      "div.pair",
      { style: `--i:${animate ? i : 0}` },
      h("span.who", { title: scene.names[x.seat] }, seatName(scene, x.seat)),
      h("div.flip", null, houseCard(x.house, { small: true })),
      chequeCard(x.cheque, { small: true }),
    );
    if (!animate) pair.classList.add("still");
    row.append(pair);
  });
  return row;
}

export function felt(scene, extra) {
  const el = h("section.felt", { "aria-label": t("felt.table") });
  if (scene.phase === "auction") {
    const left = new Set(scene.table);
    const takenBy = new Map(scene.taken.map((x) => [x.house, x]));
    el.append(
      h("div.headline", null, t("felt.auction", { round: scene.round + 1, rounds: scene.rounds }), " · ", h("strong", null, t("felt.housesForSale"))),
      h(
        "div.offer",
        { role: "group", "aria-label": t("felt.housesOnOffer") },
        scene.roundTable.map((house, i) => {
          const took = takenBy.get(house);
          const slot = h("div.slot", { style: `--i:${i}` }, houseCard(house), h("span.who", null, took ? seatName(scene, took.seat) : ""));
          if (!left.has(house)) slot.classList.add("gone");
          return slot;
        }),
      ),
    );
    const holder = scene.high > 0 ? scene.bids.findIndex((b, s) => b === scene.high && scene.active[s]) : -1;
    el.append(
      h(
        "div.sub",
        null, // read out by the page's one announcer (#announce), not as a live region drawn anew
        scene.high > 0 ? [t("felt.highest"), " ", bidChip(scene.high), " ", t("felt.highestBy", { name: seatName(scene, holder) })] : t("felt.noBid"),
        scene.turn !== null && scene.turn !== undefined
          ? [" · ", scene.turn === scene.me ? t("felt.toBid.you") : t("felt.toBid.other", { name: seatName(scene, scene.turn) })]
          : "",
      ),
    );
    if (scene.lastSale) el.append(revealRow(scene, scene.lastSale, scene.reveal));
  } else if (scene.phase === "sale") {
    el.append(
      h("div.headline", null, t("felt.sale", { round: scene.round + 1, rounds: scene.rounds }), " · ", h("strong", null, t("felt.chequesOnTable"))),
      h("div.offer", { role: "group", "aria-label": t("felt.chequesOnOffer") }, scene.table.map((c) => h("div.slot", null, chequeCard(c)))),
    );
    const waiting = [];
    for (let s = 0; s < scene.n; s++) if (!scene.committed[s]) waiting.push(s);
    if (scene.committed && !scene.replay) {
      const chosen = [];
      for (let s = 0; s < scene.n; s++) {
        chosen.push(
          h("div.pair", null, h("span.who", { title: scene.names[s] }, seatName(scene, s)),
            scene.committed[s] ? (s === scene.me && scene.myCommit ? houseCard(scene.myCommit, { small: true }) : backCard({ small: true, label: t("felt.hasChosen", { name: scene.names[s] }) })) : h("div.card.small.placeholder", { role: "img", "aria-label": t("felt.stillChoosing") })),
        );
      }
      el.append(h("div.reveal.chosen", { role: "group", "aria-label": t("felt.choicesSoFar") }, chosen));
    }
    if (scene.lastSale) {
      el.append(h("div.sub", null, t("felt.lastSale")), revealRow(scene, scene.lastSale, scene.reveal));
    } else if (scene.lastTake) {
      el.append(h("div.sub", null, lastTakeText(scene)));
    }
  } else {
    if (scene.lastSale) el.append(h("div.sub", null, t("felt.theLastSale")), revealRow(scene, scene.lastSale, scene.reveal));
  }
  if (scene.phase === "auction" && scene.lastTake && !scene.taken.length) {
    el.append(h("div.sub", null, lastTakeText(scene)));
  }
  if (extra) el.append(extra);
  return el;
}

function lastTakeText(scene) {
  return scene.lastTake
    .map((x) => {
      const you = x.seat === scene.me;
      const params = { name: seatName(scene, x.seat), house: x.house, count: x.house, paid: k(x.paid) };
      return x.paid ? t(you ? "felt.took.youFor" : "felt.took.otherFor", params) : t(you ? "felt.took.you" : "felt.took.other", params);
    })
    .join(t("list.semicolon")); // French puts a narrow no-break space before ";"
}

/** The results of a finished game: a table of scores and the tie-break in words. */
export function resultsTable(scene, winners) {
  const rows = [];
  const order = scene.scores.map((_, s) => s).sort((a, b) => scene.scores[b] - scene.scores[a] || scene.coins[b] - scene.coins[a]);
  for (const s of order) {
    const cheques = scene.cheques[s].reduce((a, b) => a + b, 0);
    rows.push(
      h(
        `tr${winners.includes(s) ? ".winner" : ""}`,
        { dataset: { seat: s } },
        h("td", null, winners.includes(s) ? h("span.star", { role: "img", "aria-label": t("results.winner") }, "★ ") : "", seatName(scene, s)),
        h("td", null, money(cheques)),
        h("td", null, money(scene.coins[s])),
        h("td.score", null, money(scene.scores[s])),
      ),
    );
  }
  return h(
    "table.results",
    null,
    h("thead", null, h("tr", null, h("th", null, t("results.player")), h("th", null, t("results.cheques")), h("th", null, t("results.coins")), h("th", null, t("results.total")))),
    h("tbody", null, rows),
  );
}

/**
 * Your own corner: coins, hand, cheques won. `handCard(house)` may make the cards choosable.
 * @param {any} scene
 * @param {{handCard?: (house: number) => HTMLElement, actions?: HTMLElement | null, prompt?: HTMLElement | null}} [parts]
 */
export function myArea(scene, { handCard, actions, prompt } = {}) {
  const s = scene.me;
  const hand = scene.hands[s];
  return h(
    "section.me-area",
    { "aria-label": t("me.label") },
    h(
      "div.top",
      null,
      h("h2", null, myLabel(scene, s)),
      coinStack(scene.coins[s]),
    ),
    prompt || null,
    h(
      "div.hand",
      { role: "group", "aria-label": t("me.houses") },
      hand.length ? hand.map((x) => (handCard ? handCard(x) : houseCard(x))) : h("span.empty", null, scene.phase === "auction" && scene.round === 0 ? t("me.housesLater") : t("me.noHouses")),
    ),
    scene.cheques[s].length
      ? h("div.won", { role: "group", "aria-label": t("me.cheques") }, t("me.chequesWon"), " ", scene.cheques[s].map((c) => chequeCard(c, { small: true })))
      : null,
    actions || null,
  );
}
