// @ts-check
// The leaderboard (#/leaderboard?players=N&kind=K): people and bots by rating (mu - 3 sigma),
// over every game or over the games of one player count; each name leads to that player's page.
import { accountApi, playerHref } from "./account.js";
import { h, shownRating } from "./format.js";
import { number, t } from "./i18n.js";

const COUNTS = ["0", "2", "3", "4", "5", "6"];
const KINDS = ["all", "people", "bots"];

export function showLeaderboard(ctx, params) {
  let alive = true;
  const players = COUNTS.includes(params.get("players")) ? params.get("players") : "0";
  const kind = KINDS.includes(params.get("kind")) ? params.get("kind") : "all";
  const go = () => (location.hash = `#/leaderboard?players=${countSel.value}&kind=${kindSel.value}`);
  const countSel = h("select", { id: "board-players", onchange: go }, COUNTS.map((n) => h("option", { value: n, selected: n === players }, n === "0" ? t("board.allCounts") : t("board.count", { count: Number(n) }))));
  const kindSel = h("select", { id: "board-kind", onchange: go }, KINDS.map((k) => h("option", { value: k, selected: k === kind }, t(`board.kind.${k}`))));
  const body = h("tbody", null, h("tr", null, h("td", { colspan: 5 }, t("lobby.looking"))));
  const table = h(
    "table.data",
    { id: "leaderboard" },
    h("caption", null, t("board.caption")),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("board.player")), h("th", { scope: "col" }, t("board.rating")), h("th", { scope: "col" }, t("board.games")), h("th", { scope: "col" }, t("board.wins")))),
    body,
  );
  ctx.app.replaceChildren(
    h(
      "section.panel.leaderboard.form",
      null,
      h("h2", null, t("account.leaderboard")),
      h("p.hint", null, t("board.hint")),
      h("div.row", null, h("label", { for: "board-players" }, t("board.players"), countSel), h("label", { for: "board-kind" }, t("board.show"), kindSel)),
      table,
    ),
  );
  ctx.setInfo(t("account.leaderboard"));
  accountApi
    .leaderboard(players, kind)
    .then(({ ratings }) => {
      if (!alive) return;
      body.replaceChildren(
        ...(ratings.length
          ? ratings.map((r) =>
              h(
                "tr",
                { dataset: { kind: r.kind, name: r.name } },
                h("td", null, number(r.rank)),
                h(
                  "th",
                  { scope: "row" },
                  h("a", { href: playerHref(r.name, r.kind === "bot") }, r.kind === "bot" ? t("profile.botTitle", { name: r.name }) : r.name),
                  r.bot_account ? h("span.badge", null, t("seat.badge.botAccount")) : null, // a program on the people's scale
                ),
                h("td.rating", null, String(shownRating(r))),
                h("td", null, number(r.games)),
                h("td", null, number(r.wins)),
              ),
            )
          : [h("tr", null, h("td", { colspan: 5 }, t("board.empty")))]),
      );
    })
    .catch((e) => body.replaceChildren(h("tr", null, h("td", { colspan: 5 }, e.message))));
  return () => {
    alive = false;
  };
}
