// The table: the game the server sent (its state, each move it accepted or refused, its
// end), drawn with the moves still on their way, and the actions the player sends.

import { cancelSelection, showTargets } from "./controls.js";
import { controller as c } from "./controller.js";
import { $, announce, clearRefusal, click, clock, copyText, current, refuse, setText } from "./dom.js";
import { Game, RUN_LENGTH, groupText, parseMove, short } from "./game.js";
import { t, tn } from "./i18n.js";
import { inputBy } from "./keys.js";
import { refreshDaily, showLobby } from "./lobby.js";
import { moving, pulse, sweep } from "./motion.js";
import { renderStandings, tickRoom } from "./room.js";

/** @typedef {import("./messages.js").GameView} GameView */
/** @typedef {import("./messages.js").Moved} Moved */
/** @typedef {import("./messages.js").Finished} Finished */
/** @typedef {import("./messages.js").ErrorMessage} ErrorMessage */
/** @typedef {import("./net.js").Request} Request */

/** A whole game from the server (`state`): the reply to start, resume, restart and undo.
 * @param {GameView} view @param {Request} [request] */
export function takeState(view, request) {
  const resumed = request?.type === "resume";
  const pending = resumed && c.game?.id === view.game ? c.game.pending : [];
  if (c.game?.id !== view.game) {
    c.result = null;
    $("[data-race-news]").textContent = "";
  }
  const game = new Game(view);
  game.pending = pending;
  c.game = game;
  c.selected = null;
  c.keepGame(view.finished ? null : view.game);
  if (view.race) {
    c.keepRoom(view.race);
    c.room.reveal(view.race);
    if (c.room.view?.code !== view.race) c.connection.request({ type: "race_watch", code: view.race });
  } else if (!request || request.type === "start") {
    c.room.view = null;
    c.keepRoom(null);
  }
  $("[data-game-title]").textContent = title(view);
  $("[data-game-code]").textContent = view.code;
  $("[data-view=game]").dataset.code = view.code;
  $("[data-par-box]").hidden = view.par == null;
  $("[data-par]").textContent = view.par ?? "";
  // a game taken up again after a reconnection stays behind the lobby the player went to
  const away = resumed && (current() === "lobby" || current() === "room");
  if (current() !== "game" && !away) {
    hideResult();
    c.show("game");
    // the button that started it is gone with the lobby: the keys go on at the table; its
    // ring shows only to a player who started it with the keys (not a race's link, a click)
    if (!request || request.type !== "start") inputBy("none");
    if (!$("[data-view=game]").contains(document.activeElement)) c.board.focus(c.board.focused);
  }
  renderStandings();
  renderGame();
  if (!view.finished && request && request.type === "start") announce(t("%(title)s: the deal is dealt.", { title: title(view) }));
}

/** @param {GameView} view */
function title(view) {
  const suits = tn("%(count)s suit", "%(count)s suits", view.suits);
  if (view.race) return t("Race %(code)s · %(suits)s", { code: view.race, suits });
  if (view.mode === "daily") return t("Daily · %(suits)s", { suits });
  return t("Practice · %(suits)s", { suits });
}

/** The game whose cards the table shows (null: none yet). @type {string | null} */
let drawn = null;

/** The moves (by their ids) typed with the keys: a refusal of one repeats its notation. */
const typed = new Set();

export function renderGame() {
  const game = c.game;
  if (!game) return;
  const pending = game.pending.length;
  const movable = pending || !game.legal ? null : game.legal.map((groups) => groups.length);
  // the figures first: the cards' drawing lays them out in its one layout
  $("[data-moves]").textContent = String(game.moves + pending);
  $("[data-score]").textContent = String(game.score - pending);
  $("[data-removed]").textContent = String(game.removed);
  $("[data-action=undo]").disabled = game.finished || (!game.canUndo && !pending);
  $("[data-action=restart]").disabled = game.finished;
  $("[data-action=resign]").disabled = game.finished;
  // a finished game says so beside its title, and its result opens again from the bar
  const over = $("[data-game-over]");
  over.hidden = !game.finished;
  over.dataset.over = game.won ? "won" : c.result?.resigned ? "resigned" : "over";
  over.textContent = over.dataset.over === "won" ? t("Won") : over.dataset.over === "resigned" ? t("Resigned") : t("Over");
  $("[data-action=show-result]").hidden = !(game.finished && hasResult());
  // the cards glide from move to move of one game; a new deal is dealt as it is
  c.board.render(game.columns(), movable, drawn === game.id);
  drawn = game.id;
  c.board.element.dataset.pending = String(pending);
  if (c.selected) {
    c.board.select(c.selected.column, c.selected.count);
    c.board.highlight(game.targets(c.selected.column, c.selected.count));
  }
  showTargets();
  tick();
}

/** The clocks: the game's, and the room's countdown and time left. */
export function tick() {
  if (c.game) setText($("[data-clock]"), clock(c.game.clock()));
  tickRoom();
}

/** A drop's drawing, put off until its answer (or DRAW_WITHIN ms): a frame drawn before the
 * answer holds it (docs/web.md). @type {{ id: string, before: () => void, timer: number } | null} */
let putOff = null;
const DRAW_WITHIN = 50;

/** Do the put-off drawing now (`draw` false: the caller draws the table). */
function drawPutOff(draw = true) {
  if (!putOff) return;
  const { before, timer } = putOff;
  putOff = null;
  clearTimeout(timer);
  delete c.board.element.dataset.putOff;
  before();
  if (draw) renderGame();
}

/** Before a message is handled: the put-off drawing, the table left to the handler of its answer.
 * @param {{ type: string }} message @param {Request} [request] */
export function drawBeforeHandling(message, request) {
  if (!putOff) return;
  drawPutOff(!(request?.id === putOff.id && (message.type === "moved" || message.type === "error")));
}

/** Send a game action; its answer comes back through main.js's handlers.
 * @param {Request} message */
export function act(message) {
  if (!c.game) return null;
  const id = c.connection.nextId();
  c.connection.request({ ...message, id });
  return id;
}

/** @param {number} from @param {number} to @param {number | null} count @param {boolean} optimistic
 * @param {boolean} [keys] typed with the keys (a refusal repeats the notation typed)
 * @param {() => void} [first] done before the move is drawn (the dragged copy taken down) */
export function move(from, to, count, optimistic, keys = false, first = () => {}) {
  const game = c.game;
  if (!game || game.finished) {
    first();
    c.board.from.clear();
    return;
  }
  if (optimistic && count) {
    const id = c.connection.nextId();
    if (keys) typed.add(id);
    game.optimistic(id, { from, to, count });
    c.connection.request({ type: "move", id, move: `${from}-${to}x${count}` });
    performance.mark(`simon:sent:${id}`);
    drawPutOff(); // an earlier drop's first
    const before = () => {
      first();
      clearRefusal();
      cancelSelection();
    };
    putOff = { id, before, timer: setTimeout(drawPutOff, DRAW_WITHIN) };
    // said at once, in attributes no style reads (no frame asked for): a move on its way, drawn later
    c.board.element.dataset.pending = String(game.pending.length);
    c.board.element.dataset.putOff = "";
    return;
  }
  first();
  clearRefusal();
  cancelSelection();
  const id = act({ type: "move", move: count ? `${from}-${to}x${count}` : `${from}-${to}` });
  if (keys && id) typed.add(id);
}

/** A move typed or chosen by column numbers: the group that fits, as the notation says.
 * @param {number} from @param {number} to @param {number | null} count
 * @param {boolean} [keys] chosen with the keys (not a tap) */
export function moveTo(from, to, count, keys = false) {
  const game = c.game;
  if (!game) return;
  const last = game.columns().length;
  const missing = [from, to].find((column) => !(column >= 1 && column <= last));
  if (missing != null) {
    const said = t("There is no column %(column)s: the columns are 1 to %(last)s (the key 0 is %(last)s).", { column: missing, last });
    refuse(`✗ ${said}`);
    return;
  }
  if (count == null) {
    const movable = game.movable(from);
    for (let n = movable ?? 0; n >= 1; n -= 1) {
      if ((game.targets(from, n) ?? []).includes(to)) {
        count = n;
        break;
      }
    }
  }
  const legal = count != null && (game.targets(from, count) ?? []).includes(to);
  move(from, to, count, legal, keys);
}

/** A column's best move (a double-click, or a column and Enter).
 * @param {number} column @param {number | null} count @param {boolean} [keys] asked with the keys */
export function auto(column, count, keys = false) {
  if (!c.game || c.game.finished) return;
  clearRefusal();
  cancelSelection();
  /** @type {Request} */
  const message = { type: "auto", column };
  if (count) message.count = count;
  const id = act(message);
  if (keys && id) typed.add(id);
}

/** A move the server accepted (`moved`). @param {Moved} moved */
export function settled(moved) {
  const game = c.game;
  if (!game || moved.game !== game.id) return;
  const before = game.confirmed.map((column) => column.slice());
  typed.delete(moved.id);
  const changed = game.settle(moved);
  if (changed === null) {
    renderGame();
    c.connection.request({ type: "resume", game: game.id, seq: game.seq });
    return;
  }
  if (changed && moved.removed_run) leave(before, moved);
  renderGame();
  if (changed) {
    const { from, to, count } = parseMove(moved.move);
    const cards = before[from - 1].slice(-count);
    const onto = before[to - 1];
    announce(movedText(moved, cards, onto));
  }
}

/** "3-7: 8♠ 7♠ onto 9♠.", said to a screen reader.
 * @param {Moved} moved @param {string[]} cards @param {string[]} onto the target column before */
function movedText(moved, cards, onto) {
  const said = { move: moved.move, cards: groupText(cards), card: onto.length ? short(onto.at(-1)) : "" };
  const suit = { ...said, suit: short(cards.at(-1)).slice(-1) };
  if (moved.removed_run) {
    return onto.length
      ? t("%(move)s: %(cards)s onto %(card)s; a run of %(suit)s leaves the table.", suit)
      : t("%(move)s: %(cards)s onto an empty column; a run of %(suit)s leaves the table.", suit);
  }
  return onto.length ? t("%(move)s: %(cards)s onto %(card)s.", said) : t("%(move)s: %(cards)s onto an empty column.", said);
}

/** A removed run visibly leaves: the move lands on it, then it sweeps off as one.
 * @param {string[][]} before @param {Moved} moved */
function leave(before, moved) {
  if (!moving()) return;
  const { from, to, count } = parseMove(moved.move);
  if (c.game.pending.length) return; // the table shows moves still on their way
  const shown = before.map((column) => column.slice());
  // the table as it was, with the move: the run at the end of the target column
  shown[to - 1].push(...shown[from - 1].splice(shown[from - 1].length - count, count));
  c.board.render(shown, null);
  const run = c.board.group(to, RUN_LENGTH);
  // each card from where it is seen now (it may be on its way) to where it lies
  const cards = run.map((element) => ({ element, from: element.getBoundingClientRect(), at: c.board.placeOf(element) }));
  c.board.holdHeight(sweep(cards) + 100);
  pulse($("[data-removed]").parentElement);
}

/** A game action the server refused (`error`). @param {ErrorMessage} error @param {Request} request */
export function refused(error, request) {
  const game = c.game;
  if (!game) return;
  if (request.type === "move" || request.type === "auto") {
    game.refuse(request.id);
    renderGame();
  }
  if (error.code === "game-over" || error.code === "no-game") {
    refuse(error.message);
    return;
  }
  // the rule in words; a move typed with the keys is said with what was typed, as simon says it
  if (!typed.delete(request.id) && (request.type === "move" || request.type === "auto")) {
    refuse(error.message);
    return;
  }
  const what = request.type === "move" ? `${request.move}: ` : "";
  refuse(`✗ ${what}${error.message}`);
}

/** A game ended (`finished`). @param {Finished} message */
export function finished(message) {
  const game = c.game;
  c.result = message;
  if (game && message.game === game.id) {
    game.finished = true;
    game.elapsed = message.elapsed;
    renderGame();
  }
  c.keepGame(null);
  showResult();
}

// -- the result ----------------------------------------------------------------------------
// The end of a game, or of a race, over the table: whether there is one to show, showing it
// (drawn by result-view.js, a module loaded at the first game's end), its buttons and Esc.

/** Whether there is a result to show: the game's end as the server said it, or its race's. */
export function hasResult() {
  const view = c.room.view;
  const inRace = c.game?.view.race && view?.code === c.game.view.race;
  return Boolean(c.result || (inRace && view.state === "over"));
}

/** Show the result over the table (its module is loaded the first time: a few milliseconds,
 * then cached like the others). */
export function showResult() {
  if (!hasResult()) return;
  import("./result-view.js").then(
    ({ drawResult }) => drawResult(),
    (error) => console.error("the result could not be shown", error),
  );
}

export function hideResult() {
  $("[data-result-box]").hidden = true;
  delete $("[data-result-card]").dataset.result;
}

/** "See the table" (or Esc): the result goes, the keys go on at the table. */
function closeResult() {
  hideResult();
  c.board.focus(c.board.focused);
}

/** The result's buttons, and Esc. */
export function setupResult() {
  click("[data-action=copy-share]", (/** @type {MouseEvent} */ event) => {
    const share = $("[data-result-share]");
    copyText(share.textContent, /** @type {HTMLElement} */ (event.currentTarget), share);
  });
  click("[data-action=lobby]", () => {
    hideResult();
    cancelSelection();
    showLobby();
    refreshDaily();
  });
  click("[data-action=close-result]", closeResult);
  click("[data-action=show-result]", showResult);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !$("[data-result-box]").hidden && $("[data-token-box]").hidden) {
      event.preventDefault();
      closeResult();
    }
  });
}
