// The page's elements: finding them, showing one view, saying things to the player.

import { t } from "./i18n.js";

export const $ = (selector, scope = document) => scope.querySelector(selector);
export const $$ = (selector, scope = document) => Array.from(scope.querySelectorAll(selector));

/** Show one view (`[data-view]`): welcome, lobby, room or game. */
export function show(name) {
  if (!document.body.dataset.screen) performance.mark("simon:ready"); // the first view shown
  for (const view of $$("section[data-view]")) view.hidden = view.dataset.view !== name;
  document.body.dataset.screen = name;
}

export function current() {
  return document.body.dataset.screen;
}

/** A duration as a clock reads: "4:05", "1:04:05" (the server's formats.clock alike); the
 * play page's clocks and app.js's countdowns. @param {number} seconds */
export function clock(seconds) {
  const whole = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const secs = String(whole % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${secs}` : `${minutes}:${secs}`;
}

export function setError(scope, text) {
  const element = $("[data-error]", scope);
  if (element) element.textContent = text;
}

/** Write `text` into `element` only when it differs: writing the same text again is still a
 * change that costs a frame. */
export function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

export function announce(text) {
  $("[data-announce]").textContent = text;
}

/** A refused move's rule, in the page's one alert. */
export function refuse(text) {
  const alert = $("[data-refusal]");
  alert.textContent = "";
  alert.classList.remove("faded");
  clearTimeout(refusalTimer);
  // a fresh text each time, so the same rule twice is announced twice
  requestAnimationFrame(() => {
    alert.textContent = text;
    // on a phone it shows over the top bar: it fades once read (play.css)
    refusalTimer = setTimeout(() => alert.classList.add("faded"), REFUSAL_FADES);
  });
}

const REFUSAL_FADES = 5000; // ms
let refusalTimer = 0;

export function clearRefusal() {
  clearTimeout(refusalTimer);
  $("[data-refusal]").textContent = "";
}

/** Copy `text` for the player and say so on `button` for a moment; where the page may not
 * write the clipboard (a plain http address), select `element`'s text for them instead. */
export async function copyText(text, button, element) {
  const label = (button.dataset.label ??= button.textContent);
  let said = t("Copied");
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const range = document.createRange();
    range.selectNodeContents(element);
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    said = t("Selected: copy it");
  }
  button.textContent = said;
  setTimeout(() => {
    button.textContent = label;
  }, 2000);
}

export function click(selector, handler) {
  for (const element of $$(selector)) element.addEventListener("click", handler);
}

/** Install the service worker (sw.js): the app shell kept, and an offline visit told so. Called
 * by each page's entry (main.js, app.js), so that no page fetches a module for it alone.
 * updateViaCache "all": the worker's own update check is answered by the HTTP cache for a day
 * (its Cache-Control), so that a repeat visit asks the network for nothing unchanged. */
export function installServiceWorker() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register("/sw.js", { updateViaCache: "all" }).catch((error) => {
    console.warn("service worker not installed", error);
  });
}

/** @type {Promise<void> | null} */
let laterSheet = null;

/** The styles of the modules loaded when needed (play/later.css, the stylesheet play.css's link
 * names in data-later), added to the page once: such a module awaits them before it draws. */
export function laterStyles() {
  laterSheet ??= new Promise((resolve) => {
    /** @type {HTMLLinkElement | null} */
    const first = document.querySelector("link[rel=stylesheet][data-later]");
    if (!first?.dataset.later) return resolve();
    const sheet = document.createElement("link");
    sheet.rel = "stylesheet";
    sheet.href = first.dataset.later;
    sheet.addEventListener("load", () => resolve());
    sheet.addEventListener("error", () => resolve()); // offline: unstyled rather than stuck
    document.head.append(sheet);
  });
  return laterSheet;
}
