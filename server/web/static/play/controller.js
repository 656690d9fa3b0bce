// The page's one controller: what it knows (the player, the game, the room, the day), what
// it keeps in the browser's storage, the connection and the table. The views (lobby.js,
// table.js, controls.js, room.js) read and change the state here, and nowhere
// else; main.js hands them the server's messages by their type.

import { Board } from "./board.js";
import { $, show as showView } from "./dom.js";
import { Connection, serverUrl } from "./net.js";
import { Room } from "./race.js";

/** @typedef {import("./messages.js").Player} Player */
/** @typedef {import("./messages.js").Finished} Finished */
/** @typedef {import("./messages.js").DailyInfo} DailyInfo */
/** @typedef {import("./messages.js").History} History */
/** @typedef {import("./messages.js").RaceBoard} RaceBoard */
/** @typedef {import("./game.js").Game} Game */
/** @typedef {"welcome" | "lobby" | "room" | "game"} ViewName */

const TOKEN = "simon.token";
const GAME = "simon.game";
const ROOM = "simon.room";
/** What the welcome says once after the page signed out by itself (a tab's, sessionStorage). */
const NOTICE = "simon.notice";

export class Controller {
  constructor() {
    /** @type {string | null} the account's token, kept in the browser */
    this.token = localStorage.getItem(TOKEN);
    /** @type {Player | null} */
    this.player = null;
    /** @type {Game | null} */
    this.game = null;
    /** @type {Finished | null} the last `finished` */
    this.result = null;
    /** @type {number | null} how long a fair-play review usually takes here (`welcome`) */
    this.reviewHours = null;
    this.room = new Room();
    /** @type {RaceBoard | null} the daily race's last digest */
    this.digest = null;
    /** @type {DailyInfo | null} */
    this.daily = null;
    /** @type {number | null} Date.now() at the end of the day (UTC), by the server's seconds_left */
    this.dayEnds = null;
    /** @type {History | null} */
    this.history = null;
    /** @type {{column: number, count: number} | null} a group lifted by a tap or the keyboard */
    this.selected = null;
    /** @type {{action: string, until: number} | null} a restart or resign waiting for its confirmation */
    this.confirming = null;
    /** @type {string | null} the room named by the address (?race=CODE), joined once */
    this.joinCode = new URLSearchParams(location.search).get("race");
    /** @type {string | null} a terminal's sign-in code the address names (?code=), to approve */
    this.approveCode = new URLSearchParams(location.search).get("code");
    /** @type {string | null} a league's invitation the address names (?league=), offered once */
    this.leagueCode = new URLSearchParams(location.search).get("league");
    this.board = new Board($("[data-board]"));
    /** @type {Connection} set by connect() */
    this.connection = null;
    /** @type {((name: ViewName) => void)[]} */
    this.shownHooks = [];
  }

  /** @param {ConstructorParameters<typeof Connection>[1]} hooks */
  connect(hooks) {
    this.connection = new Connection(serverUrl(), hooks);
    return this.connection;
  }

  /** Show one view; `onShow` hooks hear which. @param {ViewName} name */
  show(name) {
    showView(name);
    if (name === "game") this.board.layout();
    for (const hook of this.shownHooks) hook(name);
  }

  /** @param {(name: ViewName) => void} hook */
  onShow(hook) {
    this.shownHooks.push(hook);
  }

  /** Whether the game on the table is of room `code`'s race. @param {string} [code] */
  racing(code = this.room.view?.code) {
    return Boolean(this.game?.view.race && this.game.view.race === code);
  }

  // -- what the browser keeps --------------------------------------------------------------

  /** @param {string} token */
  keepToken(token) {
    this.token = token;
    localStorage.setItem(TOKEN, token);
  }

  /** The game to resume after a reload: the one on the table, else the one kept. */
  gameToResume() {
    return this.game && !this.game.finished ? this.game.id : localStorage.getItem(GAME);
  }

  /** @param {string | null} id the game to resume after a reload (null: none) */
  keepGame(id) {
    if (id) localStorage.setItem(GAME, id);
    else localStorage.removeItem(GAME);
  }

  /** The room to watch again after a reload: the one shown, else the one kept. */
  roomToWatch() {
    return this.room.view?.code ?? localStorage.getItem(ROOM);
  }

  /** @param {string | null} code the room to watch again after a reload (null: none) */
  keepRoom(code) {
    if (code) localStorage.setItem(ROOM, code);
    else localStorage.removeItem(ROOM);
  }

  forgetAccount() {
    localStorage.removeItem(TOKEN);
    this.keepGame(null);
    this.keepRoom(null);
    this.token = null;
    this.player = null;
    $("[data-account]").hidden = true;
  }

  /** Signed out here by the server or for good (revoked elsewhere, the account deleted): the
   * token forgotten, and the page loaded again at its welcome, which says `notice` once.
   * @param {string} notice */
  leave(notice) {
    this.forgetAccount();
    try {
      sessionStorage.setItem(NOTICE, notice);
    } catch {
      // no storage: the welcome shows without it
    }
    location.reload();
  }

  /** The notice left by leave(), said once. @returns {string | null} */
  takeNotice() {
    try {
      const notice = sessionStorage.getItem(NOTICE);
      sessionStorage.removeItem(NOTICE);
      return notice;
    } catch {
      return null;
    }
  }
}

export const controller = new Controller();
