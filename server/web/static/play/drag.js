// Pointer input on the table, one path for mouse, touch and pen (Pointer Events with
// pointer capture; the table has touch-action: none, so a drag never scrolls the page).
//
// A press becomes a drag only past a few pixels, so a click stays a click: two clicks (or
// taps) on one column in quick succession are the double-click move; a single one lifts
// the group (a second click elsewhere drops it there). While a group is dragged it follows
// the pointer through requestAnimationFrame and a CSS transform; the drop column comes from
// the columns' geometry. A drop reads the boxes it needs and sends the move; the copy is
// taken down and the move drawn in the next task: the group glides from the hand to its
// place, or back to its column (motion.js).

import { moving, settle } from "./motion.js";

const DRAG_FROM = 5; // pixels before a press is a drag
const DOUBLE_WITHIN = 450; // ms between two presses of a double-click

export class Pointer {
  /**
   * @param {import("./board.js").Board} board
   * @param {object} play canLift(column, count) -> true | false | null (not known yet),
   *   targets(column, count) -> columns | null, drop(from, to, count, legal, first), auto(column,
   *   count), autoPlace() -> whether a drop on no column that takes it goes to the best
   *   place, refuseLift(column, count), tap(column, count)
   */
  constructor(board, play) {
    this.board = board;
    this.play = play;
    this.press = null;
    this.drag = null;
    this.lastTap = null;
    this.frame = 0;
    const element = board.element;
    element.addEventListener("pointerdown", (event) => this.down(event));
    // raw updates where there are (Chromium): the frame that draws a move is asked for as it
    // comes, not from within the next frame, which is then the last before a drop
    const moved = "onpointerrawupdate" in window ? "pointerrawupdate" : "pointermove";
    element.addEventListener(moved, (event) => this.move(event));
    element.addEventListener("pointerup", (event) => this.up(event));
    element.addEventListener("pointercancel", () => this.cancel());
    element.addEventListener("lostpointercapture", () => this.cancel());
    element.addEventListener("contextmenu", (event) => event.preventDefault());
  }

  down(event) {
    if (this.press || (event.pointerType === "mouse" && event.button !== 0)) return;
    // a card, or else the column whose band (the table's whole height) the press is in,
    // as a drop finds it: a click under a short column still puts a lifted group there
    const found = event.target.closest("[data-card], [data-column]");
    const columnElement =
      found?.closest("[data-column]") ?? this.board.columns[this.board.columnAt(event.clientX, event.clientY) - 1];
    if (!columnElement) return;
    settle();
    const column = Number(columnElement.dataset.column);
    const cards = Array.from(columnElement.children);
    const index = found?.dataset.card ? cards.indexOf(found) : cards.length;
    event.preventDefault();
    this.board.element.setPointerCapture(event.pointerId);
    this.press = {
      pointer: event.pointerId,
      column,
      count: cards.length - index,
      x: event.clientX,
      y: event.clientY,
      time: event.timeStamp,
    };
  }

  move(event) {
    const press = this.press;
    if (!press || event.pointerId !== press.pointer) return;
    if (this.drag) {
      this.drag.x = event.clientX;
      this.drag.y = event.clientY;
      if (!this.frame) this.frame = requestAnimationFrame(() => this.follow());
      return;
    }
    if (Math.hypot(event.clientX - press.x, event.clientY - press.y) < DRAG_FROM) return;
    if (press.count < 1) {
      this.press = null; // an empty column: nothing to lift
      return;
    }
    const lift = this.play.canLift(press.column, press.count);
    if (lift === false) {
      this.play.refuseLift(press.column, press.count);
      this.press = null;
      return;
    }
    this.start(event);
  }

  start(event) {
    const press = this.press;
    const cards = this.board.group(press.column, press.count);
    const layer = document.createElement("div");
    layer.className = "drag-layer";
    layer.setAttribute("aria-hidden", "true");
    const first = cards[0].getBoundingClientRect();
    layer.style.left = `${first.left}px`;
    layer.style.top = `${first.top}px`;
    for (const original of cards) {
      const box = original.getBoundingClientRect();
      const copy = /** @type {HTMLElement} */ (original.cloneNode(true));
      copy.removeAttribute("data-card");
      copy.removeAttribute("role");
      copy.removeAttribute("aria-label");
      copy.style.top = `${box.top - first.top}px`;
      copy.style.left = "0px";
      layer.append(copy);
      original.classList.add("lifted");
    }
    document.body.append(layer);
    // under a finger the cards would hide beneath it: they ride a little above
    const lift = event.pointerType === "touch" ? -Math.round(this.board.size.height * 0.4) : 0;
    this.drag = { layer, cards, x: event.clientX, y: event.clientY, over: 0, lift };
    this.board.select(0);
    this.play.lifted?.(press.column, press.count);
    this.showTargets();
    this.follow();
  }

  /** (Re)light the legal columns: at once from what the server sent with the last move, or
   * as soon as its answer to a move still on its way arrives. */
  showTargets() {
    if (!this.drag || !this.press) return; // none, or being dropped
    this.board.highlight(this.play.targets(this.press.column, this.press.count));
  }

  follow() {
    this.frame = 0;
    const drag = this.drag;
    if (!drag) return;
    const dx = drag.x - this.press.x;
    const dy = drag.y - this.press.y + drag.lift;
    drag.layer.style.transform = `translate3d(${dx}px, ${dy}px, 0)`;
    const over = this.board.columnAt(drag.x, drag.y);
    if (over !== drag.over) {
      if (drag.over) this.board.columns[drag.over - 1].classList.remove("over");
      if (over) this.board.columns[over - 1].classList.add("over");
      drag.over = over;
    }
  }

  up(event) {
    const press = this.press;
    if (!press || event.pointerId !== press.pointer) return;
    this.press = null;
    // no frame asked for past the drop: it would hold the answer (docs/web.md)
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (this.board.element.hasPointerCapture(event.pointerId)) {
      this.board.element.releasePointerCapture(event.pointerId);
    }
    if (!this.drag) {
      this.tapped(press, event);
      return;
    }
    const to = this.board.columnAt(event.clientX, event.clientY);
    const targets = this.play.targets(press.column, press.count);
    // not known yet (a move still on its way): shown as dropped, and the server settles it
    const legal = Boolean(to && to !== press.column && (targets === null || targets.includes(to)));
    // auto placement: dropped anywhere but its own column or one that takes it, the group
    // goes to its best place (the double-click's move)
    const placed = !legal && to !== press.column && Boolean(this.play.autoPlace?.());
    // the table is drawn with the move: its cards glide from where the hand let them go
    if ((legal || placed) && moving()) {
      const copies = Array.from(this.drag.layer.children);
      this.drag.cards.forEach((card, index) => this.board.from.set(card, copies[index].getBoundingClientRect()));
    }
    if (placed) {
      this.play.auto(press.column, press.count);
      this.end(false);
      return;
    }
    if (legal) {
      // the two columns' cards read before any write: the drop costs one layout, not three
      const board = this.board;
      if (moving()) {
        for (const card of [...board.group(press.column, Infinity), ...board.group(to, Infinity)]) {
          if (!board.from.has(card)) board.from.set(card, card.getBoundingClientRect());
        }
      }
      const drag = this.drag;
      this.drag = null;
      this.play.drop(press.column, to, press.count, true, () => this.end(false, true, drag));
      return;
    }
    // a group let go off the table (or on its own column) goes back
    if (to && to !== press.column) this.play.drop(press.column, to, press.count, false);
    this.end(true);
  }

  tapped(press, event) {
    const last = this.lastTap;
    const double =
      last?.count > 0 &&
      last.column === press.column &&
      event.timeStamp - last.time < DOUBLE_WITHIN &&
      Math.hypot(event.clientX - last.x, event.clientY - last.y) < 24;
    if (double) {
      this.lastTap = null;
      this.play.auto(press.column, last.count);
      return;
    }
    this.lastTap = { column: press.column, count: press.count, time: event.timeStamp, x: event.clientX, y: event.clientY };
    this.play.tap(press.column, press.count);
  }

  cancel() {
    if (!this.press) return;
    this.press = null;
    if (this.drag) this.end(true);
  }

  /** Drop the dragged copy: the cards are on the table again, where the move put them, or
   * gliding back from the hand to their column (`keep`: board.from kept for the drawing). */
  end(snapBack, keep = false, drag = this.drag) {
    if (this.drag === drag || !this.drag) {
      this.drag = null;
      if (this.frame) cancelAnimationFrame(this.frame);
      this.frame = 0;
    }
    this.board.highlight(null);
    if (drag.over) this.board.columns[drag.over - 1].classList.remove("over");
    const copies = Array.from(drag.layer.children);
    const seen = snapBack && moving() ? copies.map((copy) => copy.getBoundingClientRect()) : null;
    drag.layer.remove();
    if (!keep) this.board.from.clear();
    for (const card of drag.cards) card.classList.remove("lifted");
    if (seen) this.board.land(drag.cards.map((card, index) => [card, seen[index]]));
  }

  get dragging() {
    return Boolean(this.drag);
  }
}
