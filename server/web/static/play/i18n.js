// The words a person reads, in the page's language (<html lang>): the "play" catalog
// (server/i18n/locales/LANG/LC_MESSAGES/play.po, compiled to static versioned files the page
// links with data-catalog: play/i18n/LANG.json, the words of the modules loaded at once, and
// LANG.later.json, those only the modules loaded when needed say: such a module awaits
// laterWords() before it speaks). English is the source: an id missing from the catalog is
// said as it stands. Plural forms are picked by Intl.PluralRules (CLDR: Polish and Russian
// have three), numbers and times formatted by Intl.

export const lang = document.documentElement.lang || "en";

/** @type {HTMLLinkElement | null} */
const link = document.querySelector("link[data-catalog]");

/** @type {{[id: string]: string | {[category: string]: string}}} */
const messages = await loadCatalog(link?.href);

/** @type {Promise<void> | null} */
let later = null;

/** @param {string | undefined} url */
async function loadCatalog(url) {
  if (!url) return {};
  try {
    const response = await fetch(url);
    if (!response.ok) return {};
    return (await response.json()).messages ?? {};
  } catch {
    return {}; // offline with no cached catalog: the page still works, in English
  }
}

/** The words of the modules loaded when needed, added to the catalog (fetched once). */
export function laterWords() {
  later ??= loadCatalog(link?.dataset.later).then((found) => {
    Object.assign(messages, found);
  });
  return later;
}

const plurals = new Intl.PluralRules(lang);
const numbers = new Intl.NumberFormat(lang);

/** A number as the language writes it ("12 345", "12,345"). @param {number} value */
export function number(value) {
  return numbers.format(value);
}

/** @param {string} text @param {{[name: string]: unknown}} [params] */
function fill(text, params) {
  if (!params) return text;
  return text.replace(/%\((\w+)\)s/g, (whole, name) =>
    name in params ? String(params[name]) : whole,
  );
}

/** The sentence `id` (English, with `%(name)s` places) in the page's language.
 * @param {string} id @param {{[name: string]: unknown}} [params] */
export function t(id, params) {
  const found = messages[id];
  return fill(typeof found === "string" ? found : id, params);
}

/** The form of `count` ("1 ruch", "2 ruchy", "5 ruchów"); `%(count)s` is the count as the
 * language writes numbers, other places filled from `params`.
 * @param {string} singular @param {string} plural @param {number} count
 * @param {{[name: string]: unknown}} [params] */
export function tn(singular, plural, count, params) {
  const category = plurals.select(count);
  const found = messages[singular];
  let text;
  if (found && typeof found === "object") text = found[category] ?? found.other ?? plural;
  else text = category === "one" ? singular : plural;
  return fill(text, { count: number(count), ...params });
}

/** A time of day as the language writes it ("14:05"). @param {Date} when */
export function timeOfDay(when) {
  return new Intl.DateTimeFormat(lang, { hour: "2-digit", minute: "2-digit" }).format(when);
}
