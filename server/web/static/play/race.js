// Race rooms as the page shows them: the waiting room, the countdown, the racers beside
// the board as they race, the results. The server's views and updates are the truth: this
// only keeps the newest view (by revision) and the racers' lines in the room's order.

import { clock } from "./dom.js";
import { number, t, tn } from "./i18n.js";

/** The room's standings order (docs/protocol.md, "Race rooms"). */
export function standing(a, b) {
  if (a.won !== b.won) return a.won ? -1 : 1;
  if (a.won && (a.elapsed ?? 0) !== (b.elapsed ?? 0)) return (a.elapsed ?? 0) - (b.elapsed ?? 0);
  if (a.removed !== b.removed) return b.removed - a.removed;
  if (a.moves !== b.moves) return a.moves - b.moves;
  return a.player.toLowerCase().localeCompare(b.player.toLowerCase());
}

export class Room {
  constructor() {
    this.view = null;
    this.receivedAt = 0;
    this.revealed = null; // the room whose deal this page has seen revealed
    this.rematchOpen = null; // the room whose rematch another racer opened
  }

  /** Take a room view; false when it is older than the one held (views may cross). */
  take(view) {
    if (this.view && this.view.code === view.code && view.revision < this.view.revision) return false;
    this.view = { ...view, racers: view.racers.slice().sort(standing) };
    this.receivedAt = performance.now();
    this.settleState();
    return true;
  }

  /** The racer's game of room `code` arrived: its race runs, whatever a view made just
   * before the reveal said. */
  reveal(code) {
    this.revealed = code;
    this.settleState();
  }

  settleState() {
    if (this.view?.code === this.revealed && this.view.state === "countdown") {
      this.view.state = "racing";
    }
  }

  /** A racer's line changed (race_update). */
  update(code, entry) {
    if (!this.view || this.view.code !== code) return false;
    const racers = this.view.racers.filter((racer) => racer.player !== entry.player);
    racers.push(entry);
    this.view.racers = racers.sort(standing);
    return true;
  }

  /** Seconds to the reveal, counted on from the view's figure. */
  startsIn() {
    if (!this.view || this.view.starts_in == null) return null;
    return this.view.starts_in - (performance.now() - this.receivedAt) / 1000;
  }
}

/** A racer's name, and whether they are a bot. @param {{player: string, bot?: boolean}} racer */
export function racerName(racer) {
  return racer.bot ? t("%(name)s (bot)", { name: racer.player }) : racer.player;
}

/** One racer's line: "1. ann · 2/4 runs · 31 moves · racing". */
export function racerLine(racer, room, me, index = 0) {
  const item = document.createElement("li");
  if (racer.player === me) item.className = "me";
  const name = document.createElement("span");
  name.className = "racer-name";
  name.textContent = racerName(racer) + (racer.player === room.owner ? " ★" : "");
  const state = document.createElement("span");
  state.className = "racer-state";
  let how;
  if (racer.won) how = t("won in %(time)s", { time: clock(racer.elapsed ?? 0) });
  else if (racer.resigned) how = t("gave up");
  else if (racer.finished) how = t("time up");
  else if (racer.left) how = t("left");
  else if (room.state === "open" || room.state === "countdown") how = t("ready");
  else how = t("racing");
  const moves = tn("%(count)s move", "%(count)s moves", racer.moves);
  state.textContent =
    room.state === "open" || room.state === "countdown"
      ? how
      : t("%(removed)s/4 runs · %(moves)s · %(state)s", { removed: racer.removed, moves, state: how });
  const place = t("%(place)s.", { place: number(racer.place ?? index + 1) });
  name.prepend(`${place} `);
  item.append(name, " ", state);
  return item;
}
