// @ts-check
// The server's refusals in the page's language.
//
// The server answers a request it turns down with a machine-readable code and an
// English message (docs/protocol.md); a move the rules refuse also carries its
// facts as `params` (`why`: which explanation, and the numbers it names). The
// page says the same in its own words: `error.why.<why>` when the server said
// why, else `error.<code>`. On an English page the server's own sentence is kept:
// it is English already and names details (a field, a limit) no catalogue entry
// can. tests/web/test_web_server_messages.py checks that every code the server
// can send and every `why` it gives has a message in every language.
import { k } from "./format.js";
import { has, joinList, language, t } from "./i18n.js";

/** What a seat to bid may do, the way refusals.bid_choices says it: "bid 4–7 or pass", "bid 4 or pass", "pass". */
function choices(coins, high) {
  const low = high + 1;
  if (coins < low) return t("error.choices.pass");
  if (coins === low) return t("error.choices.one", { low: k(low) });
  return t("error.choices.range", { low: k(low), high: k(coins) });
}

/**
 * A refusal (`{code, message, params}`, from a WebSocket `error` or a REST error body) in words
 * for the player; `seatName(s)` names seat `s` (a refusal that names a seat gives its number).
 */
export function refusedText(refusal, seatName = (s) => t("seat.number", { seat: s + 1 })) {
  const { code, message } = refusal || {};
  const params = (refusal && refusal.params) || {};
  if (language() === "en" && message) return message;
  const facts = {
    coins: k(Number(params.coins ?? 0)),
    high: k(Number(params.high ?? 0)),
    house: params.house ?? "",
    held: Array.isArray(params.held) ? joinList(params.held.map(String)) : "",
    name: params.turn !== undefined ? seatName(Number(params.turn)) : "",
    choices: params.coins !== undefined ? choices(Number(params.coins), Number(params.high ?? 0)) : "",
    // Seats as the page numbers them ("Seat 2, Seat 3"), never the indices the server counts from 0.
    free: Array.isArray(params.free) ? joinList(params.free.map((s) => t("seat.number", { seat: Number(s) + 1 }))) : "",
  };
  if (params.why && has(`error.why.${params.why}`)) return t(`error.why.${params.why}`, facts);
  if (code === "not_started" && facts.free) return t("error.notStartedFree", facts);
  if (code && has(`error.${code}`)) return t(`error.${code}`);
  return message || t("table.refused");
}
