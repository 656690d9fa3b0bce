// The account menu (the player's name, top right) and what it sets: who you are, the token for
// another device, signing out; the player's settings in one place (the settings dialog: the
// four-colour pack, auto placement, sound and the cards' size), kept in the browser
// (localStorage) and, signed in, on the account (`set_settings`, docs/protocol.md "Settings"),
// so another device has them: the account's win when it signs in, and a setting this browser
// changed that the account never had goes to it; and sound, off until the player turns it on,
// for a pick-up, a drop, a run removed and a win. The tones are a module of their own
// (tones.js), loaded only once sound is on: a page with sound off loads no audio code and makes
// no AudioContext. One module for the menu, so that a first visit fetches one file for it.

import { controller as c } from "./controller.js";
import { $, $$, click, copyText } from "./dom.js";
import { t } from "./i18n.js";

// -- the menu ---------------------------------------------------------------------------

/** @param {object} account token() -> the token kept, signOut() */
export function setupAccountMenu(account) {
  const accountButton = $("[data-action=account]");
  const menu = $("#account-menu");
  function closeMenu() {
    menu.hidden = true;
    accountButton.setAttribute("aria-expanded", "false");
  }
  accountButton.addEventListener("click", () => {
    menu.hidden = !menu.hidden;
    accountButton.setAttribute("aria-expanded", String(!menu.hidden));
  });
  document.addEventListener("click", (event) => {
    if (!menu.hidden && !/** @type {Element} */ (event.target).closest("[data-account]")) closeMenu();
  });
  click("[data-action=device]", () => {
    closeMenu();
    $("[data-token]").textContent = account.token() ?? "";
    $("[data-token-box]").hidden = false;
    $("[data-action=copy-token]").focus();
  });
  click("[data-action=copy-token]", (event) =>
    copyText(account.token() ?? "", event.currentTarget, $("[data-token]")),
  );
  function closeToken() {
    $("[data-token]").textContent = "";
    $("[data-token-box]").hidden = true;
    accountButton.focus();
  }
  click("[data-action=close-token]", closeToken);
  // Esc closes what is open, the token first (it is over everything), and the focus goes back
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    if (!$("[data-token-box]").hidden) closeToken();
    else if (!menu.hidden) {
      closeMenu();
      accountButton.focus();
    } else return;
    event.preventDefault();
    event.stopImmediatePropagation();
  });
  click("[data-action=sign-out]", () => {
    const question = t('Sign out of this browser? Sign in again with your token ("Use on another device" shows it).');
    if (!confirm(question)) return;
    account.signOut();
  });
}

// -- the settings -----------------------------------------------------------------------

/** @typedef {import("./messages.js").Player} Player */
/** @typedef {import("./messages.js").PlayerSettings} PlayerSettings */
/** @typedef {{four_colour: boolean, auto_place: boolean, sound: boolean, card_size: "normal" | "large"}} Settings */

const KEY = "simon.settings";
/** The four-colour pack's own key, from before the settings were kept together. */
const OLD_FOUR_COLOUR = "simon.four-colour";

/** Every setting at its default: off, and cards of the normal size (the reference app's). */
/** @type {Readonly<Settings>} */
export const DEFAULTS = Object.freeze({ four_colour: false, auto_place: false, sound: false, card_size: "normal" });

/** @type {Settings} the settings as they stand */
export const settings = { ...DEFAULTS, ...kept() };

/** @type {((settings: Settings) => void)[]} */
const hooks = [];
/** set_settings sent and not answered yet: the account's answer is taken once none is. */
let sending = 0;

/** What this browser kept: only the known names, each of its own type. */
function kept() {
  /** @type {{[name: string]: unknown}} */
  let stored = {};
  try {
    stored = JSON.parse(localStorage.getItem(KEY) ?? "{}") ?? {};
  } catch {
    stored = {};
  }
  const old = localStorage.getItem(OLD_FOUR_COLOUR);
  if (old !== null && !("four_colour" in stored)) stored.four_colour = old === "1";
  return valid(stored);
}

/** The settings of `given` this page knows, each a value it takes.
 * @param {{[name: string]: unknown} | null | undefined} given @returns {Partial<Settings>} */
function valid(given) {
  /** @type {{[name: string]: unknown}} */
  const found = {};
  for (const [name, value] of Object.entries(given ?? {})) {
    if (!Object.hasOwn(DEFAULTS, name)) continue;
    if (name === "card_size" ? value === "normal" || value === "large" : typeof value === "boolean") found[name] = value;
  }
  return found;
}

function save() {
  localStorage.setItem(KEY, JSON.stringify(settings));
  localStorage.removeItem(OLD_FOUR_COLOUR);
}

/** Call `hook` with the settings now and whenever they change. @param {(settings: Settings) => void} hook */
export function onSettings(hook) {
  hooks.push(hook);
  hook(settings);
}

/** Show the settings: on the page, and in the dialog's controls. */
function apply() {
  document.body.classList.toggle("four-colour", settings.four_colour);
  const large = settings.card_size === "large";
  if (document.body.classList.contains("large-cards") !== large) {
    document.body.classList.toggle("large-cards", large);
    c.board.layout();
  }
  for (const input of /** @type {HTMLInputElement[]} */ ($$("[data-setting]"))) {
    const name = input.dataset.setting;
    if (input.type === "radio") input.checked = settings[name] === input.value;
    else input.checked = Boolean(settings[name]);
  }
  for (const hook of hooks) hook(settings);
}

/** The player changed one: kept here, and on the account when signed in.
 * @template {keyof Settings} K @param {K} name @param {Settings[K]} value */
export function change(name, value) {
  settings[name] = value;
  save();
  apply();
  if (c.player) send({ [name]: value });
}

/** @param {PlayerSettings} some */
function send(some) {
  sending += 1;
  c.connection.request({ type: "set_settings", settings: some }).then((reply) => {
    sending -= 1;
    if (reply.type === "settings_set" && sending === 0) take(reply.settings, false);
  });
}

/** The account's settings (`settings_set`, or `player.settings` when it signs in): they
 * win; with `share`, those it never had and this browser changed go to it.
 * @param {PlayerSettings | null | undefined} account @param {boolean} share */
function take(account, share) {
  const theirs = valid(account);
  /** @type {{[name: string]: unknown}} */
  const ours = {};
  for (const name of Object.keys(DEFAULTS)) {
    if (Object.hasOwn(theirs, name)) settings[name] = theirs[name];
    else if (share && settings[name] !== DEFAULTS[name]) ours[name] = settings[name];
    else if (!share) settings[name] = DEFAULTS[name];
  }
  save();
  apply();
  if (Object.keys(ours).length) send(ours);
}

/** Signed in (`registered`, `authenticated`): the account's settings. @param {Player} player */
export function followAccount(player) {
  take(player.settings, true);
}

/** The account's settings, as `settings_set` says them all (while none is on its way).
 * @param {PlayerSettings} account */
export function settingsSet(account) {
  if (sending === 0) take(account, false);
}

function closeSettings() {
  $("[data-settings-box]").hidden = true;
  $("[data-action=account]").focus();
}

/** The dialog's controls, its Esc, and the settings shown from the start. */
export function setupSettings() {
  for (const input of /** @type {HTMLInputElement[]} */ ($$("[data-setting]"))) {
    const name = /** @type {keyof Settings} */ (input.dataset.setting);
    input.addEventListener("change", () => {
      if (input.type === "radio") {
        if (input.checked) change(name, /** @type {"normal" | "large"} */ (input.value));
      } else change(name, input.checked);
    });
  }
  click("[data-action=settings]", () => {
    $("#account-menu").hidden = true;
    $("[data-action=account]").setAttribute("aria-expanded", "false");
    $("[data-settings-box]").hidden = false;
    /** @type {HTMLElement} */ ($("[data-settings-box] [data-setting]")).focus();
  });
  click("[data-action=close-settings]", closeSettings);
  $("[data-settings-box]").addEventListener("click", (event) => {
    if (event.target === event.currentTarget) closeSettings(); // a click beside the dialog
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || $("[data-settings-box]").hidden) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    closeSettings();
  });
  apply();
}

// -- sound ------------------------------------------------------------------------------

/** @type {typeof import("./tones.js") | null} */
let tones = null;
let on = false;

/** @param {"pickUp" | "drop" | "run" | "win"} name */
function play(name) {
  if (!on) return;
  if (tones) {
    tones.play(name);
    return;
  }
  // the first sound waits for its module (a few milliseconds, then cached like the others)
  import("./tones.js").then(
    (loaded) => {
      tones = loaded;
      if (on) loaded.play(name);
    },
    () => {}, // offline with the module never fetched: no sound, nothing else lost
  );
}

/** The sounds: silent while sound is off. */
export const sound = {
  pickUp: () => play("pickUp"),
  drop: () => play("drop"),
  run: () => play("run"),
  win: () => play("win"),
};

export function setupSound() {
  onSettings((settings) => {
    on = settings.sound;
    if (!on) tones?.suspend();
  });
  // made in the click that turns sound on (a page may start audio only after a gesture);
  // when the settings come with sound on, at the first sound, which follows the player's hand
  $("[data-setting=sound]").addEventListener("change", () => {
    if (on) sound.drop();
  });
}
