// @ts-check
// A player's page (#/player/<name>, #/me): ratings, a plot of the rating after each rated game,
// games played and won per player count, the finished games with their replays and records and,
// on one's own page, the games in progress (back into each from any device) and the account's settings.
import { account, accountApi, forget, formDialog, playerHref } from "./account.js";
import { call, seats } from "./api.js";
import { botPanel } from "./bottokens.js";
import { challengePanel } from "./challenge.js";
import { h, RATING_START, shownNames, shownRating, shownTableName } from "./format.js";
import { dateTime, joinList, language, number, t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) el.setAttribute(key, value);
  el.append(...children.filter((c) => c !== null));
  return el;
}

/**
 * The rating after each rated game as a line, on the scale people read (1500 for a newcomer), named for screen
 * readers. The line starts where a newcomer starts, so that one game is a step from 1500 rather than a lone dot;
 * the axis marks 1500, and the ticks are 1500 and the line's own low and high, rounded outwards to tens.
 */
function ratingPlot(points, label) {
  const width = 480;
  const height = 160;
  const pad = 36;
  const values = [RATING_START, ...points.map(shownRating)];
  const low = Math.floor((Math.min(...values) - 5) / 10) * 10;
  const high = Math.ceil((Math.max(...values) + 5) / 10) * 10;
  const x = (i) => pad + (i * (width - 2 * pad)) / (values.length - 1);
  const y = (v) => height - 16 - ((v - low) * (height - 32)) / (high - low);
  const summary = t("profile.plotSummary", { count: points.length, first: String(values[1]), last: String(values[values.length - 1]) });
  const path = values.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  return svg(
    "svg",
    { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `${label}: ${summary}`, class: "rating-plot", id: "rating-plot" },
    svg("title", {}, `${label}: ${summary}`),
    svg("line", { x1: pad, y1: y(RATING_START), x2: width - 8, y2: y(RATING_START), class: "axis" }),
    // 1500's tick always; the low and high ones where they do not collide with it.
    ...[RATING_START, high, low]
      .filter((v, i) => i === 0 || Math.abs(y(v) - y(RATING_START)) > 16)
      .map((v) => svg("text", { x: 2, y: y(v) + 4, class: "tick" }, String(v))),
    svg("path", { d: path, class: "line" }),
    ...values.map((v, i) => svg("circle", { cx: x(i), cy: y(v), r: i ? 3 : 2, class: i ? "dot" : "dot start" })),
  );
}

function countLabel(n) {
  return n === "0" ? t("board.allCounts") : t("board.count", { count: Number(n) });
}

function ratingsTable(ratings) {
  const scopes = Object.keys(ratings).sort((a, b) => Number(a) - Number(b));
  return h(
    "table.data",
    { id: "profile-ratings" },
    h("caption", null, t("profile.ratings")),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, t("board.players")), h("th", { scope: "col" }, t("board.rating")), h("th", { scope: "col" }, t("board.games")), h("th", { scope: "col" }, t("board.wins")))),
    h("tbody", null, scopes.map((n) => h("tr", { dataset: { players: n } }, h("th", { scope: "row" }, countLabel(n)), h("td.rating", null, String(shownRating(ratings[n]))), h("td", null, number(ratings[n].games)), h("td", null, number(ratings[n].wins))))),
  );
}

function countsTable(byPlayers) {
  const rows = Object.entries(byPlayers);
  if (!rows.length) return h("p.hint", null, t("profile.noGames"));
  return h(
    "table.data",
    { id: "profile-counts" },
    h("caption", null, t("profile.byPlayers")),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, t("board.players")), h("th", { scope: "col" }, t("profile.played")), h("th", { scope: "col" }, t("board.wins")))),
    h("tbody", null, rows.map(([n, c]) => h("tr", null, h("th", { scope: "row" }, t("board.count", { count: Number(n) })), h("td", null, number(c.played)), h("td", null, number(c.won))))),
  );
}

function gameItem(g) {
  const names = shownNames(g);
  const won = joinList((g.winners || []).map((s) => names[s] || t("seat.number", { seat: s + 1 })));
  const when = g.finished_at ? dateTime(g.finished_at) : "";
  return h(
    "li",
    { dataset: { table: g.id } },
    h("span.what", null, `${shownTableName(g.name, g.players)}${when ? ` · ${when}` : ""}${g.rated ? ` · ${t("profile.ratedGame")}` : ""}`, h("small", null, `${names.join(", ")} · ${t("lobby.wonBy", { names: won })}`)),
    h("a.btn", { href: g.replay }, t("lobby.replay")),
    h("a.btn.quiet", { href: g.record, download: `forsale-${g.id}.json` }, t("lobby.record")),
  );
}

/** One's own games in progress, each with a way back into its seat from this device. */
async function inProgress(ctx) {
  const list = h("ul.tables", { id: "my-games" }, h("li.empty", null, t("lobby.looking")));
  try {
    const { games } = await accountApi.myGames();
    const going = games.filter((g) => g.status !== "over");
    list.replaceChildren(
      ...(going.length
        ? going.map((g) =>
            h(
              "li",
              { dataset: { table: g.id } },
              h("span.what", null, shownTableName(g.name, g.players), h("small", null, shownNames(g).join(", "))),
              h(
                "button.btn.primary",
                {
                  type: "button",
                  onclick: async () => {
                    try {
                      const res = await accountApi.resume(g.id);
                      seats.put(g.id, { token: res.token, seat: res.seat });
                      location.hash = `#/table/${g.id}`;
                    } catch (e) {
                      ctx.toast(e.message);
                    }
                  },
                },
                t("profile.resume"),
              ),
            ),
          )
        : [h("li.empty", null, t("profile.noneInProgress"))]),
    );
  } catch (e) {
    list.replaceChildren(h("li.empty", null, e.message));
  }
  return h("section.panel", { id: "in-progress" }, h("h2", null, t("profile.inProgress")), list);
}

function settings() {
  const change = h("button.btn", {
    type: "button",
    id: "change-password",
    onclick: () =>
      formDialog({
        id: "password-dialog",
        title: t("account.changePassword"),
        submitLabel: t("account.changePassword"),
        fields: [
          { id: "old-password", label: t("account.oldPassword"), type: "password", autocomplete: "current-password" },
          { id: "new-password", label: t("account.newPassword"), type: "password", autocomplete: "new-password" },
        ],
        submit: (v) => accountApi.changePassword(v["old-password"], v["new-password"]),
      }),
  }, t("account.changePassword"));
  const remove = h("button.btn.danger", {
    type: "button",
    id: "delete-account",
    onclick: () =>
      formDialog({
        id: "delete-dialog",
        title: t("account.deleteTitle"),
        submitLabel: t("account.delete"),
        danger: true,
        fields: [{ id: "delete-password", label: t("account.password"), type: "password", autocomplete: "current-password" }],
        submit: async (v) => {
          await accountApi.deleteAccount(v["delete-password"]);
          forget();
          location.hash = "#/";
        },
      }),
  }, t("account.delete"));
  return h("section.panel", { id: "account-settings" }, h("h2", null, t("account.settings")), emailForm(), h("p.hint", null, t("account.deleteHint")), h("div.row", null, change, remove));
}

/**
 * Where "your turn" emails of games over days go (empty: none); the server shows the address to nobody else.
 * The emails are written in the page's language as it is when the address is saved.
 */
function emailForm() {
  const input = h("input", { type: "email", id: "account-email", autocomplete: "email", maxlength: 254 });
  const said = h("p.hint", { id: "account-email-status", role: "status" });
  // An address is mailed only once confirmed by the link sent to it (forsale.server.people.emails): say where it stands.
  const status = (res) => {
    if (!res.email) return t("account.emailRemoved");
    if (res.email_confirmed) return t("account.emailSaved", { email: res.email });
    return res.confirmation_sent ? t("account.emailSent", { email: res.email }) : t("account.emailUnconfirmed", { email: res.email });
  };
  // The saved address arrives after the form is drawn; what the person has typed meanwhile wins over it
  // (a fast typist's address was wiped by the late answer and an empty one saved).
  let typed = false;
  input.addEventListener("input", () => {
    typed = true;
  });
  accountApi
    .me()
    .then((me) => {
      if (typed) return;
      input.value = me.email || "";
      if (me.email) said.textContent = status(me);
    })
    .catch(() => {});
  return h(
    "form.form",
    {
      id: "email-form",
      onsubmit: async (event) => {
        event.preventDefault();
        said.textContent = "";
        try {
          const res = await call("POST", "/api/me/email", { email: input.value.trim() || null, language: language() });
          said.textContent = status(res);
        } catch (e) {
          said.textContent = e.message;
        }
      },
    },
    h("label", { for: "account-email" }, t("account.email"), input),
    h("p.hint", null, t("account.emailHint")),
    h("div.row", null, h("button.btn", { type: "submit", id: "account-email-save" }, t("account.emailSave"))),
    said,
  );
}

export function showProfile(ctx, rawName) {
  let alive = true;
  let stopChallenge = () => {};
  const root = h("div.profile", { id: "profile" }, h("p", null, t("lobby.looking")));
  ctx.app.replaceChildren(root);
  (async () => {
    let name = rawName;
    if (name === null) {
      const me = await account();
      if (!me) {
        root.replaceChildren(h("section.panel", null, h("h2", null, t("account.myGames")), h("p", null, t("profile.signInFirst"))));
        return;
      }
      name = me.name;
    }
    let player;
    try {
      player = (await accountApi.player(name)).player;
    } catch (e) {
      if (alive) root.replaceChildren(h("section.panel", null, h("h2", null, t("profile.notFound")), h("p", null, e.message)));
      return;
    }
    if (!alive) return;
    const title = player.kind === "bot" ? t("profile.botTitle", { name: player.name }) : player.name;
    ctx.setInfo(title);
    const history = (player.history || {})["0"] || [];
    const parts = [
      h(
        "section.panel",
        { id: "profile-head" },
        h("h2", { id: "profile-name" }, title, player.bot_account ? h("span.badge", { id: "profile-bot-account" }, t("seat.badge.botAccount")) : null),
        // The day of the month picks the article where a language says it by the number ("dall’8", "dal 9").
        player.since ? h("p.hint", null, t("profile.since", { date: dateTime(player.since), count: new Date(player.since * 1000).getDate() })) : null,
        Object.keys(player.ratings || {}).length ? ratingsTable(player.ratings) : h("p.hint", null, t("profile.unrated")),
        history.length ? ratingPlot(history, t("profile.plot")) : null,
        countsTable(player.by_players || {}),
      ),
    ];
    if (player.me) parts.push(await inProgress(ctx));
    // A bot account plays through the Bot API: a signed-in person may challenge it from here (challenge.js).
    if (player.bot_account && !player.me && (await account())) {
      const challenge = challengePanel(player.name, ctx.toast);
      stopChallenge = challenge.stop;
      parts.push(challenge.panel);
    }
    parts.push(
      h(
        "section.panel",
        { id: "profile-games" },
        h("h2", null, t("profile.games")),
        h("ul.tables", null, ...(player.games.length ? player.games.map(gameItem) : [h("li.empty", null, t("lobby.noGames"))])),
      ),
    );
    if (player.me) parts.push(botPanel(Boolean(player.bot_account), () => showProfile(ctx, rawName)), settings());
    if (alive) root.replaceChildren(...parts);
  })();
  return () => {
    alive = false;
    stopChallenge();
  };
}
