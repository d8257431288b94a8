// The page's catalogues (web/static/i18n) loaded under node, for tests of what the page says: i18n.js fetches a
// catalogue beside its module and marks the document's language, so both are given here from the files.
import { readFileSync } from "node:fs";

import { setLanguage } from "../../src/forsale/web/static/js/i18n.js";

globalThis.fetch = async (url) => ({ ok: true, status: 200, json: async () => JSON.parse(readFileSync(new URL(String(url)), "utf8")) });
globalThis.document = /** @type {any} */ ({ documentElement: {} });

/** Make `code` ("it", "fr"...) the language the page's modules speak. */
export function speak(code) {
  return setLanguage(code);
}
