// Counted words with Intl.PluralRules: `tp("chat.unread", 3)` reads the key of the count's
// plural category in the page's language ("chat.unread.few" in Polish and Russian, ...),
// falling back to ".other".

import { has, language, t } from "./i18n.js";

const rules = new Map();

/** The translation of `key` for the count `n` ({n} and `params` filled in). */
export function tp(key, n, params = {}) {
  const lang = language();
  if (!rules.has(lang)) rules.set(lang, new Intl.PluralRules(lang));
  const form = rules.get(lang).select(n);
  const full = has(`${key}.${form}`) ? `${key}.${form}` : `${key}.other`;
  return t(full, { ...params, n });
}
