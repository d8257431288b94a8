// @ts-check
// The page's languages: one JSON message catalogue per language (../i18n/<code>.json),
// messages with named placeholders ("{name} bids {amount}k.") and plurals chosen
// by the browser's own CLDR rules (Intl.PluralRules), money, numbers and dates
// formatted by Intl for the language's locale. No string shown to a person
// lives in the code: every one is a key here (docs/glossary.md lists the game's words).

/** Each language by its own name, as the header's switch shows it. */
export const LANGUAGES = { en: "English", fr: "Français", nl: "Nederlands", it: "Italiano", de: "Deutsch" };

// The locale each language formats for: English money is dollars as printed ("$14,000").
const LOCALES = { en: "en-US", fr: "fr-FR", nl: "nl-NL", it: "it-IT", de: "de-DE" };
const KEY = "forsale.lang";

let code = "en";
let messages = {};
let plurals = new Intl.PluralRules(LOCALES.en);
let numbers = new Intl.NumberFormat(LOCALES.en);
let currency = null;

/** The language to start in: the one chosen before, else the browser's first we speak, else English. */
export function preferredLanguage() {
  let saved = null;
  try {
    saved = localStorage.getItem(KEY);
  } catch {
    /* private mode: nothing remembered */
  }
  if (saved && saved in LANGUAGES) return saved;
  for (const tag of navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language]) {
    const primary = String(tag || "").toLowerCase().split("-")[0];
    if (primary in LANGUAGES) return primary;
  }
  return "en";
}

/** Load a language's catalogue and make it the page's; `remember` keeps the choice for next time. */
export async function setLanguage(wanted, { remember = false } = {}) {
  const next = wanted in LANGUAGES ? wanted : "en";
  const response = await fetch(new URL(`../i18n/${next}.json`, import.meta.url));
  if (!response.ok) throw new Error(`no catalogue for ${next}: ${response.status}`);
  messages = await response.json();
  code = next;
  const locale = LOCALES[code];
  plurals = new Intl.PluralRules(locale);
  numbers = new Intl.NumberFormat(locale);
  // Grouping always: some locales leave four digits ungrouped ("1000 $" above "77.000 $" in one column).
  currency = new Intl.NumberFormat(locale, { style: "currency", currency: "USD", currencyDisplay: "narrowSymbol", maximumFractionDigits: 0, useGrouping: "always" });
  document.documentElement.lang = code;
  if (remember) {
    try {
      localStorage.setItem(KEY, code);
    } catch {
      /* private mode: the choice lasts until the tab closes */
    }
  }
  return code;
}

export function language() {
  return code;
}

function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const value = params[name];
    return typeof value === "number" ? numbers.format(value) : String(value);
  });
}

/**
 * The message `key` in the page's language with its `{placeholders}` filled in.
 * A plural message (an object of CLDR forms: one, other, ...) picks its form by `params.count`. A form named
 * `=N` (ICU's exact match) is taken first for a count of exactly N: a language that says a number's article
 * by the number's sound says so there (Italian "l’8", "l’11", "l’1" but "il 3"), whatever its plural forms.
 */
export function t(key, params = {}) {
  let message = messages[key];
  if (message === undefined) {
    console.error(`forsale i18n: no message ${key} in ${code}`);
    return key;
  }
  if (typeof message === "object") message = message[`=${params.count}`] ?? message[plurals.select(Number(params.count))] ?? message.other;
  return fill(message, params);
}

/** Whether the catalogue has `key` (for optional texts such as a known bot's description). */
export function has(key) {
  return key in messages;
}

/** `$14,000` in English, `14 000 $` in French: money is counted in coins of $1,000. */
export function money(coins) {
  return currency.format(coins * 1000);
}

/** A plain number in the locale's digits and grouping. */
export function number(n) {
  return numbers.format(n);
}

/** A moment (seconds since the epoch) as a short date and time of the locale. */
export function dateTime(seconds) {
  return new Intl.DateTimeFormat(LOCALES[code], { dateStyle: "short", timeStyle: "short" }).format(new Date(seconds * 1000));
}

/** A list of names joined the locale's way ("Ann, Bob and Cy", "Ann, Bob et Cy"). */
export function joinList(list) {
  return new Intl.ListFormat(LOCALES[code], { style: "long", type: "conjunction" }).format(list);
}

/** Put the static page's texts (index.html's data-i18n attributes) in the current language. */
export function translateStatic(root = document) {
  const all = (/** @type {string} */ selector) => /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(selector));
  for (const el of all("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of all("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  for (const el of all("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
}
