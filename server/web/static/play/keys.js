// The keyboard plays as the terminal client does (docs/client.md): a column number then
// another and Enter ("3 7", "3-7", "3-7x2"), a column alone and Enter for the best move,
// u undo, r restart and x resign (each pressed twice to confirm, as the buttons ask), Esc
// to clear. Arrows move between columns; Space or Enter lifts a column's group, and on
// another column drops it there.

export class Keys {
  /**
   * @param {object} play move(from, to, count|null), auto(column), undo(), restart(),
   *   resign(), typed(text, column|null), choose(column) (Space/Enter on a column),
   *   cancel(), active() (a game is on screen), focus(column)
   */
  constructor(play) {
    this.play = play;
    this.text = "";
    document.addEventListener("keydown", (event) => this.key(event));
  }

  key(event) {
    if (!this.play.active() || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target.closest?.("input, select, textarea, [data-result-box]:not([hidden])")) return;
    const onButton = target.closest?.("button, a, summary");
    const column = target.closest?.("[data-column]");
    const key = event.key;
    let handled = true;
    if (/^[0-9]$/.test(key)) {
      this.type(this.text + key);
    } else if ((key === "-" || key === " ") && this.text && /\d$/.test(this.text)) {
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
    const move = /^(\d+)-(\d+)(?:x(\d+))?$/.exec(text);
    if (move) this.play.move(Number(move[1]), Number(move[2]), move[3] ? Number(move[3]) : null);
    else this.play.typedBad(text);
  }
}
