// Translations: every visible string comes from static/i18n/{lang}.json.
// The language is the one picked before (localStorage), else the browser's, else English.

export const LANGUAGES = {
  en: "English",
  it: "Italiano",
  pl: "Polski",
  ru: "Русский",
};
const STORAGE_KEY = "sy.lang";

let current = "en";
let strings = {};
let fallback = {};
const listeners = new Set();

/** The language code to use when nothing was chosen: the browser's, if we have it. */
export function preferredLanguage() {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved && saved in LANGUAGES) return saved;
  } catch (_) { /* storage may be disabled */ }
  const wanted = [...(navigator.languages || []), navigator.language || ""];
  for (const tag of wanted) {
    const code = String(tag).toLowerCase().split("-")[0];
    if (code in LANGUAGES) return code;
  }
  return "en";
}

async function load(lang) {
  const res = await fetch(`/static/i18n/${lang}.json`);
  if (!res.ok) throw new Error(`cannot load language ${lang}: HTTP ${res.status}`);
  return res.json();
}

/** Load the preferred language (and English as a fallback for a missing key). */
export async function initI18n() {
  fallback = await load("en");
  await setLanguage(preferredLanguage(), false);
}

/** Switch language, remember it, and re-translate the page. */
export async function setLanguage(lang, remember = true) {
  if (!(lang in LANGUAGES)) lang = "en";
  // Remember the choice at once, before the strings arrive: a page opened right after the
  // switch must already use it.
  if (remember) {
    try { localStorage.setItem(STORAGE_KEY, lang); } catch (_) { /* ignore */ }
  }
  strings = lang === "en" ? fallback : await load(lang);
  current = lang;
  document.documentElement.lang = lang;
  applyI18n(document);
  for (const fn of listeners) fn(lang);
}

export function language() {
  return current;
}

/** Call `fn(lang)` after every language change (to redraw dynamic parts). */
export function onLanguageChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** True when `key` has a translation. */
export function has(key) {
  return key in strings || key in fallback;
}

/** The string for `key`, with `{name}` placeholders filled from `params`. */
export function t(key, params = {}) {
  let text = strings[key] ?? fallback[key];
  if (text === undefined) {
    console.warn(`missing translation key ${key}`);
    return key;
  }
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** Translate elements with data-i18n (text), data-i18n-title, data-i18n-placeholder,
 * data-i18n-aria (aria-label) under `root`. */
export function applyI18n(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
  for (const el of root.querySelectorAll("[data-i18n-aria]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nAria));
  }
  if (root === document) document.title = t("app.title");
}

/** Fill a <select> with the languages and keep it in step with the current one. */
export function bindLanguagePicker(select) {
  select.replaceChildren();
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const opt = document.createElement("option");
    opt.value = code;
    opt.textContent = name;
    select.append(opt);
  }
  select.value = current;
  select.addEventListener("change", () => setLanguage(select.value));
  onLanguageChange((lang) => { select.value = lang; });
}
