// @ts-check
// The lobby's rules picker: a preset, or custom knobs (starting coins, cards
// removed, refund rounding). The page never decides which knobs make a game:
// the server asks the engine, and a refusal's reason is shown here, next to
// the knobs, linked to them with aria-describedby.
import { h } from "./format.js";
import { t } from "./i18n.js";

const PRESETS = ["official", "first-edition", "refund-up"];
const TWO_PLAYER = ["two-player"];
const CUSTOM = "custom";

/** A preset's name in the page's language (also the lobby's list of tables uses it). */
export function presetName(preset) {
  return t(`rules.preset.${preset}`);
}

/**
 * The menu's words for a preset: a short name, with what it means on a line under the menu (`rules.about.*`),
 * as the bot menu does; a preset's whole name ("Officielles, remboursement arrondi au supérieur") is wider than
 * the menu's half of a form row, and a select cuts what does not fit.
 */
function optionName(preset) {
  return t(`rules.option.${preset}`);
}

/**
 * A rules picker for a form whose player count is the select `players`.
 * `defaults` is a promise of `/api/rulesets`' per-player-count knobs; `saved`
 * is what this picker held last time ({preset, knobs}).
 * Returns { label, about, fieldset, spec(), refuse(message), clear(), state() }: `about` is the line that says what
 * the chosen preset means, for under the label's row.
 */
export function rulesPicker(prefix, players, defaults, saved = {}) {
  const aboutId = `${prefix}-rules-about`;
  const select = h("select", { id: `${prefix}-rules`, "aria-describedby": aboutId });
  const about = h("p.hint.rules-about", { id: aboutId, "aria-live": "polite" });
  const errorId = `${prefix}-rules-error`;
  const hintId = `${prefix}-rules-hint`;
  const described = `${hintId} ${errorId}`;
  const number = (id, max) =>
    h("input", { type: "number", id, min: 0, max, step: 1, required: true, inputmode: "numeric", "aria-describedby": described });
  const coins = number(`${prefix}-coins`, 1000);
  const removed = number(`${prefix}-removed`, 29);
  const refund = h(
    "select",
    { id: `${prefix}-refund`, "aria-describedby": described },
    h("option", { value: "down" }, t("rules.refund.down")),
    h("option", { value: "up" }, t("rules.refund.up")),
  );
  const error = h("p.error-box", { id: errorId, role: "alert" });
  const fieldset = h(
    "fieldset.custom-rules",
    { id: `${prefix}-custom` },
    h("legend", null, t("rules.custom")),
    h("div.row", null, h("label", { for: coins.id }, t("rules.coins"), coins), h("label", { for: removed.id }, t("rules.removed"), removed)),
    h("label", { for: refund.id }, t("rules.refund"), refund),
    h("p.hint", { id: hintId }, t("rules.hint")),
    error,
  );
  let touched = !!saved.knobs; // the knobs hold the person's own choice: a new player count keeps them
  let known = null; // the server's default knobs per player count, once they arrive

  function fill(knobs) {
    if (!knobs) return;
    coins.value = knobs.starting_coins;
    removed.value = knobs.removed;
    refund.value = knobs.refund;
  }

  function options() {
    const n = Number(players.value);
    const wanted = select.value || saved.preset || "official";
    const list = [...(n === 2 ? TWO_PLAYER : PRESETS), CUSTOM];
    const value = list.includes(wanted) ? wanted : list[0];
    select.replaceChildren(...list.map((v) => h("option", { value: v, selected: v === value }, optionName(v))));
    select.value = value;
    if (!touched && known) fill(known[n]);
    show();
  }

  function show() {
    const custom = select.value === "custom";
    about.textContent = t(`rules.about.${select.value}`);
    fieldset.hidden = !custom;
    fieldset.disabled = !custom; // hidden knobs must not block the form's own validation
    if (!custom) clear();
  }

  function clear() {
    error.textContent = "";
    for (const el of [coins, removed, refund]) el.removeAttribute("aria-invalid");
  }

  for (const el of [coins, removed, refund]) {
    el.addEventListener("input", () => {
      touched = true;
      clear();
    });
  }
  select.addEventListener("change", show);
  players.addEventListener("change", options);
  if (saved.knobs) fill(saved.knobs);
  defaults
    .then((res) => {
      known = res && res.defaults ? res.defaults : null;
      if (!touched && known) fill(known[Number(players.value)]);
    })
    .catch(() => {});
  options();

  return {
    label: h("label", { for: select.id }, t("rules.label"), select),
    about,
    fieldset,
    /** The request's `rules` value: a preset name or the knobs. */
    spec() {
      if (select.value !== "custom") return select.value;
      return { starting_coins: Number(coins.value), removed: Number(removed.value), refund: refund.value };
    },
    /** Show the server's (the engine's) reason for refusing these rules, next to the knobs. */
    refuse(message) {
      if (select.value !== "custom") return false;
      error.textContent = message;
      for (const el of [coins, removed, refund]) el.setAttribute("aria-invalid", "true");
      removed.focus();
      return true;
    },
    clear,
    /** What to remember for next time. */
    state() {
      return { preset: select.value, knobs: touched ? { starting_coins: Number(coins.value), removed: Number(removed.value), refund: refund.value } : null };
    },
  };
}
