// The welcome and the lobby: signing in (a new account, or a token from another device),
// the account's language, the day's deals and its countdown, your games in progress,
// practice by code, starting a game or taking one up again.

import { controller as c } from "./controller.js";
import { $, $$, clock, current, setError, setText } from "./dom.js";
import { lang, number, t, tn } from "./i18n.js";
import { joinRoom } from "./room.js";

/** @typedef {import("./net.js").Connection} Connection */
/** @typedef {import("./messages.js").Player} Player */
/** @typedef {import("./messages.js").ServerMessage} ServerMessage */
/** @typedef {import("./messages.js").UnfinishedGame} UnfinishedGame */

// -- signing in -------------------------------------------------------------------------

/** The connection's onOpen: hello, then the account and the game (or room) it was at.
 * @param {Connection} conn */
export async function signIn(conn) {
  const welcome = await conn.early({ type: "hello", version: 1, client: "simon-web", legal: true, lang });
  if (welcome.type !== "welcome") {
    throw new Error(welcome.type === "error" ? welcome.message : t("the server did not say welcome"));
  }
  c.reviewHours = welcome.review_hours ?? null;
  if (!c.token) return;
  const reply = await conn.early({ type: "auth", token: c.token, lang });
  if (reply.type === "error") {
    if (reply.code === "bad-token") {
      c.forgetAccount();
      showWelcome();
      return;
    }
    throw new Error(reply.message);
  }
  if (reply.type === "authenticated") {
    signedIn(reply.player);
    if (await followLanguage(reply.player, (request) => conn.early(request))) return; // reloading
  }
  const gameId = c.gameToResume();
  if (gameId) {
    const resumed = await conn.early({ type: "resume", game: gameId, seq: c.game?.seq ?? 0 });
    if (resumed.type === "error") c.keepGame(null);
  } else {
    const code = c.roomToWatch();
    if (code) {
      const watched = await conn.early({ type: "race_watch", code });
      if (watched.type === "error") c.keepRoom(null);
    }
  }
}

/** @param {Player} player */
function signedIn(player) {
  c.player = player;
  $("[data-account]").hidden = false;
  for (const element of $$("[data-player-name]")) element.textContent = player.name;
  $("[data-player-link]").href = `/player/${encodeURIComponent(player.name)}`;
}

// -- the account's language (docs/protocol.md, "Languages") ------------------------------

/** The tab's note that it reloaded in the account's language: once, never round and round. */
const FOLLOWED = "simon.followed-language";

/** "pl" of "pl-PL", "PL" or "pl_PL.UTF-8", as the server reads a language's name.
 * @param {string | null} name */
function primary(name) {
  return name ? name.trim().replace("_", "-").split("-")[0].split(".")[0].toLowerCase() : null;
}

/** The language the picker's cookie names, if any. */
function cookieLanguage() {
  const found = document.cookie.split(";").map((part) => part.trim()).find((part) => part.startsWith("lang="));
  return found ? primary(decodeURIComponent(found.slice("lang=".length))) : null;
}

/** The device's note of the language it took from the account (a cookie it left itself, which
 * chose nothing). */
const TAKEN = "simon.language-taken";

/** Whether this device chose the page's language: the address's ?lang= or the cookie the
 * pages' picker (/language/X) leaves names it (a name the server does not know chose nothing),
 * unless that cookie is one this page left to follow the account. */
function chosenHere() {
  if (primary(new URLSearchParams(location.search).get("lang")) === lang) return true;
  let taken = null;
  try {
    taken = localStorage.getItem(TAKEN);
  } catch {
    // no storage: every cookie counts as chosen
  }
  return cookieLanguage() === lang && taken !== lang;
}

/** Keep the page's language on the account. @param {Player} player
 * @param {(request: Request) => Promise<ServerMessage>} send */
async function keepLanguage(player, send) {
  const reply = await send({ type: "set_language", lang });
  if (reply.type === "language_set") player.language = reply.lang;
}

/** After signing in: a language chosen on this device goes to the account; with none, the
 * page follows the account's (every device speaks it), reloading in it once.
 * @param {Player} player @param {(request: Request) => Promise<ServerMessage>} send
 * @returns {Promise<boolean>} whether the page is reloading */
async function followLanguage(player, send) {
  if (chosenHere()) {
    if (player.language !== lang) await keepLanguage(player, send);
    return false;
  }
  if (!player.language || player.language === lang) return false;
  return reloadIn(player.language);
}

/** Leave the picker's cookie for `language` and load the page again, in it: once a tab at
 * most, and only when the cookie was kept (with it, the next load has chosen, so it cannot
 * loop). @param {string} language */
function reloadIn(language) {
  try {
    if (sessionStorage.getItem(FOLLOWED) === language) return false;
    sessionStorage.setItem(FOLLOWED, language);
  } catch {
    return false; // no storage: no promise of a single reload
  }
  document.cookie = `lang=${language}; Path=/; Max-Age=31536000; SameSite=Lax`;
  if (cookieLanguage() !== language) return false; // cookies refused: a reload changes nothing
  try {
    localStorage.setItem(TAKEN, language);
  } catch {
    return false;
  }
  location.reload();
  return true;
}

export function showWelcome() {
  c.show("welcome");
  const code = c.approveCode;
  const league = c.leagueCode && t("You are invited to a league: sign in first, then join it.");
  const notice = c.takeNotice() ?? (code && t("A terminal asks to sign in with the code %(code)s: sign in first, then approve it.", { code })) ?? league;
  $("[data-welcome-notice]").textContent = notice || "";
  $("[data-welcome-notice]").hidden = !notice;
  $("[data-form=register] input[name=name]").focus();
}

/** @typedef {import("./messages.js").Registered} Registered */
/** @typedef {import("./messages.js").Authenticated} Authenticated */
/** @typedef {import("./net.js").Request} Request */

/** The welcome forms: a new account (`register`) or a token from another device (`auth`).
 * @param {SubmitEvent} event
 * @param {(fields: any) => Request} message
 * @param {(reply: Registered, fields: any) => string} tokenOf */
async function welcomed(event, message, tokenOf) {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.currentTarget);
  setError(form, "");
  const reply = await c.connection.request(message(form.elements));
  await enterWith(form, reply, reply.type === "error" ? "" : tokenOf(/** @type {Registered} */ (reply), form.elements));
}

/** Signed in by `reply` (`registered`, `authenticated`, or `signed_in` from a passkey or a
 * recovery code), with `token` kept; an `error` is said in `scope`.
 * @param {Element} scope @param {ServerMessage} reply @param {string} token */
export async function enterWith(scope, reply, token) {
  if (reply.type === "error") {
    setError(scope, reply.message);
    return;
  }
  const welcome = /** @type {Registered | Authenticated} */ (reply);
  c.keepToken(token);
  signedIn(welcome.player);
  c.connection.wanted = true;
  const send = (/** @type {Request} */ request) => c.connection.request(request);
  if (welcome.type === "registered") await keepLanguage(welcome.player, send);
  else if (await followLanguage(welcome.player, send)) return; // reloading
  await enterLobby();
}

// -- the lobby --------------------------------------------------------------------------

export async function enterLobby() {
  if (!c.player) return; // the token was refused: the welcome form is up
  if (c.joinCode) {
    const code = c.joinCode;
    c.joinCode = null;
    if (await joinRoom(code)) return;
  }
  if (current() !== "game" && current() !== "room") showLobby();
  if (c.approveCode) import("./devices.js").then(({ openPanel }) => openPanel("terminal"));
  else if (c.leagueCode) {
    const code = c.leagueCode;
    c.leagueCode = null;
    import("./devices.js").then(({ openPanel }) => openPanel("invitation", code));
  }
  await refreshDaily();
}

export async function refreshDaily() {
  const [daily, history, unfinished] = await Promise.all([
    c.connection.request({ type: "daily" }),
    c.connection.request({ type: "history", limit: 20 }),
    c.connection.request({ type: "unfinished" }),
  ]);
  if (unfinished.type === "unfinished") renderGames(unfinished.games);
  if (daily.type === "daily") {
    c.daily = daily;
    c.dayEnds = Date.now() + daily.seconds_left * 1000;
  }
  if (history.type === "history") c.history = history;
  renderDaily();
}

let provingCheck = 0; // a deal being proven opens at the server's daily_changed; asked again, should it be missed

export function showLobby() {
  // what was refused before the player left the lobby no longer applies
  for (const error of $$("[data-view=lobby] [data-error]")) error.textContent = "";
  c.show("lobby");
  $("[data-action=back-to-game]").hidden = !c.game || c.game.finished;
}

/** "The day (UTC) ends in 3:42:17.", counted down from the server's `seconds_left`; at the
 * end the new day's deals are asked for. */
function dayLeft() {
  if (!c.dayEnds) return;
  const left = Math.max(0, Math.ceil((c.dayEnds - Date.now()) / 1000));
  setText($("[data-day-left]"), t("The day (UTC) ends in %(time)s.", { time: clock(left) }));
  if (left === 0) {
    c.dayEnds = null;
    setTimeout(refreshDaily, 1000);
  }
}

/** The day's board a player's daily of `suits` is on: the new players' while their
 * dailies go there (a result under review is on neither yet: the public board is shown).
 * @param {string} day @param {number} suits */
function dayBoard(day, suits) {
  const played = playedDaily(day, suits);
  const board = played?.board === "new" && played.review !== "held" ? "&board=new" : "";
  return `/day/${day}?suits=${suits}${board}`;
}

/** @param {string} day @param {number} suits */
function playedDaily(day, suits) {
  return (c.history?.games ?? []).find(
    (game) => game.mode === "daily" && game.day === day && game.suits === suits,
  );
}

function renderDaily() {
  const daily = c.daily;
  if (!daily) return;
  dayLeft();
  for (const deal of daily.deals) {
    const button = $(`[data-start="daily"][data-suits="${deal.suits}"]`);
    if (!button) continue;
    const played = playedDaily(daily.day, deal.suits);
    let state = t("Play");
    button.dataset.played = "false";
    button.disabled = deal.ready === false;
    if (deal.ready === false) {
      state = t("Being proven · opens by itself in a moment");
      provingCheck ||= setTimeout(() => (provingCheck = 0) || refreshDaily(), 15000);
    } else if (deal.finished) {
      button.dataset.played = "true";
      const rank = { rank: number(played?.rank ?? 0) };
      if (played?.review === "held") state = t("Played · under review");
      else if (played?.rank && played.board === "new") state = t("Played · rank %(rank)s of new players · see the board", rank);
      else if (played?.rank) state = t("Played · rank %(rank)s · see the board", rank);
      else state = t("Played · see the board");
    } else if (deal.started) {
      state = t("Continue");
    }
    $("[data-state]", button).textContent = state;
  }
}

/** @param {string} mode @param {number} suits @param {string} [code] */
async function start(mode, suits, code) {
  // a code names its own suit count: a malformed one is refused for what is wrong with it
  const message = code ? { type: "start", mode, code } : { type: "start", mode, suits };
  const panel = $(`[data-start="${mode}"]`).closest(".panel, .daily-panel");
  setError(panel, "");
  const reply = await c.connection.requestNow(message);
  if (reply.type === "error") {
    if (reply.code === "already-played") {
      location.href = dayBoard(c.daily?.day ?? "", suits);
      return;
    }
    setError(panel, reply.message);
  }
}

// -- your games in progress ----------------------------------------------------------------

/** The games you can take up again, each a button (`[data-resume]` with its id); none: the
 * list is not shown. @param {UnfinishedGame[]} games */
function renderGames(games) {
  $("[data-games-list]").replaceChildren(...games.map(gameItem));
  $("[data-games]").hidden = !games.length;
}

/** @param {UnfinishedGame} game */
function gameItem(game) {
  const suits = tn("%(count)s suit", "%(count)s suits", game.suits);
  let name = t("Practice · %(suits)s", { suits });
  if (game.race) name = t("Race %(code)s · %(suits)s", { code: game.race, suits });
  else if (game.mode === "daily") name = t("Daily · %(suits)s", { suits });
  const moves = tn("%(count)s move", "%(count)s moves", game.moves);
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.resume = game.game;
  button.append(
    part("game-name", name),
    part("game-when", startedAt(new Date(game.started))),
    part("game-about", game.code ? `${game.code} · ${moves}` : moves),
  );
  const item = document.createElement("li");
  item.append(button);
  return item;
}

/** @param {string} kind @param {string} text */
function part(kind, text) {
  const span = document.createElement("span");
  span.className = kind;
  span.textContent = text;
  return span;
}

/** When a game was started: the time today, else the day and time. @param {Date} when */
function startedAt(when) {
  const today = when.toDateString() === new Date().toDateString();
  const format = today ? { timeStyle: "short" } : { dateStyle: "medium", timeStyle: "short" };
  return new Intl.DateTimeFormat(lang, /** @type {Intl.DateTimeFormatOptions} */ (format)).format(when);
}

/** Take game `id` up again, at the table. @param {string} id */
async function resume(id) {
  const panel = $("[data-games]");
  setError(panel, "");
  const seq = c.game?.id === id ? c.game.seq : 0;
  const reply = await c.connection.requestNow({ type: "resume", game: id, seq });
  if (reply.type === "error") {
    setError(panel, reply.message);
    refreshDaily(); // it may be over by now
    return;
  }
  // the game's state is on the table (table.js), behind the lobby: shown now
  if (current() === "lobby") {
    c.show("game");
    c.board.focus(c.board.focused);
  }
}

/** The welcome's forms, the lobby's buttons, the day's countdown. */
export function setupLobby() {
  // the day's countdown ticks only while the lobby shows it
  let dayTimer = 0;
  c.onShow((name) => {
    clearInterval(dayTimer);
    dayTimer = name === "lobby" ? setInterval(dayLeft, 1000) : 0;
    if (name === "lobby") dayLeft();
  });
  $("[data-form=register]").addEventListener("submit", (/** @type {SubmitEvent} */ event) =>
    welcomed(
      event,
      (fields) => ({ type: "register", name: fields.name.value.trim() }),
      (reply) => reply.token,
    ),
  );
  $("[data-form=sign-in]").addEventListener("submit", (/** @type {SubmitEvent} */ event) =>
    welcomed(
      event,
      (fields) => ({ type: "auth", token: fields.token.value.trim(), lang }),
      (_, fields) => fields.token.value.trim(),
    ),
  );
  for (const button of $$("[data-start]")) {
    button.addEventListener("click", () => {
      const suits = Number(button.dataset.suits);
      if (button.dataset.start === "daily" && button.dataset.played === "true" && c.daily) {
        location.href = dayBoard(c.daily.day, suits);
        return;
      }
      start(button.dataset.start, suits);
    });
  }
  $("[data-games-list]").addEventListener("click", (/** @type {MouseEvent} */ event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest("[data-resume]");
    if (button instanceof HTMLElement) resume(button.dataset.resume);
  });
  $("[data-form=practice-code]").addEventListener("submit", (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    const form = /** @type {HTMLFormElement} */ (event.currentTarget);
    const code = /** @type {any} */ (form.elements).code.value.trim().toUpperCase();
    start("practice", Number(code.match(/-S(\d)-/)?.[1] ?? 1), code);
  });
}
