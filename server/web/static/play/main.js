// Simple Simon in the browser: the page's wiring. The server is the judge of every move
// (the same websocket protocol as the terminal client); this page shows the game, sends
// what the player does, and shows the server's answers. The state is the controller's
// (controller.js); the server's messages go to the views by their type (HANDLERS).

import { setupControls } from "./controls.js";
import { controller as c } from "./controller.js";
import { $, click, installServiceWorker, refuse } from "./dom.js";
import { lang, t } from "./i18n.js";
import { enterLobby, enterWith, refreshDaily, setupLobby, showWelcome, signIn } from "./lobby.js";
import { drawBeforeHandling, finished, refused, settled, setupResult, takeState, tick } from "./table.js";
import { digestCame, raceUpdated, roomChanged, setupRoom } from "./room.js";
import { followAccount, settingsSet, setupAccountMenu, setupSettings, setupSound, sound } from "./account.js";

/** @typedef {import("./messages.js").ServerMessage} ServerMessage */
/** @typedef {import("./net.js").Request} Request */

/** The requests that are game actions: a refusal of one is shown at the table. */
const ACTIONS = new Set(["move", "auto", "undo", "restart", "resign"]);

/** Nothing more to do: the reply is read where it was asked for (a request's promise). */
const answered = () => {};

/** What the page does with each message type the server sends (docs/protocol.md); a type
 * not in here is logged, not dropped in silence.
 * @type {{[type: string]: (message: any, request?: Request) => void}} */
const HANDLERS = {
  state: (message, request) => takeState(message.state, request),
  moved: (message) => {
    settled(message);
    if (message.removed_run) sound.run();
    else sound.drop();
  },
  finished: (message) => finished(message),
  error: (message, request) => {
    if (request && ACTIONS.has(request.type)) refused(message, request);
    else if (message.code === "stale-game") refuse(message.message);
  },
  race_room: (message) => roomChanged(message),
  race_update: (message) => raceUpdated(message),
  race_digest: (message) => digestCame(message),
  race: (message) => digestCame(message),
  daily_changed: () => {
    if (c.player) refreshDaily();
  },
  welcome: answered,
  registered: (message) => followAccount(message.player),
  authenticated: (message) => followAccount(message.player),
  language_set: answered,
  settings_set: (message) => settingsSet(message.settings),
  targets: answered,
  daily: answered,
  history: answered,
  unfinished: answered,
  pong: answered,
  signed_in: answered,
  signed_out: (message) =>
    c.leave(
      message.reason === "deleted"
        ? t("Your account is deleted: this device is signed out.")
        : t("This device was signed out from another of your devices. Sign in again to play as you."),
    ),
  devices: answered,
  token_rotated: answered,
  recovery_codes: answered,
  passkey_options: answered,
  device_request: answered,
  device_approved: answered,
  account_deleted: answered,
  following: answered,
  leaderboard: answered,
  leagues: answered,
  league: answered,
  friend_finished: (message) => import("./friends.js").then(({ friendFinished }) => friendFinished(message)),
};

/** A move's send to its answer read, undrawn as simon's (bench/play_page.py). @param {Request} request */
function measureMove(request) {
  const sent = `simon:sent:${request.id}`;
  if (performance.getEntriesByName(sent).length) {
    performance.measure("simon:move", sent);
    performance.clearMarks(sent);
  }
}

/** @param {ServerMessage} message @param {Request} [request] the message it answers */
function received(message, request) {
  if (message.type === "moved" && request) measureMove(request);
  drawBeforeHandling(message, request);
  const handler = Object.hasOwn(HANDLERS, message.type) ? HANDLERS[message.type] : undefined;
  if (handler) handler(message, request);
  else console.warn("simon: a message of an unknown type", message.type, message);
}

const connection = c.connect({
  onOpen: signIn,
  onMessage: received,
  onStatus: (text) => {
    $("[data-connection]").textContent = text;
  },
});

// the order of the keys' listeners counts: the table's keys, then the result's Esc, then
// the account menu's (which stops Esc once it has closed something)
setupLobby();
setupRoom();
setupControls();
setupResult();
setupAccountMenu({
  token: () => c.token,
  signOut() {
    c.forgetAccount();
    location.reload();
  },
});
setupSettings();
setupSound();
// the account's panels (passkeys, devices, codes, a terminal, its data): a module loaded at the first
for (const button of document.querySelectorAll("[data-panel]")) {
  const name = /** @type {HTMLElement} */ (button).dataset.panel;
  button.addEventListener("click", () => import("./devices.js").then(({ openPanel }) => openPanel(name)));
}
// the welcome's other ways in: a passkey (its module loaded when asked), a recovery code
click("[data-action=passkey-sign-in]", async () => {
  const scope = $("[data-passkey-sign-in]");
  const { usePasskey } = await import("./passkey.js");
  const reply = await usePasskey("sign_in", (credential) => ({ type: "passkey_sign_in", credential, lang }));
  await enterWith(scope, reply, reply.type === "signed_in" ? reply.token : "");
});
$("[data-form=recover]").addEventListener("submit", async (/** @type {SubmitEvent} */ event) => {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.currentTarget);
  const code = /** @type {any} */ (form.elements).code.value.trim().toUpperCase();
  const reply = await c.connection.request({ type: "recover", code, lang });
  await enterWith(form, reply, reply.type === "signed_in" ? reply.token : "");
});
if (!window.PublicKeyCredential) $("[data-passkey-sign-in]").hidden = true;
installServiceWorker();

setInterval(tick, 250);

// the lobby's friends' boards of today (friends.js, loaded once signed in and in the lobby)
c.onShow((name) => {
  const part = /** @type {HTMLElement} */ ($("[data-lobby-friends]"));
  part.hidden = !c.player;
  if (name === "lobby" && c.player) import("./friends.js").then(({ friendsToday }) => friendsToday(/** @type {HTMLElement} */ ($("[data-friends-boards]"))));
});

// -- start ------------------------------------------------------------------------------

if (c.token) {
  $("[data-connection]").textContent = t("Connecting…");
  connection.open();
  connection.request({ type: "ping" }).then(() => enterLobby());
} else {
  connection.wanted = false;
  showWelcome();
}
