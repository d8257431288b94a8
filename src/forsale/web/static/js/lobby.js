// The lobby: a solo game in one click, a table for friends with a link per
// seat, open tables to join or watch, finished games to replay.
import { api, playerName, savePlayerName, seats } from "./api.js";
import { chequeCard, houseCard } from "./cards.js";
import { distinctNames, h } from "./format.js";
import { rulesPicker } from "./rulesform.js";

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

const CLOCKS = [
  ["", "No clock"],
  ["15", "15 s a move"],
  ["30", "30 s a move"],
  ["60", "1 min a move"],
  ["180", "3 min a move"],
];

/** Whether the server refused a request for its rules: the engine's reason, or the knobs' limits. */
function refusesRules(error) {
  return error.code === "bad_rules" || (error.code === "bad_request" && error.message.startsWith("rules"));
}

/** Where a share link for `seat` of table `id` points. */
export function seatLink(id, seat) {
  return `${location.origin}${location.pathname}#/table/${id}?seat=${seat}`;
}

export function showLobby(ctx) {
  const prefs = loadPrefs();
  let alive = true;
  const root = h("div.lobby");
  ctx.app.replaceChildren(root);
  ctx.setInfo("A card game of buying and selling houses, for 2 to 6 players");
  const ruleDefaults = api.rulesets();

  // -- solo ---------------------------------------------------------------------------
  const name = h("input", { type: "text", id: "solo-name", value: playerName(), placeholder: "You", maxlength: 40, autocomplete: "nickname" });
  const players = select("solo-players", [2, 3, 4, 5, 6].map((n) => [n, `${n} players`]), prefs.players || 4);
  const strength = select("solo-bot", [["random", "random"]], prefs.bot || "random");
  let strengthPicked = false; // a choice made before the server's bot list arrives is kept
  strength.addEventListener("change", () => (strengthPicked = true));
  const clock = select("solo-clock", CLOCKS, prefs.clock || "");
  const memory = h("input", { type: "checkbox", id: "solo-memory", checked: prefs.memory !== false });
  const soloErr = h("div.error-box", { role: "alert" });
  const rules = rulesPicker("solo", players, ruleDefaults, prefs.soloRules || { preset: prefs.rules });
  const playBtn = h("button.btn.primary", { type: "submit", id: "play-solo" }, "Play now");
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
          time_limit: clock.value ? Number(clock.value) : null,
          player_name: name.value.trim() || undefined,
        };
        savePlayerName(name.value.trim());
        savePrefs({ players: n, bot: strength.value, soloRules: rules.state(), clock: clock.value, memory: memory.checked });
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
    h("h2", null, "Play against bots"),
    h("div.decor", { "aria-hidden": "true" }, [3, 17, 29].map((v, i) => {
      const c = houseCard(v, { small: true });
      c.style.setProperty("--r", `${(i - 1) * 4}deg`);
      return c;
    }), (() => {
      const c = chequeCard(15, { small: true });
      c.style.setProperty("--r", "5deg");
      return c;
    })()),
    h("p.hint", null, "One click and you are at the table; the bots play the other seats."),
    h("label", { for: "solo-name" }, "Your name", name),
    h("div.row", null, h("label", { for: "solo-players" }, "Players", players), h("label", { for: "solo-bot" }, "Bot strength", strength)),
    h("div.row", null, rules.label, h("label", { for: "solo-clock" }, "Clock", clock)),
    rules.fieldset,
    h("label.check", { for: "solo-memory" }, memory, "Allow the memory aid"),
    h("div.row", null, playBtn),
    soloErr,
  );

  // -- a table for friends -------------------------------------------------------------
  const fPlayers = select("friends-players", [2, 3, 4, 5, 6].map((n) => [n, `${n} seats`]), prefs.fplayers || 4);
  const fRules = rulesPicker("friends", fPlayers, ruleDefaults, prefs.friendsRules || { preset: prefs.rules });
  const fClock = select("friends-clock", CLOCKS, prefs.fclock || "60");
  const fMemory = h("input", { type: "checkbox", id: "friends-memory", checked: prefs.fmemory !== false });
  const fName = h("input", { type: "text", id: "friends-table-name", placeholder: "Friday night", maxlength: 40 });
  const fMe = h("input", { type: "text", id: "friends-name", value: playerName(), placeholder: "You", maxlength: 40, autocomplete: "nickname" });
  const seatList = h("div.seat-list", { id: "friends-seats" });
  let botOptions = [["random", "random"]];
  const drawSeats = () => {
    const n = Number(fPlayers.value);
    const rows = [];
    for (let i = 0; i < n; i++) {
      const options = i === 0 ? [["me", "You"], ["human", "A friend"]] : [["human", "A friend"], ...botOptions.map(([v, l]) => [v, `Bot: ${l}`])];
      // Redrawn for a new seat count or the bot list: each seat keeps what was chosen for it.
      const before = seatList.querySelector(`#friends-seat-${i}`);
      const kept = before && options.some(([v]) => v === before.value) ? before.value : null;
      const sel = select(`friends-seat-${i}`, options, kept ?? (i === 0 ? "me" : "human"));
      sel.setAttribute("aria-label", `Seat ${i + 1}`);
      rows.push(h("div.seat-row", null, h("span", null, `Seat ${i + 1}`), sel));
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
          const v = document.getElementById(`friends-seat-${i}`).value;
          if (v === "me") join = true;
          specs.push(v === "me" || v === "human" ? null : v);
        }
        savePrefs({ fplayers: n, friendsRules: fRules.state(), fclock: fClock.value, fmemory: fMemory.checked });
        try {
          const res = await api.create({
            name: fName.value.trim() || undefined,
            players: n,
            rules: fRules.spec(),
            seats: specs,
            time_limit: fClock.value ? Number(fClock.value) : null,
            memory_aid: fMemory.checked,
            join,
            player_name: fMe.value.trim() || undefined,
          });
          savePlayerName(fMe.value.trim());
          const id = res.table.id;
          if (res.token) seats.put(id, { token: res.token, seat: res.seat, creator: res.creator_token });
          else seats.put(id, { creator: res.creator_token });
          showLinks(id, res.table);
        } catch (e) {
          if (!(refusesRules(e) && fRules.refuse(e.message))) fErr.textContent = e.message;
        }
      },
    },
    h("h2", null, "A table for friends"),
    h("p.hint", null, "Create a table and send each friend the link to their seat."),
    h("div.row", null, h("label", { for: "friends-table-name" }, "Table name", fName), h("label", { for: "friends-name" }, "Your name", fMe)),
    h("div.row", null, h("label", { for: "friends-players" }, "Seats", fPlayers), fRules.label),
    fRules.fieldset,
    seatList,
    h("div.row", null, h("label", { for: "friends-clock" }, "Clock", fClock)),
    h("label.check", { for: "friends-memory" }, fMemory, "Allow the memory aid (remembering is part of the printed game)"),
    h("div.row", null, h("button.btn.primary", { type: "submit", id: "create-table" }, "Create the table")),
    fErr,
    links,
  );
  drawSeats();

  function showLinks(id, info) {
    const rows = info.seats
      .filter((s) => s.kind === "open")
      .map((s) => {
        const url = seatLink(id, s.seat);
        const input = h("input", { type: "text", readonly: true, value: url, "aria-label": `link for seat ${s.seat + 1}`, dataset: { seat: s.seat } });
        return h(
          "div.link-row",
          null,
          h("span", null, `Seat ${s.seat + 1}`),
          input,
          h("button.btn", {
            type: "button",
            onclick: async () => {
              input.select();
              try {
                await navigator.clipboard.writeText(url);
                ctx.toast("Link copied");
              } catch {
                ctx.toast("Select the link and copy it");
              }
            },
          }, "Copy"),
        );
      });
    const mine = seats.get(id);
    links.replaceChildren(
      h("strong", null, "Share these links:"),
      ...rows,
      h("div.row", null, mine && mine.token ? h("a.btn.primary", { href: `#/table/${id}`, id: "go-to-table" }, "Go to my seat") : h("a.btn", { href: `#/watch/${id}` }, "Watch the table")),
    );
  }

  // -- open tables and finished games ----------------------------------------------------
  const openList = h("ul.tables", { id: "open-tables" }, h("li.empty", null, "Looking…"));
  const doneList = h("ul.tables", { id: "finished-games" }, h("li.empty", null, "Looking…"));
  const fileInput = h("input", { type: "file", id: "record-file", accept: ".json,application/json" });
  fileInput.addEventListener("change", async () => {
    const file = fileInput.files[0];
    if (!file) return;
    try {
      const record = JSON.parse(await file.text());
      sessionStorage.setItem("forsale.replay", JSON.stringify(record));
      location.hash = "#/replay/file";
    } catch (e) {
      ctx.toast(`That file is not a game record: ${e.message}`);
    }
  });
  const others = h(
    "section.panel",
    { id: "tables" },
    h("h2", null, "Tables"),
    h("p.hint", null, "Join a free seat or watch a game in progress."),
    openList,
    h("h2", { style: "margin-top:16px" }, "Finished games"),
    doneList,
    h("h2", { style: "margin-top:16px" }, "Replay a record file"),
    h("p.hint", null, "A forsale-record/1 file, from this page's download or any other program."),
    h("label.sr-only", { for: "record-file" }, "Record file"),
    fileInput,
  );

  const howTo = h(
    "details.how",
    { id: "how-to-play" },
    h("summary", null, h("strong", null, "How to play")),
    h("p", null, "Two phases. ", h("strong", null, "Buying:"), " each round, as many houses as players are on offer. In turn, raise the bid or pass. Passing takes the cheapest house left and gets half your bid back; the last one in pays the whole bid for the best house."),
    h("p", null, h("strong", null, "Selling:"), " each round, as many cheques as players. Everyone secretly picks a house to sell; the highest house takes the highest cheque, and so on."),
    h("p", null, "Cheques plus coins left is your score. On a tie, more coins left wins. Money is in thousands: 14k = $14,000."),
  );
  others.append(howTo);
  root.append(solo, friends, others);

  async function refresh() {
    try {
      const { tables } = await api.playing();
      if (!alive) return;
      const items = tables.map((t) => {
        const mine = seats.get(t.id);
        const free = t.open_seats || [];
        const who = t.seats.map((s) => (s.kind === "open" ? "—" : s.name)).join(", ");
        return h(
          "li",
          { dataset: { table: t.id } },
          h("span.what", null, t.name, h("small", null, `${t.players} seats · ${t.rules_text ? t.rules_text.split(":")[0] : t.rules} · ${t.status === "waiting" ? `${free.length} free` : "playing"} · ${who}`)),
          mine && mine.token ? h("a.btn.primary", { href: `#/table/${t.id}` }, "Back to my seat") : null,
          !(mine && mine.token) && free.length ? h("a.btn", { href: `#/table/${t.id}?seat=${free[0]}` }, "Join") : null,
          h("a.btn.quiet", { href: `#/watch/${t.id}` }, "Watch"),
        );
      });
      openList.replaceChildren(...(items.length ? items : [h("li.empty", null, "No open tables right now.")]));
    } catch (e) {
      openList.replaceChildren(h("li.empty", null, `Could not list tables: ${e.message}`));
    }
    try {
      const { tables } = await api.finished(15);
      if (!alive) return;
      const items = tables.map((t) => {
        const names = distinctNames(t.names || []);
        const when = t.finished_at ? new Date(t.finished_at * 1000).toLocaleString([], { dateStyle: "short", timeStyle: "short" }) : "";
        const won = (t.winners || []).map((s) => names[s] || `Seat ${s + 1}`).join(" & ");
        return h(
          "li",
          { dataset: { table: t.id } },
          h("span.what", null, `${t.name}${when ? ` · ${when}` : ""}`, h("small", null, `${names.join(", ")} · won by ${won}${t.scores ? ` (${Math.max(...t.scores)}k)` : ""}`)),
          h("a.btn", { href: `#/replay/${t.id}` }, "Replay"),
          h("a.btn.quiet", { href: api.recordUrl(t.id), download: `forsale-${t.id}.json` }, "Record"),
        );
      });
      doneList.replaceChildren(...(items.length ? items : [h("li.empty", null, "No finished games yet.")]));
    } catch (e) {
      doneList.replaceChildren(h("li.empty", null, `Could not list games: ${e.message}`));
    }
  }

  api
    .bots()
    .then((res) => {
      if (!alive) return;
      const names = res.names || [];
      const described = res.bots && typeof res.bots === "object" ? res.bots : {};
      const label = (n) => (described[n] ? `${n} — ${described[n]}` : n);
      const order = ["easy", "medium", "hard"].filter((n) => names.includes(n));
      const rest = names.filter((n) => !order.includes(n));
      const list = [...order, ...rest].map((n) => [n, label(n)]);
      if (!list.length) return;
      botOptions = list.map(([v]) => [v, v]);
      const want = strengthPicked ? strength.value : prefs.bot || res.default || list[0][0];
      strength.replaceChildren(...list.map(([v, l]) => h("option", { value: v, selected: v === want }, l)));
      drawSeats();
    })
    .catch(() => {});
  refresh();
  const timer = setInterval(refresh, 5000);
  playBtn.focus();
  return () => {
    alive = false;
    clearInterval(timer);
  };
}

