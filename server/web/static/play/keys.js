// The keyboard plays as the terminal client does (docs/client.md), one key a column: a
// digit names a column (0 is column 10), so "3 7" (or "37", "3-7") lifts column 3's group
// and puts it on column 7 at once, with no Enter. Into an empty column a group of more than
// one card waits for Enter (all of it) or x and a count ("3-7x2"). A column alone and Enter
// is its best move; u undo, r restart and x resign (each pressed twice to confirm, as the
// buttons ask), Esc to clear. Arrows move between columns; Space or Enter lifts a column's
// group, and on another column drops it there.

import { parseMove } from "./game.js";

const SWALLOW_ENTER = 1500; // ms: an Enter out of habit after a move typed in full

/** How the player last reached the page: the keys show the table's focus ring (play.css),
 * a pointer hides it; a game shown by no key of theirs (a race's deal, a resumed game)
 * shows none until a key is pressed, as :focus-visible would after a click.
 * @param {"keys" | "pointer" | "none"} how */
export function inputBy(how) {
  if (document.documentElement.dataset.input !== how) document.documentElement.dataset.input = how;
}

/** The column a digit key names: 1 to 9, and 0 for 10. */
export function columnOfKey(key) {
  return key === "0" ? 10 : Number(key);
}

export class Keys {
  /**
   * @param {object} play move(from, to, count|null), auto(column), undo(), restart(),
   *   resign(), typed(text, column|null), choose(column) (Space/Enter on a column),
   *   cancel(), active() (a game is on screen), focus(column), waits(from, to) (true: the
   *   move needs its count, a group of more than one card going to an empty column)
   */
  constructor(play) {
    this.play = play;
    this.text = "";
    this.movedAt = -Infinity;
    document.addEventListener("keydown", (event) => this.key(event));
    // heard first, whoever handles the event
    document.addEventListener("keydown", (event) => event.ctrlKey || event.metaKey || inputBy("keys"), true);
    document.addEventListener("pointerdown", () => inputBy("pointer"), true);
  }

  key(event) {
    if (!this.play.active() || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target.closest?.("input, select, textarea, [data-result-box]:not([hidden])")) return;
    const onButton = target.closest?.("button, a, summary");
    const column = target.closest?.("[data-column]");
    const key = event.key;
    let handled = true;
    const enterAfterMove = key === "Enter" && !this.text && performance.now() - this.movedAt < SWALLOW_ENTER;
    this.movedAt = -Infinity;
    if (enterAfterMove) {
      // "3 7 Enter", as simon reads it: the move went at 7, the Enter has nothing left to do
    } else if (/^[0-9]$/.test(key) && /x$/.test(this.text)) {
      this.type(this.text + key);
      this.enter();
    } else if (/^[0-9]$/.test(key) && !/^\d+-\d+/.test(this.text)) {
      const typed = columnOfKey(key);
      const from = /^(\d+)/.exec(this.text);
      if (!from) {
        this.type(String(typed));
      } else if (this.play.waits?.(Number(from[1]), typed)) {
        this.type(`${from[1]}-${typed}`);
      } else {
        this.type(`${from[1]}-${typed}`);
        this.enter();
      }
    } else if ((key === "-" || key === " ") && /^\d+$/.test(this.text)) {
      this.type(this.text + "-");
    } else if (key === "x" && /^\d+-\d+$/.test(this.text)) {
      this.type(this.text + "x");
    } else if (key === "Backspace" && this.text) {
      this.type(this.text.slice(0, -1));
    } else if (key === "Escape") {
      this.type("");
      this.play.cancel();
    } else if (key === "Enter" && this.text) {
      this.enter();
    } else if ((key === "Enter" || key === " ") && column && !onButton) {
      this.play.choose(Number(column.dataset.column));
    } else if ((key === "ArrowRight" || key === "ArrowLeft") && column) {
      const step = key === "ArrowRight" ? 1 : -1;
      this.play.focus(((Number(column.dataset.column) - 1 + step + 10) % 10) + 1);
    } else if (key === "u" && !this.text) {
      this.play.undo();
    } else if (key === "r" && !this.text) {
      this.play.restart();
    } else if (key === "x" && !this.text) {
      this.play.resign();
    } else {
      handled = false;
    }
    if (handled) event.preventDefault();
  }

  type(text) {
    this.text = text;
    const source = /^(\d+)/.exec(text);
    const column = source && Number(source[1]) >= 1 && Number(source[1]) <= 10 ? Number(source[1]) : null;
    this.play.typed(text, column);
  }

  enter() {
    const text = this.text;
    this.type("");
    const one = /^(\d+)-?$/.exec(text);
    if (one) {
      this.play.auto(Number(one[1]));
      return;
    }
    const move = parseMove(text);
    if (move) this.movedAt = performance.now();
    if (move) this.play.move(move.from, move.to, move.count);
    else this.play.typedBad(text);
  }
}
