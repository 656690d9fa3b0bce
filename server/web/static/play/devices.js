// The account's panels, loaded the first time one is opened from the account menu: the
// passkeys (add one, remove one), the devices signed in (revoke one, or every other), the
// recovery codes (ten new ones, shown once); the terminal's approval, the account's data and
// its deletion are account-data.js's. One dialog (`[data-panel-box]`) shows one panel at a
// time, drawn afresh from the server's `devices` each time it opens.

import { controller as c } from "./controller.js";
import { $, copyText, laterStyles, setError } from "./dom.js";
import { lang, laterWords, t, tn } from "./i18n.js";
import { dataPanel, terminalPanel } from "./account-data.js";
import { passkeysHere, usePasskey } from "./passkey.js";

await Promise.all([laterWords(), laterStyles()]); // this module's words and styles

/** @typedef {import("./messages.js").Devices} Devices */
/** @typedef {import("./messages.js").ServerMessage} ServerMessage */
/** @typedef {(body: HTMLElement, given?: any) => void | Promise<void>} Panel */

const box = $("[data-panel-box]");
const body = $("[data-panel-body]");
/** @type {(() => void)[]} what a panel stops when it closes (a countdown) */
const leaving = [];

/** An element: `tag.class`, its attributes, its children (text or elements).
 * @param {string} tag @param {{[name: string]: string | boolean | undefined} | null} [attributes]
 * @param {(Node | string | null | undefined | false)[]} children @returns {any} */
export function el(tag, attributes, ...children) {
  const [name, ...classes] = tag.split(".");
  const element = document.createElement(name);
  if (classes.length) element.className = classes.join(" ");
  for (const [key, value] of Object.entries(attributes ?? {})) {
    if (value === true) element.setAttribute(key, "");
    else if (value !== false && value !== undefined) element.setAttribute(key, value);
  }
  for (const child of children) if (child || child === "") element.append(child);
  if (name === "button" && !element.hasAttribute("type")) element.setAttribute("type", "button");
  return element;
}

/** A date and time as the language writes them. @param {string} iso */
export function when(iso) {
  return new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
}

/** The place a panel's errors are said. */
export const errorLine = () => el("p.form-error", { "data-error": true, "aria-live": "assertive" });

/** Run `leave` when the panel closes. @param {() => void} leave */
export function onLeave(leave) {
  leaving.push(leave);
}

/** The account's devices, passkeys and codes left, or the error said in `scope`.
 * @param {HTMLElement} scope @returns {Promise<Devices | null>} */
async function devices(scope) {
  const reply = await c.connection.request({ type: "devices" });
  if (reply.type === "devices") return reply;
  if (reply.type === "error") setError(scope, reply.message);
  return null;
}

// -- passkeys ----------------------------------------------------------------------------

/** @type {Panel} */
async function passkeysPanel(panel) {
  const list = el("ul.account-list", { "data-passkeys": true });
  const name = el("input", { name: "name", id: "passkey-name", maxlength: "64", required: true, autocomplete: "off" });
  const add = el("button", { type: "submit" }, t("Add a passkey"));
  const form = el(
    "form",
    { "data-form": "add-passkey" },
    el("label", { for: "passkey-name" }, t("A name for this device's passkey")),
    el("div.row", null, name, add),
  );
  const can = passkeysHere();
  add.disabled = !can;
  panel.append(
    el("p.hint", null, t("A passkey signs you in with this device's screen lock, fingerprint or face: no token to keep, and it still works after the browser's data is cleared.")),
    list,
    form,
    el("p.hint", { hidden: can }, t("This browser cannot make passkeys.")),
    errorLine(),
  );
  /** @param {Devices} found */
  const draw = (found) => {
    const items = found.passkeys.map((key) =>
      el(
        "li",
        { "data-passkey": String(key.id) },
        el("strong", null, key.name),
        el("span.hint", null, t("Added %(when)s", { when: when(key.created) })),
        el("span.hint", null, key.last_used ? t("Last used %(when)s", { when: when(key.last_used) }) : t("Not used yet")),
        el("button", { "data-remove-passkey": String(key.id) }, t("Remove")),
      ),
    );
    list.replaceChildren(...(items.length ? items : [el("li.hint", null, t("No passkeys yet."))]));
  };
  const found = await devices(panel);
  if (found) {
    draw(found);
    // this device as the server names it ("Firefox 133 · Linux"); the player may change it
    name.value = found.credentials.find((place) => place.current)?.device ?? "";
  }
  form.addEventListener("submit", async (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    setError(panel, "");
    add.disabled = true;
    const reply = await usePasskey("add", (credential) => ({ type: "passkey_add", name: name.value.trim(), credential }));
    add.disabled = false;
    if (reply.type === "devices") draw(reply);
    else if (reply.type === "error") setError(panel, reply.message);
  });
  list.addEventListener("click", async (/** @type {MouseEvent} */ event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest("[data-remove-passkey]");
    if (!(button instanceof HTMLElement)) return;
    if (!confirm(t("Remove this passkey? It will no longer sign you in."))) return;
    const reply = await c.connection.request({ type: "passkey_remove", passkey: Number(button.dataset.removePasskey) });
    if (reply.type === "devices") draw(reply);
    else if (reply.type === "error") setError(panel, reply.message);
  });
}

// -- where the account is signed in ------------------------------------------------------

/** How a place was signed in, in words. @param {string} kind */
function kindName(kind) {
  /** @type {{[kind: string]: string}} */
  const names = {
    registration: t("Signed up here"),
    rotation: t("A new token"),
    passkey: t("A passkey"),
    terminal: t("A terminal's code"),
    recovery: t("A recovery code"),
  };
  return names[kind] ?? kind;
}

/** @type {Panel} */
async function devicesPanel(panel) {
  const list = el("ul.account-list", { "data-devices": true });
  const others = el("button", { "data-action": "revoke-others" }, t("Sign out everywhere else"));
  panel.append(
    el("p.hint", null, t("Where your account is signed in. Sign out a place you do not know or no longer use: it is signed out at once.")),
    list,
    el("div.row", null, others),
    errorLine(),
  );
  /** @param {Devices} found */
  const draw = (found) => {
    list.replaceChildren(
      ...found.credentials.map((place) =>
        el(
          "li",
          { "data-credential": String(place.id), "data-current": String(Boolean(place.current)) },
          el("strong", null, place.device),
          place.current && el("span.badge", null, t("this device")),
          el("span.hint", null, kindName(place.kind)),
          el("span.hint", null, t("Signed in %(when)s from %(address)s", { when: when(place.created), address: place.created_from })),
          el("span.hint", null, t("Last used %(when)s from %(address)s", { when: when(place.last_used), address: place.last_used_from })),
          !place.current && el("button", { "data-revoke": String(place.id) }, t("Sign out there")),
        ),
      ),
    );
    others.hidden = !found.credentials.some((place) => !place.current);
  };
  const found = await devices(panel);
  if (found) draw(found);
  /** @param {ServerMessage} reply */
  const after = (reply) => {
    if (reply.type === "devices") draw(reply);
    else if (reply.type === "error") setError(panel, reply.message);
  };
  list.addEventListener("click", async (/** @type {MouseEvent} */ event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest("[data-revoke]");
    if (!(button instanceof HTMLElement)) return;
    setError(panel, "");
    after(await c.connection.request({ type: "revoke", credential: Number(button.dataset.revoke) }));
  });
  others.addEventListener("click", async () => {
    if (!confirm(t("Sign out everywhere but on this device?"))) return;
    setError(panel, "");
    after(await c.connection.request({ type: "revoke", others: true }));
  });
}

// -- recovery codes ----------------------------------------------------------------------

/** @type {Panel} */
async function recoveryPanel(panel) {
  const left = el("p", { "data-codes-left": true });
  const make = el("button", { "data-action": "make-codes" }, t("Make 10 new codes"));
  const shown = el("div", { "data-codes-shown": true });
  panel.append(
    el("p.hint", null, t("A recovery code signs you in when no device of yours is signed in any more and you have no passkey: each code works once.")),
    left,
    el("div.row", null, make),
    shown,
    errorLine(),
  );
  const found = await devices(panel);
  const count = found?.recovery_codes_left ?? 0;
  if (found) {
    left.textContent = count
      ? tn("You have %(count)s unused code.", "You have %(count)s unused codes.", count)
      : t("You have no recovery codes.");
  }
  make.addEventListener("click", async () => {
    if (count && !confirm(t("Make new codes? The codes you have now stop working."))) return;
    setError(panel, "");
    const reply = await c.connection.request({ type: "recovery_codes" });
    if (reply.type === "error") {
      setError(panel, reply.message);
      return;
    }
    if (reply.type !== "recovery_codes") return;
    const codes = el("ol.recovery-codes", null, ...reply.codes.map((code) => el("li", null, el("code", null, code))));
    const copy = el("button", { "data-action": "copy-codes" }, t("Copy"));
    copy.addEventListener("click", () => copyText(reply.codes.join("\n"), copy, codes));
    const print = el("button", { "data-action": "print-codes" }, t("Print"));
    print.addEventListener("click", () => window.print());
    left.textContent = "";
    make.hidden = true;
    shown.replaceChildren(
      el("p.warning", { role: "alert" }, t("Shown this once: print them or write them down now, and keep them somewhere safe. Anyone who has one can sign in as you.")),
      codes,
      el("div.row", null, print, copy),
    );
    print.focus();
  });
}

// -- the dialog --------------------------------------------------------------------------

/** @type {{[name: string]: [() => string, Panel]}} */
const PANELS = {
  passkeys: [() => t("Passkeys"), passkeysPanel],
  devices: [() => t("Devices"), devicesPanel],
  recovery: [() => t("Recovery codes"), recoveryPanel],
  terminal: [() => t("Approve a terminal"), terminalPanel],
  data: [() => t("Your data"), dataPanel],
  // friends and leagues: modules of their own, loaded when first opened
  friends: [() => t("Friends"), (panel) => import("./friends.js").then((m) => m.friendsPanel(panel))],
  leagues: [() => t("Leagues"), (panel) => import("./leagues.js").then((m) => m.leaguesPanel(panel))],
  league: [() => t("League"), (panel, given) => import("./leagues.js").then((m) => m.leaguePanel(panel, given))],
  invitation: [() => t("League"), (panel, code) => import("./leagues.js").then((m) => m.invitationPanel(panel, code))],
};

/** Open the panel `name` over the page (the account menu closed).
 * @param {string} name @param {any} [given] what the panel is of (a league's code) */
export async function openPanel(name, given) {
  closePanel(false);
  $("#account-menu").hidden = true;
  $("[data-action=account]").setAttribute("aria-expanded", "false");
  const [title, draw] = PANELS[name];
  $("[data-panel-title]").textContent = title();
  box.dataset.open = name;
  box.hidden = false;
  const panel = el("div", { "data-panel-content": name });
  body.replaceChildren(panel);
  await draw(panel, given);
  if (!box.hidden) /** @type {HTMLElement | null} */ (panel.querySelector("input, button:not([disabled])") ?? $("[data-action=close-panel]"))?.focus();
}

/** @param {boolean} [focus] the focus back to the account's button */
function closePanel(focus = true) {
  for (const leave of leaving.splice(0)) leave();
  if (box.hidden) return;
  box.hidden = true;
  delete box.dataset.open;
  body.replaceChildren();
  if (focus) $("[data-action=account]").focus();
}

$("[data-action=close-panel]").addEventListener("click", () => closePanel());
box.addEventListener("click", (event) => {
  if (event.target === event.currentTarget) closePanel(); // a click beside the dialog
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape" || box.hidden) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  closePanel();
});
