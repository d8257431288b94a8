// @ts-check
// Tournaments (docs/tournaments.md): #/tournaments lists the upcoming, running and finished ones and, for a signed-in
// player, the form that creates one; #/tournaments/<id> is one tournament: its settings, live standings, every round's
// tables with links to their games (the game while it is played, its replay once over), Join/Withdraw, the creator's
// Start/Cancel, and "Go to your table" while the player has a seat at a game under way. The page reads the
// tournament again every POLL_EVERY ms (the server runs the rounds by itself), and a player in it keeps a long poll
// of their notices open, so that a new round's `seated` notice shows their table at once.
import { account } from "./account.js";
import { call } from "./api.js";
import { h } from "./format.js";
import { dateTime, money, number, t } from "./i18n.js";

const POLL_EVERY = 3000;
/** Seconds a notices poll waits on the server before it answers empty and the page asks again. */
const NOTICE_WAIT = 20;
const LEVELS = ["", "random", "easy", "medium", "hard"];

export const tournamentApi = {
  list: () => call("GET", "/api/tournaments"),
  get: (id) => call("GET", `/api/tournaments/${encodeURIComponent(id)}`),
  create: (body) => call("POST", "/api/tournaments", body),
  act: (id, what) => call("POST", `/api/tournaments/${encodeURIComponent(id)}/${what}`, {}),
};

/** `GET /api/me/notices` with an AbortSignal (call() takes none): the long poll ends when the screen is left. */
async function fetchNotices(after, wait, signal) {
  const response = await fetch(`/api/me/notices?after=${Number(after)}&wait=${Number(wait) || 0}`, { signal });
  if (!response.ok) throw new Error(`${response.status}`);
  return response.json();
}

/** Points as a number of the locale: 2.5 for a shared place. */
function points(p) {
  return p === null || p === undefined ? "–" : number(p);
}

/** The screen for `#/tournaments` (id null) or `#/tournaments/<id>`; returns its cleanup. */
export function showTournaments(ctx, id) {
  return id ? showOne(ctx, id) : showList(ctx);
}

function summaryLine(tour) {
  const kind = tour.kind === "arena" ? t("tournament.arenaOf", { count: tour.minutes }) : t("tournament.swissOf", { count: tour.rounds });
  return `${kind} · ${t("tournament.perTable", { count: tour.players })} · ${t("tournament.entries", { count: tour.entries })}${tour.rated ? ` · ${t("account.rated")}` : ""}`;
}

function showList(ctx) {
  let alive = true;
  const lists = {};
  const sections = ["upcoming", "running", "finished"].map((key) => {
    lists[key] = h("ul.tournament-list", { id: `tournaments-${key}` });
    return h("section", { "aria-labelledby": `tournaments-${key}-title` }, h("h3", { id: `tournaments-${key}-title` }, t(`tournament.${key}`)), lists[key]);
  });
  const formBox = h("div", { id: "tournament-create-box" });
  ctx.app.replaceChildren(h("section.panel.tournaments", null, h("h2", null, t("tournament.title")), h("p.hint", null, t("tournament.hint")), ...sections), formBox);
  ctx.setInfo(t("tournament.title"));

  async function refresh() {
    try {
      const all = await tournamentApi.list();
      if (!alive) return;
      for (const key of Object.keys(lists)) {
        lists[key].replaceChildren(
          ...(all[key].length
            ? all[key].map((tour) => h("li", { dataset: { id: tour.id } }, h("a", { href: `#/tournaments/${tour.id}` }, tour.name), " ", h("span.hint", null, summaryLine(tour), tour.status === "cancelled" ? ` · ${t("tournament.status.cancelled")}` : "")))
            : [h("li.hint", null, t("tournament.none"))]),
        );
      }
    } catch {
      /* the next look tries again */
    }
  }
  refresh();
  const timer = window.setInterval(refresh, POLL_EVERY * 2);
  account().then((a) => {
    if (!alive) return;
    formBox.replaceChildren(a ? createForm(ctx) : h("p.hint.panel", { id: "tournament-sign-in" }, t("tournament.signIn")));
  });
  return () => {
    alive = false;
    clearInterval(timer);
  };
}

function field(id, label, input) {
  return h("label", { for: id }, label, input);
}

function createForm(ctx) {
  const error = h("div.error-box", { role: "alert" });
  const name = h("input", { id: "tournament-name", type: "text", required: true, maxlength: 40, value: "" });
  const kind = h("select", { id: "tournament-kind" }, h("option", { value: "swiss" }, t("tournament.kind.swiss")), h("option", { value: "arena" }, t("tournament.kind.arena")));
  const players = h("select", { id: "tournament-players" }, [3, 4, 5, 6].map((n) => h("option", { value: n, selected: n === 4 }, t("lobby.players", { count: n }))));
  const rounds = h("input", { id: "tournament-rounds", type: "number", min: 1, max: 20, value: 3 });
  const minutes = h("input", { id: "tournament-minutes", type: "number", min: 1, max: 1440, value: 30 });
  const clock = h("input", { id: "tournament-clock", type: "number", min: 5, max: 600, value: 30 });
  const startPlayers = h("input", { id: "tournament-start-players", type: "number", min: 2, max: 256, value: "" });
  const startsAt = h("input", { id: "tournament-starts-at", type: "datetime-local" });
  const fill = h("select", { id: "tournament-fill" }, LEVELS.map((level) => h("option", { value: level }, level ? t("tournament.fillWith", { level }) : t("tournament.fillNone"))));
  const rated = h("input", { type: "checkbox", id: "tournament-rated" });
  const bots = h("input", { type: "checkbox", id: "tournament-bots", checked: true });
  const showKind = () => {
    rounds.closest("label").hidden = kind.value !== "swiss";
    minutes.closest("label").hidden = kind.value !== "arena";
  };
  kind.addEventListener("change", showKind);
  const form = h(
    "form.form.panel",
    {
      id: "tournament-create",
      "aria-labelledby": "tournament-create-title",
      onsubmit: async (event) => {
        event.preventDefault();
        error.textContent = "";
        const body = {
          name: name.value.trim(),
          kind: kind.value,
          players: Number(players.value),
          time_limit: Number(clock.value),
          rated: rated.checked,
          bots: bots.checked,
          fill: fill.value || null,
          start_players: startPlayers.value ? Number(startPlayers.value) : null,
          starts_at: startsAt.value ? new Date(startsAt.value).getTime() : null,
        };
        if (kind.value === "swiss") body.rounds = Number(rounds.value);
        else body.minutes = Number(minutes.value);
        try {
          const made = await tournamentApi.create(body);
          location.hash = `#/tournaments/${made.id}`;
        } catch (e) {
          error.textContent = e.message;
        }
      },
    },
    h("h3", { id: "tournament-create-title" }, t("tournament.create")),
    h("div.row", null, field("tournament-name", t("tournament.name"), name), field("tournament-kind", t("tournament.kind"), kind), field("tournament-players", t("tournament.tableSize"), players)),
    h("div.row", null, field("tournament-rounds", t("tournament.rounds"), rounds), field("tournament-minutes", t("tournament.minutes"), minutes), field("tournament-clock", t("tournament.clock"), clock)),
    h("div.row", null, field("tournament-start-players", t("tournament.startPlayers"), startPlayers), field("tournament-starts-at", t("tournament.startsAt"), startsAt), field("tournament-fill", t("tournament.fill"), fill)),
    h("label.check", { for: "tournament-rated" }, rated, t("account.rated")),
    h("label.check", { for: "tournament-bots" }, bots, t("tournament.allowBots")),
    h("button.btn.primary", { type: "submit", id: "tournament-submit" }, t("tournament.create")),
    error,
  );
  showKind();
  return form;
}

function showOne(ctx, id) {
  let alive = true;
  const head = h("div", { id: "tournament-head" });
  const actions = h("div.row", { id: "tournament-actions" });
  const error = h("div.error-box", { role: "alert" });
  const goTo = h("p", { id: "tournament-your-table", "aria-live": "polite" });
  const body = h("tbody");
  const standings = h(
    "table.data",
    { id: "tournament-standings" },
    h("caption", null, t("tournament.standings")),
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        h("th", { scope: "col" }, "#"),
        h("th", { scope: "col" }, t("board.player")),
        h("th", { scope: "col" }, t("tournament.points")),
        h("th", { scope: "col" }, t("tournament.buchholz")),
        h("th", { scope: "col" }, t("tournament.money")),
        h("th", { scope: "col" }, t("board.games")),
      ),
    ),
    body,
  );
  const rounds = h("div", { id: "tournament-rounds" });
  ctx.app.replaceChildren(
    h(
      "section.panel.tournament",
      { "aria-labelledby": "tournament-title" },
      h("p", null, h("a", { href: "#/tournaments" }, `← ${t("tournament.title")}`)),
      head,
      goTo,
      actions,
      error,
      h("div.table-scroll", null, standings),
      rounds,
    ),
  );

  const act = (what) => async () => {
    error.textContent = "";
    const n = ++asked;
    try {
      show(n, await tournamentApi.act(id, what));
    } catch (e) {
      error.textContent = e.message;
    }
  };

  // The answers are numbered as they are asked for, and one asked before the answer drawn is not drawn: a look sent
  // just before a Join (or Start) answered after it, and drew the tournament as it was (Join again, until the next
  // look). An answer the same as the one drawn is not drawn again: each look drew the buttons anew, losing the
  // keyboard's focus on them and a click pressed across it.
  let asked = 0;
  let drawnAt = 0;
  let drawnText = "";
  /** Draw the answer to request `n` unless a later one is drawn already; whether it is the latest. */
  function show(n, tour) {
    if (n < drawnAt) return false;
    drawnAt = n;
    const text = JSON.stringify(tour);
    if (text !== drawnText) {
      drawnText = text;
      draw(tour);
    }
    return true;
  }

  function draw(tour) {
    ctx.setInfo(tour.name);
    const when = tour.starts_at ? ` · ${t("tournament.startsOn", { when: dateTime(tour.starts_at / 1000) })}` : tour.start_players ? ` · ${t("tournament.startsWhen", { count: tour.start_players })}` : "";
    head.replaceChildren(
      h("h2", { id: "tournament-title" }, tour.name),
      h("p", { id: "tournament-status" }, t(`tournament.status.${tour.status}`), tour.kind === "swiss" && tour.round ? ` · ${t("tournament.roundOf", { round: tour.round, rounds: tour.rounds })}` : "", tour.status === "open" ? when : ""),
      h("p.hint", null, summaryLine(tour), tour.fill ? ` · ${t("tournament.fillWith", { level: tour.fill })}` : ""),
    );
    const you = tour.you;
    goTo.replaceChildren(...(you && you.table ? [h("a.btn.primary", { href: `#/table/${you.table}`, id: "tournament-go" }, t("tournament.goToTable"))] : []));
    const buttons = [];
    const live = tour.status === "open" || tour.status === "running";
    if (live && !(you && !you.withdrawn) && tour.status === "open") buttons.push(h("button.btn", { type: "button", id: "tournament-join", onclick: act("join") }, t("tournament.join")));
    if (live && you && !you.withdrawn) buttons.push(h("button.btn", { type: "button", id: "tournament-withdraw", onclick: act("withdraw") }, t("tournament.withdraw")));
    if (tour.creator && tour.status === "open") {
      buttons.push(h("button.btn", { type: "button", id: "tournament-start", onclick: act("start") }, t("tournament.start")));
      buttons.push(h("button.btn", { type: "button", id: "tournament-cancel", onclick: act("cancel") }, t("tournament.cancel")));
    }
    actions.replaceChildren(...buttons);
    body.replaceChildren(
      ...(tour.standings.length
        ? tour.standings.map((line) =>
            h(
              "tr",
              { dataset: { name: line.name }, class: line.you ? "you" : null },
              h("td", null, number(line.rank)),
              h("th", { scope: "row" }, line.bot ? t("profile.botTitle", { name: line.name }) : line.name, line.withdrawn ? ` (${t("tournament.withdrawn")})` : ""),
              h("td", null, points(line.points)),
              h("td", null, points(line.buchholz)),
              h("td", null, money(line.money)),
              h("td", null, number(line.games)),
            ),
          )
        : [h("tr", null, h("td", { colspan: 6 }, t("tournament.noPlayers")))]),
    );
    rounds.replaceChildren(
      ...tour.schedule
        .slice()
        .reverse()
        .map((r) =>
          h(
            "section.tournament-round",
            { "aria-labelledby": `round-${r.round}` },
            h("h3", { id: `round-${r.round}` }, tour.kind === "arena" ? t("tournament.wave", { round: r.round }) : t("tournament.round", { round: r.round })),
            h(
              "ul",
              null,
              r.tables.map((table) =>
                h(
                  "li",
                  { dataset: { status: table.status } },
                  table.seats.map((s) => (s.name === null ? t("tournament.serverBot", { level: s.server_bot || "" }) : `${s.name}${s.points === null ? "" : ` (${points(s.points)})`}`)).join(", "),
                  " ",
                  table.game ? h("a", { href: table.status === "over" ? table.replay : `#/watch/${table.game}` }, table.status === "over" ? t("tournament.replay") : t("tournament.watch")) : h("span.hint", null, table.status === "void" ? t("tournament.void") : t("tournament.planned")),
                ),
              ),
            ),
          ),
        ),
    );
  }

  /** @type {AbortController | null} */
  let listening = null; // the notices long poll, while the player is in the tournament under way

  /**
   * While the reader plays in this tournament, one long poll of their notices: a `seated` notice of this tournament
   * (a new round's table) draws the page at once, so "Go to your table" comes without waiting for the next look.
   */
  async function listen() {
    const controller = new AbortController();
    listening = controller;
    let last = -1;
    while (alive && listening === controller) {
      try {
        const res = await fetchNotices(last, last < 0 ? 0 : NOTICE_WAIT, controller.signal);
        last = res.last;
        if (res.notices.some((n) => n.kind === "seated" && n.source && n.source.tournament === id)) refresh();
      } catch {
        if (controller.signal.aborted) return;
        await new Promise((resolve) => setTimeout(resolve, POLL_EVERY)); // the server away: ask again later
      }
    }
  }

  async function refresh() {
    const n = ++asked;
    try {
      const tour = await tournamentApi.get(id);
      if (!alive || !show(n, tour)) return;
      const playing = tour.status === "running" && tour.you && !tour.you.withdrawn;
      if (playing && !listening) listen();
      else if (!playing && listening) {
        listening.abort();
        listening = null;
      }
    } catch (e) {
      if (alive) error.textContent = e.message;
    }
  }
  refresh();
  const timer = window.setInterval(refresh, POLL_EVERY);
  return () => {
    alive = false;
    clearInterval(timer);
    if (listening) listening.abort();
  };
}
