// @ts-check
// Challenging a bot account from its profile (docs/bot-api.md, "Challenges"): the table's size, move clock and
// whether it is rated, then a wait for the bot's answer. The challenge is pending on the server for 60 seconds; the
// page asks how it stands every second (GET /api/challenges/{id}) and, once the bot accepts, goes to the table,
// where the page takes the account's seat itself (live.js resumes it). A decline says the bot's reason; Cancel
// takes the challenge back.
import { call } from "./api.js";
import { h } from "./format.js";
import { t } from "./i18n.js";

/** Seconds between two looks at a pending challenge. */
const LOOK_EVERY = 1000;
/** Move clocks offered, in seconds ("" none). */
const CLOCKS = ["30", "60", "120", ""];
/** What a bot may answer when it declines (forsale.server.lobby.challenges.DECLINE_REASONS). */
const REASONS = new Set(["generic", "later", "players", "rules", "clock", "rated", "casual"]);

export const challengeApi = {
  make: (body) => call("POST", "/api/challenges", body),
  get: (id) => call("GET", `/api/challenges/${encodeURIComponent(id)}`),
  cancel: (id) => call("DELETE", `/api/challenges/${encodeURIComponent(id)}`),
};

/** The words for a challenge that ended without a table. @param {{status: string, reason?: string|null}} c */
export function outcome(c) {
  if (c.status === "declined") return t("challenge.declined", { reason: t(`challenge.reason.${REASONS.has(c.reason || "") ? c.reason : "generic"}`) });
  if (c.status === "expired") return t("challenge.expired");
  if (c.status === "cancelled") return t("challenge.cancelled");
  return t("challenge.failed");
}

/**
 * The profile's "Challenge" panel for a bot account, and `stop` (the page calls it when it is left: a pending
 * challenge is taken back, the loop ends).
 * @param {string} bot the bot account's name
 * @param {(text: string) => void} toast
 */
export function challengePanel(bot, toast) {
  let pending = null; // the id of the challenge waiting for an answer
  let timer = 0;
  const players = h("select", { id: "challenge-players" }, [2, 3, 4, 5, 6].map((n) => h("option", { value: String(n) }, t("board.count", { count: n }))));
  const clock = h("select", { id: "challenge-clock" }, CLOCKS.map((s) => h("option", { value: s }, s ? t("challenge.clockSeconds", { count: Number(s) }) : t("challenge.noClock"))));
  clock.value = "60";
  const rated = h("input", { type: "checkbox", id: "challenge-rated" });
  const status = h("p.hint", { id: "challenge-status", role: "status" });
  const send = h("button.btn.primary", { type: "submit", id: "challenge-send" }, t("challenge.send"));
  const cancel = h("button.btn", { type: "button", id: "challenge-cancel", hidden: true, onclick: () => takeBack() }, t("pairing.cancel"));

  function waiting(on) {
    send.hidden = on;
    cancel.hidden = !on;
    for (const field of [players, clock, rated]) field.disabled = on;
  }

  async function look() {
    if (!pending) return;
    try {
      const { challenge } = await challengeApi.get(pending);
      if (challenge.status === "pending") {
        timer = window.setTimeout(look, LOOK_EVERY);
        return;
      }
      pending = null;
      waiting(false);
      if (challenge.status === "accepted" && challenge.table) {
        status.textContent = t("challenge.accepted", { name: bot });
        location.hash = `#/table/${challenge.table}`;
        return;
      }
      status.textContent = outcome(challenge);
    } catch (e) {
      timer = window.setTimeout(look, LOOK_EVERY * 3); // a network blip: the challenge is still on the server
      status.textContent = e.message;
    }
  }

  async function takeBack() {
    const id = pending;
    pending = null;
    window.clearTimeout(timer);
    waiting(false);
    if (!id) return;
    try {
      await challengeApi.cancel(id);
      status.textContent = t("challenge.cancelled");
    } catch (e) {
      status.textContent = e.message; // answered meanwhile: say what the server says
    }
  }

  const form = h(
    "form.form",
    {
      id: "challenge-form",
      onsubmit: async (event) => {
        event.preventDefault();
        status.textContent = "";
        const body = { bot, players: Number(players.value), time_limit: clock.value ? Number(clock.value) : null, rated: rated.checked };
        try {
          const { challenge } = await challengeApi.make(body);
          pending = challenge.id;
          waiting(true);
          status.textContent = t("challenge.waiting", { name: bot });
          timer = window.setTimeout(look, LOOK_EVERY);
        } catch (e) {
          toast(e.message);
          status.textContent = e.message;
        }
      },
    },
    h("label", { for: "challenge-players" }, t("board.players"), players),
    h("label", { for: "challenge-clock" }, t("challenge.clock"), clock),
    h("label.check", { for: "challenge-rated" }, rated, t("challenge.rated")),
    h("p.hint", null, t("challenge.hint")),
    h("div.row", null, send, cancel),
    status,
  );
  const panel = h("section.panel", { id: "challenge" }, h("h2", null, t("challenge.title", { name: bot })), form);
  return {
    panel,
    stop: () => {
      if (pending) takeBack();
      window.clearTimeout(timer);
    },
  };
}
