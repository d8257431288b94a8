// @ts-check
// The lobby: a solo game in one click, a table for friends with a link per
// seat, open tables to join or watch, finished games to replay.
import { ratedToggle } from "./account.js";
import { api, playerName, savePlayerName, seats } from "./api.js";
import { chequeCard, houseCard } from "./cards.js";
import { h, k, money, shownName, shownNames, shownTableName } from "./format.js";
import { dateTime, has, joinList, language, t } from "./i18n.js";
import { pairingCard } from "./pairing.js";
import { presetName, rulesPicker } from "./rulesform.js";
import { tutorialButton } from "./tutorial.js";

const PREFS = "forsale.prefs";

function loadPrefs() {
  try {
    return JSON.parse(localStorage.getItem(PREFS) || "{}");
  } catch {
    return {};
  }
}

function savePrefs(p) {
  localStorage.setItem(PREFS, JSON.stringify({ ...loadPrefs(), ...p }));
}

function select(id, options, value) {
  return h(
    "select",
    { id },
    options.map(([v, label]) => h("option", { value: v, selected: String(v) === String(value) }, label)),
  );
}

const CLOCKS = ["", "15", "30", "60", "180"];

/**
 * The bots' pace: seconds each bot waits before its move (the table's `bot_delay`); "" leaves the server's own
 * (`forsale serve --bot-delay`). A waiting bot lets a person follow the auction; at once suits a quick game.
 */
const PACES = [["0", "pace.instant"], ["", "pace.normal"], ["1.5", "pace.slow"], ["3", "pace.verySlow"]];

function paceOptions() {
  return PACES.map(([v, key]) => [v, t(key)]);
}

/** The clock choices in the page's language: none, or seconds a move (whole minutes said as minutes). */
function clockOptions() {
  return CLOCKS.map((s) => [s, !s ? t("clock.none") : Number(s) % 60 ? t("clock.seconds", { count: Number(s) }) : t("clock.minutes", { count: Number(s) / 60 })]);
}

/** A table for friends may also be played over days: a long clock ("turn:<seconds>"), and nobody need stay online. */
const LONG_CLOCKS = [86400, 3 * 86400];

function friendsClockOptions() {
  return [...clockOptions(), ...LONG_CLOCKS.map((s) => [`turn:${s}`, t("clock.turnDays", { count: s / 86400 })])];
}

/** The body's clock fields for a clock choice: live seconds (time_limit) or a long clock (turn_limit). */
function clockFields(value) {
  if (value.startsWith("turn:")) return { time_limit: null, turn_limit: Number(value.slice(5)) };
  return { time_limit: value ? Number(value) : null };
}

/** How many of this browser's latest tables the lobby looks up for its finished games. */
const OWN_TABLES = 15;
/** This browser's finished games as the finished list shows them, by table id: a finished game is asked for once. */
const ownFinished = new Map();

/**
 * This browser's own finished games (its seats' tables), in the shape of the public list's items. The public list
 * has only listed tables, never a solo, private or invitation-only game even to its players, and "No finished games
 * yet." after three solo games told a player theirs were gone. A table not over yet (or gone) is asked again later.
 */
async function ownFinishedGames() {
  const ids = Object.keys(seats.all()).slice(-OWN_TABLES);
  await Promise.all(
    ids
      .filter((id) => !ownFinished.has(id))
      .map(async (id) => {
        const got = await api.table(id, seats.get(id)?.invite).catch(() => null);
        if (!got || got.table.status !== "over" || !got.result) return;
        const tb = got.table;
        ownFinished.set(id, {
          ...got.result,
          id,
          name: tb.name,
          players: tb.players,
          rules: tb.rules,
          names: tb.seats.map((seat) => seat.name),
          bots: tb.seats.map((seat) => seat.bot),
          at: tb.created_at,
        });
      }),
  );
  return ids.filter((id) => ownFinished.has(id)).map((id) => ownFinished.get(id));
}

/** A bot's name in the menu: a level in the page's words ("moyen"), a research bot by its own name. */
function botName(name) {
  return has(`seat.botLevel.${name}`) ? t(`seat.botLevel.${name}`) : name;
}

/**
 * What a bot is, in words for players: the catalogue's for a level; a research bot's is the server's note, in English
 * only (a developer's note, shown only to whoever asked for research bots). Shown beside the menu, not in it, so
 * that a narrow select never cuts it ("medium — the ex…").
 */
function botAbout(name, described) {
  if (has(`bot.${name}`)) return t(`bot.${name}`);
  return described[name] && language() === "en" ? described[name] : "";
}

/**
 * A bot menu's options: the bots for people (`offered`, people's levels first), then the research bots in their
 * own group when asked for. Both lists are the server's (`/api/bots`' `players` and `research`): which bots are
 * people's levels is said in the bots' registry only.
 */
function botChoices(offered, researchBots, research, label) {
  const people = offered.map((n) => h("option", { value: n }, label(n)));
  if (!research || !researchBots.length) return people;
  return [...people, h("optgroup", { label: t("lobby.researchGroup") }, researchBots.map((n) => h("option", { value: n }, label(n))))];
}

/** A listed table's rules in words: a preset's name, or "custom rules". */
function rulesName(rules) {
  return typeof rules === "string" && has(`rules.preset.${rules}`) ? presetName(rules) : t("rules.custom");
}

/** Whether the server refused a request for its rules: the engine's reason, or the knobs' limits. */
function refusesRules(error) {
  return error.code === "bad_rules" || (error.code === "bad_request" && (error.serverMessage || "").startsWith("rules"));
}

/** Where a share link for `seat` of table `id` points (with the invitation code of an invitation-only table). */
/** What each refreshed list last showed, as markup. */
const shown = new WeakMap();

/**
 * `nodes` in `list`, unless the list already shows the same: the lobby's lists are asked for every 5 s, and a
 * redraw of an unchanged list took the keyboard's focus off a link and lost a click pressed across it.
 * @param {HTMLElement} list
 * @param {HTMLElement[]} nodes
 */
function redraw(list, nodes) {
  const markup = nodes.map((node) => node.outerHTML).join("");
  if (shown.get(list) === markup) return;
  shown.set(list, markup);
  list.replaceChildren(...nodes);
}

export function seatLink(id, seat, invite) {
  return `${location.origin}${location.pathname}#/table/${id}?seat=${seat}${invite ? `&invite=${encodeURIComponent(invite)}` : ""}`;
}

export function showLobby(ctx) {
  const prefs = loadPrefs();
  let alive = true;
  const root = h("div.lobby");
  ctx.app.replaceChildren(root);
  ctx.setInfo(t("lobby.tagline"));
  const ruleDefaults = api.rulesets();

  // -- solo ---------------------------------------------------------------------------
  const name = h("input", { type: "text", id: "solo-name", value: playerName(), placeholder: t("seat.you"), maxlength: 40, autocomplete: "nickname" });
  const players = select("solo-players", [2, 3, 4, 5, 6].map((n) => [n, t("lobby.players", { count: n })]), prefs.players || 4);
  const strength = select("solo-bot", [["random", botName("random")]], prefs.bot || "random");
  let strengthPicked = false; // a choice made before the server's bot list arrives is kept
  const botAboutLine = h("p.hint.bot-about", { id: "solo-bot-about", "aria-live": "polite" });
  strength.setAttribute("aria-describedby", "solo-bot-about");
  let described = {};
  let offered = []; // the server's bots for people, then its research bots (docs/protocol.md, GET /api/bots)
  let researchBots = [];
  const showAbout = () => (botAboutLine.textContent = botAbout(strength.value, described));
  strength.addEventListener("change", () => {
    strengthPicked = true;
    showAbout();
  });
  const research = h("input", { type: "checkbox", id: "show-research", checked: prefs.research === true });
  // Shown only where the server offers research bots (forsale serve --research-bots); a public server offers none.
  const researchLabel = h("label.check", { for: "show-research", hidden: true }, research, t("lobby.researchBots"));
  const clock = select("solo-clock", clockOptions(), prefs.clock || "");
  const pace = select("solo-pace", paceOptions(), prefs.pace || "");
  const memory = h("input", { type: "checkbox", id: "solo-memory", checked: prefs.memory !== false });
  const hints = h("input", { type: "checkbox", id: "solo-hints", checked: prefs.hints === true }); // off by default
  const soloRated = ratedToggle("solo-rated", hints); // signed-in players only; a rated game has no hints
  const soloErr = h("div.error-box", { role: "alert" });
  const rules = rulesPicker("solo", players, ruleDefaults, prefs.soloRules || { preset: prefs.rules });
  const playBtn = h("button.btn.primary", { type: "submit", id: "play-solo" }, t("lobby.play"));
  const solo = h(
    "form.panel.form",
    {
      id: "solo",
      onsubmit: async (event) => {
        event.preventDefault();
        soloErr.textContent = "";
        playBtn.disabled = true;
        const n = Number(players.value);
        const body = {
          players: n,
          bot: strength.value,
          rules: rules.spec(),
          memory_aid: memory.checked,
          hints: hints.checked,
          rated: soloRated.value(),
          time_limit: clock.value ? Number(clock.value) : null,
          bot_delay: pace.value === "" ? undefined : Number(pace.value),
          player_name: name.value.trim() || undefined,
        };
        savePlayerName(name.value.trim());
        savePrefs({ players: n, bot: strength.value, soloRules: rules.state(), clock: clock.value, pace: pace.value, memory: memory.checked, hints: hints.checked });
        try {
          const res = await api.solo(body);
          seats.put(res.table.id, { token: res.token, seat: res.seat, name: name.value.trim(), creator: res.creator_token });
          location.hash = `#/table/${res.table.id}`;
        } catch (e) {
          if (!(refusesRules(e) && rules.refuse(e.message))) soloErr.textContent = e.message;
          playBtn.disabled = false;
        }
      },
    },
    h("h2", null, t("lobby.solo")),
    h("div.decor", { "aria-hidden": "true" }, [3, 17, 29].map((v, i) => {
      const c = houseCard(v, { small: true });
      c.style.setProperty("--r", `${(i - 1) * 4}deg`);
      return c;
    }), (() => {
      const c = chequeCard(15, { small: true });
      c.style.setProperty("--r", "5deg");
      return c;
    })()),
    h("p.hint", null, t("lobby.soloHint")),
    h("label", { for: "solo-name" }, t("form.yourName"), name),
    h("div.row", null, h("label", { for: "solo-players" }, t("lobby.playersLabel"), players), h("label", { for: "solo-bot" }, t("lobby.botStrength"), strength)),
    botAboutLine,
    // The rules menu has a line of its own, its meaning under it and the custom knobs after: beside another menu,
    // its words were cut on a phone and on a laptop alike ("Règles personnal").
    rules.label,
    rules.about,
    rules.fieldset,
    h("label", { for: "solo-clock" }, t("lobby.clock"), clock),
    h("label", { for: "solo-pace" }, t("lobby.botPace"), pace),
    h("label.check", { for: "solo-memory" }, memory, t("lobby.memory")),
    h("label.check", { for: "solo-hints" }, hints, t("lobby.hints")),
    soloRated.label,
    researchLabel,
    h("div.row", null, playBtn, tutorialButton(ctx, () => name.value.trim())),
    soloErr,
  );

  // -- a table for friends -------------------------------------------------------------
  const fPlayers = select("friends-players", [2, 3, 4, 5, 6].map((n) => [n, t("lobby.seats", { count: n })]), prefs.fplayers || 4);
  const fRules = rulesPicker("friends", fPlayers, ruleDefaults, prefs.friendsRules || { preset: prefs.rules });
  const fClock = select("friends-clock", friendsClockOptions(), prefs.fclock || "60");
  const fMemory = h("input", { type: "checkbox", id: "friends-memory", checked: prefs.fmemory !== false });
  const fHints = h("input", { type: "checkbox", id: "friends-hints", checked: prefs.fhints === true }); // off by default
  const fPrivate = h("input", { type: "checkbox", id: "friends-private", checked: !!prefs.fprivate });
  const fSpectatorChat = h("input", { type: "checkbox", id: "friends-spectator-chat", checked: prefs.fspectatorChat === true }); // off by default
  const friendsRated = ratedToggle("friends-rated", fHints);
  const fName = h("input", { type: "text", id: "friends-table-name", placeholder: t("lobby.tableNameExample"), maxlength: 40 });
  const fMe = h("input", { type: "text", id: "friends-name", value: playerName(), placeholder: t("seat.you"), maxlength: 40, autocomplete: "nickname" });
  const seatList = h("div.seat-list", { id: "friends-seats" });
  let botOptions = [["random", botName("random")]];
  const drawSeats = () => {
    const n = Number(fPlayers.value);
    const rows = [];
    for (let i = 0; i < n; i++) {
      const options = i === 0 ? [["me", t("seat.you")], ["human", t("lobby.friend")]] : [["human", t("lobby.friend")], ...botOptions.map(([v, l]) => [v, t("lobby.botSeat", { name: l })])];
      // Redrawn for a new seat count or the bot list: each seat keeps what was chosen for it.
      const before = seatList.querySelector(`#friends-seat-${i}`);
      const kept = before && options.some(([v]) => v === before.value) ? before.value : null;
      const sel = select(`friends-seat-${i}`, options, kept ?? (i === 0 ? "me" : "human"));
      sel.setAttribute("aria-label", t("seat.number", { seat: i + 1 }));
      rows.push(h("div.seat-row", null, h("span", null, t("seat.number", { seat: i + 1 })), sel));
    }
    seatList.replaceChildren(...rows);
  };
  fPlayers.addEventListener("change", drawSeats);
  const fErr = h("div.error-box", { role: "alert" });
  const links = h("div.links", { id: "share-links", "aria-live": "polite" });
  const friends = h(
    "form.panel.form",
    {
      id: "friends",
      onsubmit: async (event) => {
        event.preventDefault();
        fErr.textContent = "";
        const n = Number(fPlayers.value);
        const specs = [];
        let join = false;
        for (let i = 0; i < n; i++) {
          const v = /** @type {HTMLSelectElement} */ (document.getElementById(`friends-seat-${i}`)).value;
          if (v === "me") join = true;
          specs.push(v === "me" || v === "human" ? null : v);
        }
        savePrefs({ fplayers: n, friendsRules: fRules.state(), fclock: fClock.value, fmemory: fMemory.checked, fhints: fHints.checked, fprivate: fPrivate.checked, fspectatorChat: fSpectatorChat.checked });
        try {
          const res = await api.create({
            name: fName.value.trim() || undefined,
            players: n,
            rules: fRules.spec(),
            seats: specs,
            ...clockFields(fClock.value),
            memory_aid: fMemory.checked,
            hints: fHints.checked,
            invite_only: fPrivate.checked,
            spectator_chat: fSpectatorChat.checked,
            rated: friendsRated.value(),
            join,
            player_name: fMe.value.trim() || undefined,
          });
          savePlayerName(fMe.value.trim());
          const id = res.table.id;
          if (res.token) seats.put(id, { token: res.token, seat: res.seat, creator: res.creator_token, invite: res.invite });
          else seats.put(id, { creator: res.creator_token, invite: res.invite });
          showLinks(id, res.table);
        } catch (e) {
          if (!(refusesRules(e) && fRules.refuse(e.message))) fErr.textContent = e.message;
        }
      },
    },
    h("h2", null, t("lobby.friends")),
    h("p.hint", null, t("lobby.friendsHint")),
    h("div.row", null, h("label", { for: "friends-table-name" }, t("lobby.tableName"), fName), h("label", { for: "friends-name" }, t("form.yourName"), fMe)),
    h("label", { for: "friends-players" }, t("lobby.seatsLabel"), fPlayers),
    fRules.label,
    fRules.about,
    fRules.fieldset,
    seatList,
    h("div.row", null, h("label", { for: "friends-clock" }, t("lobby.clock"), fClock)),
    h("label.check", { for: "friends-memory" }, fMemory, t("lobby.memoryFriends")),
    h("label.check", { for: "friends-hints" }, fHints, t("lobby.hintsFriends")),
    h("label.check", { for: "friends-spectator-chat" }, fSpectatorChat, t("lobby.spectatorChat")),
    h("label.check", { for: "friends-private" }, fPrivate, t("lobby.private")),
    friendsRated.label,
    h("div.row", null, h("button.btn.primary", { type: "submit", id: "create-table" }, t("lobby.create"))),
    fErr,
    links,
  );
  drawSeats();

  function showLinks(id, info) {
    const rows = info.seats
      .filter((s) => s.kind === "open")
      .map((s) => {
        const url = seatLink(id, s.seat, seats.get(id)?.invite);
        const input = h("input", { type: "text", readonly: true, value: url, "aria-label": t("link.forSeat", { seat: s.seat + 1 }), dataset: { seat: s.seat } });
        return h(
          "div.link-row",
          null,
          h("span", null, t("seat.number", { seat: s.seat + 1 })),
          input,
          h("button.btn", {
            type: "button",
            onclick: async () => {
              input.select();
              try {
                await navigator.clipboard.writeText(url);
                ctx.toast(t("link.copied"));
              } catch {
                ctx.toast(t("link.copyYourself"));
              }
            },
          }, t("link.copy")),
        );
      });
    const mine = seats.get(id);
    links.replaceChildren(
      h("p.note", { id: "friends-created", role: "status" }, t("lobby.created")),
      h("strong", null, t("link.share")),
      ...rows,
      h("div.row", null, mine && mine.token ? h("a.btn.primary", { href: `#/table/${id}`, id: "go-to-table" }, t("link.goToSeat")) : h("a.btn", { href: `#/watch/${id}` }, t("link.watchTable"))),
    );
    // The table exists now: the form that made it stays readable but is done (a second click made a second table).
    for (const el of friends.querySelectorAll("input, select, button, textarea")) if (!links.contains(el)) el.disabled = true;
    // A link's end names its seat ("?seat=2"): show that end, not the server's address every link shares.
    requestAnimationFrame(() => {
      for (const input of links.querySelectorAll("input")) input.scrollLeft = input.scrollWidth;
    });
  }

  // -- open tables and finished games ----------------------------------------------------
  const openList = h("ul.tables", { id: "open-tables" }, h("li.empty", null, t("lobby.looking")));
  const doneList = h("ul.tables", { id: "finished-games" }, h("li.empty", null, t("lobby.looking")));
  const fileInput = h("input", { type: "file", id: "record-file", accept: ".json,application/json" });
  fileInput.addEventListener("change", async () => {
    const file = fileInput.files[0];
    if (!file) return;
    try {
      const record = JSON.parse(await file.text());
      sessionStorage.setItem("forsale.replay", JSON.stringify(record));
      location.hash = "#/replay/file";
    } catch (e) {
      ctx.toast(t("lobby.notARecord", { reason: e.message }));
    }
  });
  const others = h(
    "section.panel",
    { id: "tables" },
    h("h2", null, t("lobby.tables")),
    h("p.hint", null, t("lobby.tablesHint")),
    openList,
    h("h2", { style: "margin-top:16px" }, t("lobby.finished")),
    doneList,
    h("h2", { style: "margin-top:16px" }, t("lobby.replayFile")),
    h("p.hint", null, t("lobby.replayFileHint")),
    h("label.sr-only", { for: "record-file" }, t("lobby.recordFile")),
    fileInput,
  );

  const howTo = h(
    "details.how",
    { id: "how-to-play" },
    h("summary", null, h("strong", null, t("how.title"))),
    h("p", null, t("how.phases"), " ", h("strong", null, t("how.buying")), " ", t("how.buyingText")),
    h("p", null, h("strong", null, t("how.selling")), " ", t("how.sellingText")),
    h("p", null, t("how.score", { k: k(14), money: money(14) })),
  );
  others.append(howTo);
  const pairing = pairingCard(ctx); // "Play now with people" (quick pairing)
  // Tournaments (js/tournaments.js): a way in from the lobby.
  const tournaments = h(
    "section.panel",
    { id: "tournaments-card", "aria-labelledby": "tournaments-card-title" },
    h("h2", { id: "tournaments-card-title" }, t("tournament.title")),
    h("p.hint", null, t("tournament.hint")),
    h("a.btn", { href: "#/tournaments", id: "tournaments-link" }, t("tournament.browse")),
  );
  root.append(solo, pairing.el, tournaments, friends, others);

  async function refresh() {
    try {
      const { tables } = await api.playing();
      if (!alive) return;
      const items = tables.map((tb) => {
        const mine = seats.get(tb.id);
        const free = tb.open_seats || [];
        const who = tb.seats.map((s, i) => (s.kind === "open" ? "—" : shownName(s.name, i, { bot: s.bot }))).join(", ");
        const state = tb.status === "waiting" ? t("lobby.free", { count: free.length }) : t("lobby.playing");
        return h(
          "li",
          { dataset: { table: tb.id } },
          h("span.what", null, shownTableName(tb.name, tb.players), h("small", null, `${t("lobby.seats", { count: tb.players })} · ${rulesName(tb.rules)} · ${state} · ${who}`)),
          mine && mine.token ? h("a.btn.primary", { href: `#/table/${tb.id}` }, t("lobby.backToSeat")) : null,
          !(mine && mine.token) && free.length ? h("a.btn", { href: `#/table/${tb.id}?seat=${free[0]}` }, t("lobby.join")) : null,
          h("a.btn.quiet", { href: `#/watch/${tb.id}` }, t("join.watch")),
        );
      });
      redraw(openList, items.length ? items : [h("li.empty", null, t("lobby.noTables"))]);
    } catch (e) {
      redraw(openList, [h("li.empty", null, t("lobby.tablesFailed", { reason: e.message }))]);
    }
    try {
      const [{ tables: listed }, own] = await Promise.all([api.finished(15), ownFinishedGames()]);
      if (!alive) return;
      // Newest first: a listed game by when it ended, one of this browser's by when it began (all the table says).
      const tables = [...own.filter((tb) => !listed.some((x) => x.id === tb.id)), ...listed];
      tables.sort((a, b) => (b.finished_at ?? b.at) - (a.finished_at ?? a.at));
      const items = tables.map((tb) => {
        const names = shownNames(tb);
        const when = tb.finished_at ? dateTime(tb.finished_at) : "";
        const won = joinList((tb.winners || []).map((s) => names[s] || t("seat.number", { seat: s + 1 })));
        const score = tb.scores ? ` (${k(Math.max(...tb.scores))})` : "";
        return h(
          "li",
          { dataset: { table: tb.id } },
          h("span.what", null, `${shownTableName(tb.name, tb.players)}${when ? ` · ${when}` : ""}`, h("small", null, `${names.join(", ")} · ${t("lobby.wonBy", { names: won })}${score}`)),
          h("a.btn", { href: `#/replay/${tb.id}` }, t("lobby.replay")),
          h("a.btn.quiet", { href: api.recordUrl(tb.id), download: `forsale-${tb.id}.json` }, t("lobby.record")),
        );
      });
      redraw(doneList, items.length ? items : [h("li.empty", null, t("lobby.noGames"))]);
    } catch (e) {
      redraw(doneList, [h("li.empty", null, t("lobby.gamesFailed", { reason: e.message }))]);
    }
  }

  /** The bot menus (solo strength, friends' seats) from the server's list: research bots only when asked for. */
  const drawBots = (want) => {
    const seatBots = [...offered, ...(research.checked ? researchBots : [])];
    strength.replaceChildren(...botChoices(offered, researchBots, research.checked, botName));
    strength.value = seatBots.includes(want) ? want : seatBots[0];
    showAbout();
    botOptions = seatBots.map((v) => [v, botName(v)]); // "Bot : moyen"
    drawSeats();
  };
  research.addEventListener("change", () => {
    savePrefs({ research: research.checked });
    drawBots(strength.value);
  });

  api
    .bots()
    .then((res) => {
      if (!alive) return;
      offered = res.players || [];
      researchBots = res.research || [];
      described = res.bots && typeof res.bots === "object" ? res.bots : {};
      researchLabel.hidden = !researchBots.length;
      if (!offered.length && !researchBots.length) return;
      const want = strengthPicked ? strength.value : prefs.bot || res.default || offered[0];
      if (researchBots.includes(want)) research.checked = true; // a research bot chosen before
      drawBots(want);
    })
    .catch(() => {});
  refresh();
  const timer = setInterval(refresh, 5000);
  playBtn.focus();
  return () => {
    alive = false;
    clearInterval(timer);
    pairing.stop();
  };
}

