// Races on the page: the waiting room (its code and link, who is in, how it starts), the
// standings beside the table (the room's racers, or the daily race's leaders), joining,
// leaving and rematches. race.js keeps the room's newest view.

import { controller as c } from "./controller.js";
import { $, announce, click, clock, refuse, setError, setText } from "./dom.js";
import { number, t } from "./i18n.js";
import { racerLine, racerName } from "./race.js";
import { hideResult, renderGame, showResult } from "./table.js";

/** @typedef {import("./messages.js").RaceRoom} RaceRoom */
/** @typedef {import("./messages.js").RaceUpdate} RaceUpdate */
/** @typedef {import("./messages.js").RaceBoard} RaceBoard */
/** @typedef {import("./messages.js").RoomEntry} RoomEntry */

/** The waiting room (drawn by room-view.js, a module loaded when a room is first shown: a
 * visit that never races does not pay for it). */
export function renderRoom() {
  if (!c.room.view) return;
  import("./room-view.js").then(
    ({ drawRoom }) => drawRoom(),
    (error) => console.error("the race room could not be shown", error),
  );
}

/** Beside the table: the room's racers, or the daily race's leaders. */
export function renderStandings() {
  const aside = $("[data-standings]");
  const game = c.game;
  const view = c.room.view;
  const me = c.player?.name;
  if (game?.view.race && view && view.code === game.view.race) {
    aside.hidden = false;
    $("[data-standings-title]").textContent = t("Race %(code)s", { code: view.code });
    $("[data-standings-list]").replaceChildren(...view.racers.map((racer, index) => racerLine(racer, view, me, index)));
  } else if (game?.view.mode === "daily" && c.digest && c.digest.suits === game.view.suits) {
    aside.hidden = false;
    const digest = c.digest;
    // a result held for review is not in the digest yet: say why it is missing
    const held = c.result?.game === game.id && c.result.review === "held";
    const counts = { playing: number(digest.playing), finished: number(digest.finished) };
    $("[data-standings-title]").textContent = held
      ? t("Today's race: %(playing)s playing, %(finished)s finished (yours is under review)", counts)
      : t("Today's race: %(playing)s playing, %(finished)s finished", counts);
    $("[data-standings-list]").replaceChildren(
      ...digest.players.map((row) => {
        const item = document.createElement("li");
        if (row.player === me) item.className = "me";
        const state = row.won ? t("won") : row.resigned ? t("gave up") : row.left ? t("left") : t("playing");
        const line = { rank: number(row.rank), name: racerName(row), score: number(row.score), state };
        item.textContent = t("%(rank)s. %(name)s · %(score)s · %(state)s", line);
        return item;
      }),
    );
  } else if (game?.view.race || game?.view.mode === "daily") {
    // the standings are on their way: their place beside the table is kept from the deal
    // on, so the cards do not shrink under the pointer when they come
    aside.hidden = false;
    $("[data-standings-title]").textContent = game.view.race
      ? t("Race %(code)s", { code: game.view.race })
      : t("Today's race");
    $("[data-standings-list]").replaceChildren();
  } else {
    aside.hidden = true;
  }
  c.board.layout();
}

/** The room's countdown, and the race's time left. */
export function tickRoom() {
  const room = c.room;
  if (!room.view) return;
  const left = room.startsIn();
  const countdown = $("[data-room-countdown]");
  if (room.view.state === "countdown" && left != null) {
    setText(countdown, left > 0 ? t("The deal is revealed in %(seconds)s", { seconds: number(Math.ceil(left)) }) : t("Go!"));
  } else if (room.view.state === "open" && room.view.auto_start_at) {
    const auto = (Date.parse(room.view.auto_start_at) - Date.now()) / 1000;
    // by this machine's time of day: shown only when it agrees with the server's promise
    const plausible = auto > 0 && auto <= 60;
    setText(countdown, plausible ? t("Starts by itself in %(seconds)s s", { seconds: number(Math.ceil(auto)) }) : "");
  } else {
    setText(countdown, "");
  }
  // from the race's own clock (the game's elapsed time since the reveal): no trust in
  // this machine's time of day
  const racing = room.view.state === "racing" && c.game?.view.race === room.view.code;
  const remaining = racing ? room.view.time_limit - c.game.clock() : null;
  setText($("[data-race-clock]"), remaining != null ? t("Time left %(time)s", { time: clock(remaining) }) : "");
}

/** @param {string} code @returns {Promise<boolean>} whether the room took the player in (or let them watch) */
export async function joinRoom(code) {
  const reply = await c.connection.requestNow({ type: "race_join", code });
  if (reply.type !== "error") return true;
  if (reply.code === "race-started" || reply.code === "race-full") {
    const watched = await c.connection.request({ type: "race_watch", code });
    if (watched.type !== "error") return true;
  }
  c.show("lobby");
  setError($(".race-panel"), reply.message);
  return false;
}

/** A room's whole view (`race_room`). @param {RaceRoom} message */
export function roomChanged(message) {
  const room = c.room;
  if (!room.take(message.room)) return;
  const view = room.view;
  c.keepRoom(view.state === "expired" ? null : view.code);
  const racing = c.racing(view.code);
  if (!racing && (view.state === "open" || view.state === "countdown")) {
    hideResult();
    c.show("room");
  }
  renderRoom();
  renderStandings();
  if (view.state === "over" && racing) {
    renderGame(); // its result, the race's, opens again from the bar
    showResult();
  }
  if (message.event === "rematch") {
    // a private room names no rematch: it is joined by race_rematch, which the button sends
    room.rematchOpen = view.code;
    announce(t("A rematch is open: join it from the result."));
    showResult();
  }
}

/** A racer's line changed (`race_update`). @param {RaceUpdate} message */
export function raceUpdated(message) {
  if (!c.room.update(message.code, message.entry)) return;
  raceNews(message.code, message.entry);
  renderStandings();
  renderRoom();
}

/** The daily race as it stands (`race_digest`, or the reply to `race`). @param {RaceBoard} message */
export function digestCame(message) {
  c.digest = message;
  renderStandings();
}

/** Another racer finished first: the player still racing hears it beside the table.
 * @param {string} code @param {RoomEntry} entry */
function raceNews(code, entry) {
  if (!entry.won || entry.player === c.player?.name || c.game?.view.race !== code) return;
  const news = $("[data-race-news]");
  if (news.textContent) return; // the first to win is the news
  news.textContent = t("%(name)s won in %(time)s", { name: entry.player, time: clock(entry.elapsed ?? 0) });
}

/** The lobby's race panel and the room's buttons. */
export function setupRoom() {
  $("[data-form=race-join]").addEventListener("submit", (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    setError($(".race-panel"), "");
    joinRoom(/** @type {any} */ (/** @type {HTMLFormElement} */ (event.currentTarget).elements).code.value.trim());
  });
  click("[data-action=race-new]", async () => {
    setError($(".race-panel"), "");
    const reply = await c.connection.requestNow({
      type: "race_new",
      suits: Number($("[data-race-suits]").value),
      allow_bots: $("[data-race-bots]").checked,
    });
    if (reply.type === "error") setError($(".race-panel"), reply.message);
  });
  click("[data-action=race-quick]", async () => {
    setError($(".race-panel"), "");
    const reply = await c.connection.requestNow({ type: "race_quick", suits: Number($("[data-race-suits]").value) });
    if (reply.type === "error") setError($(".race-panel"), reply.message);
  });
  click("[data-action=race-rematch]", async () => {
    const reply = await c.connection.requestNow({ type: "race_rematch", code: c.room.view.code });
    if (reply.type === "error") refuse(reply.message);
  });
}
