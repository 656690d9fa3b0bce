// The player's hands on the table: a group lifted by a tap or the keyboard, the pointer
// (drag.js) and the keys (keys.js) wired to the table's actions, undo, and restart and
// resign each asked twice.

import { groupText } from "./game.js";
import { controller as c } from "./controller.js";
import { $, $$, announce, clearRefusal, click, current, refuse } from "./dom.js";
import { Pointer } from "./drag.js";
import { t, tn } from "./i18n.js";
import { Keys } from "./keys.js";
import { settings, sound } from "./account.js";
import { act, auto, move, moveTo } from "./table.js";

/** @typedef {import("./game.js").Game} Game */

const CONFIRM_FOR = 4000; // ms a restart or resign waits for its confirmation

/** @type {Pointer | null} */
let pointer = null;

/** The columns a dragged group may go to, lit again after the table is drawn. */
export function showTargets() {
  pointer?.showTargets();
}

// -- selection by tap or keyboard -------------------------------------------------------

/** @param {number} column @param {number | null} count @param {boolean} [keys] by the keys */
function select(column, count, keys = false) {
  const game = c.game;
  if (!game || game.finished) return;
  const movable = game.movable(column);
  if (movable === 0) return;
  const size = count ?? movable ?? 1;
  if (movable != null && size > movable) {
    liftRefused(column, size, keys);
    return;
  }
  c.selected = { column, count: size };
  sound.pickUp();
  c.board.select(column, size);
  c.board.highlight(game.targets(column, size));
  const cards = game.columns()[column - 1].slice(-size);
  nowhere(game, column, size);
  announce(t("Lifted %(cards)s from column %(column)s. Choose a column to put it on.", { cards: groupText(cards), column }));
}

/** A lifted group no column takes: said on screen, not only lit nowhere.
 * @param {Game} game @param {number} column @param {number} count */
function nowhere(game, column, count) {
  if (game.targets(column, count)?.length !== 0) return;
  const cards = game.columns()[column - 1].slice(-count);
  const params = { cards: groupText(cards) };
  refuse(tn("%(cards)s can go nowhere now: no column takes it.", "%(cards)s can go nowhere now: no column takes them.", count, params));
}

export function cancelSelection() {
  if (!c.selected) return;
  c.selected = null;
  c.board.select(0);
  c.board.highlight(null);
}

/** Space or Enter on a column: lift its group, or drop the lifted one there. @param {number} column */
function choose(column) {
  const selected = c.selected;
  if (!selected) {
    select(column, null, true);
    return;
  }
  if (selected.column === column) {
    cancelSelection();
    return;
  }
  moveTo(selected.column, column, selected.count, true);
}

/** A group that cannot be lifted: the server says which rule stops it (to a pointer, in
 * words alone). @param {number} column @param {number} count @param {boolean} [keys] */
async function liftRefused(column, count, keys = false) {
  const reply = await c.connection.request({ type: "targets", column, count });
  if (reply.type === "error") refuse(keys ? `✗ ${reply.message}` : reply.message);
}

// -- undo, restart, resign --------------------------------------------------------------

/** Whether `action` was asked twice within CONFIRM_FOR; the first time, `button` asks.
 * @param {"restart" | "resign"} action @param {HTMLElement} button */
function confirmed(action, button) {
  const now = Date.now();
  const unmark = (/** @type {HTMLElement} */ element) => {
    element.classList.remove("confirming");
    if (element.dataset.label) element.textContent = element.dataset.label;
    if (element.dataset.title) element.title = element.dataset.title;
  };
  if (c.confirming?.action === action && c.confirming.until > now) {
    c.confirming = null;
    unmark(button);
    return true;
  }
  for (const other of $$("[data-action=restart], [data-action=resign]")) unmark(other);
  c.confirming = { action, until: now + CONFIRM_FOR };
  button.dataset.label ??= button.textContent;
  button.dataset.title ??= button.title;
  // short enough for a phone's row of buttons: the mark and the question say "again"
  button.textContent = action === "restart" ? t("Restart?") : t("Resign?");
  button.classList.add("confirming");
  const again =
    action === "restart" ? t("Press Restart again to deal the same cards again.") : t("Press Resign again to end this game.");
  button.title = again;
  announce(again);
  setTimeout(() => {
    if (c.confirming?.action === action && c.confirming.until <= Date.now() + 50) {
      c.confirming = null;
      unmark(button);
    }
  }, CONFIRM_FOR);
  return false;
}

function undo() {
  if (!c.game || c.game.finished) return;
  clearRefusal();
  cancelSelection();
  act({ type: "undo" });
}

function restart() {
  if (c.game && !c.game.finished && confirmed("restart", $("[data-action=restart]"))) {
    clearRefusal();
    act({ type: "restart" });
  }
}

function resign() {
  if (c.game && !c.game.finished && confirmed("resign", $("[data-action=resign]"))) {
    clearRefusal();
    act({ type: "resign" });
  }
}

// -- wiring -----------------------------------------------------------------------------

/** The pointer, the keys and the table's buttons. */
export function setupControls() {
  pointer = new Pointer(c.board, {
    canLift(column, count) {
      const movable = c.game?.movable(column);
      if (!c.game || c.game.finished) return false;
      return movable == null ? null : count <= movable;
    },
    targets: (column, count) => c.game?.targets(column, count) ?? null,
    lifted: (column, count) => {
      sound.pickUp();
      cancelSelection();
      clearRefusal();
      if (c.game) nowhere(c.game, column, count);
    },
    drop: (from, to, count, legal, first) => move(from, to, count, legal, false, first),
    auto: (column, count) => auto(column, count),
    // auto placement (the settings): a drop on no column that takes the group sends it to its best place
    autoPlace: () => settings.auto_place,
    refuseLift: (column, count) => liftRefused(column, count),
    tap(column, count) {
      const selected = c.selected;
      if (selected && selected.column !== column) {
        const takes = c.game?.targets(selected.column, selected.count);
        if (settings.auto_place && takes && !takes.includes(column)) auto(selected.column, selected.count);
        else moveTo(selected.column, column, selected.count);
      } else if (selected) cancelSelection();
      else if (count > 0) select(column, count);
    },
  });

  new Keys({
    active: () => current() === "game" && Boolean(c.game),
    move: (from, to, count) => moveTo(from, to, count, true),
    waits(from, to) {
      const game = c.game;
      return Boolean(game && game.columns()[to - 1]?.length === 0 && (game.movable(from) ?? 0) > 1);
    },
    auto: (column) => auto(column, null, true),
    undo,
    restart,
    resign,
    choose,
    focus: (column) => c.board.focus(column),
    cancel: () => {
      cancelSelection();
      clearRefusal();
    },
    typed(text, column) {
      $("[data-typed]").textContent = text ? t("Typed: %(keys)s", { keys: text }) : "";
      if (text) clearRefusal(); // a new move on its way: the last refusal is past
      if (!c.selected || c.selected.column !== column) {
        if (column && !text.includes("-")) select(column, null, true);
        else if (!text) cancelSelection();
      }
    },
    typedBad(text) {
      const said = t("%(typed)s: a move is two columns, like 3 7 (0 is column 10), or 3-7x2 for two cards", { typed: text });
      refuse(`✗ ${said}`);
    },
  });

  click("[data-action=undo]", undo);
  click("[data-action=restart]", restart);
  click("[data-action=resign]", resign);
  click("[data-action=back-to-game]", () => c.show("game"));
}
