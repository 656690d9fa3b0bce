// The table: ten columns of overlapping cards, sized to fit the window (no sideways
// scrolling), with the hooks tests and userscripts use: [data-column] holding [data-card]
// deepest first, data-legal="true" on the columns a lifted group may go to.

import { card } from "./game.js";
import { fit, measure, stepOf, watch } from "./fit.js";
import { t, tn } from "./i18n.js";
import { arrive, glide, moving } from "./motion.js";

export class Board {
  constructor(element) {
    this.element = element;
    /** @type {(HTMLDivElement & {placedHeight?: number, placedStep?: number})[]} the ten columns, the height and step last written kept on each */
    this.columns = [];
    this.counts = [];
    this.focused = 1;
    /** @type {import("./fit.js").Size} */
    this.size = { width: 0, height: 0, font: 0, gap: 0, least: 0, most: 0, room: 0 }; // written at the first fit
    /** @type {{width: number, felt: number, frame: number, room: number} | null} the room last measured */
    this.box = null;
    /** @type {Map<HTMLElement, DOMRect>} where cards are seen now when not on the table (a
     * dragged group's copies): the next render glides them from there */
    this.from = new Map();
    // the numbers the keys name (a first row of the grid); screen readers hear each column's label
    for (let number = 1; number <= 10; number += 1) {
      const label = document.createElement("span");
      label.className = "column-number";
      label.setAttribute("aria-hidden", "true");
      label.textContent = String(number);
      element.append(label);
    }
    for (let number = 1; number <= 10; number += 1) {
      const column = document.createElement("div");
      column.className = "pile";
      column.dataset.column = String(number);
      column.setAttribute("role", "list");
      column.setAttribute("aria-label", t("Column %(column)s", { column: number }));
      column.tabIndex = number === 1 ? 0 : -1;
      element.append(column);
      this.columns.push(column);
    }
    // a new width or window resizes the cards; the table growing taller with a move does not
    watch(element, () => this.layout());
  }

  /** Show `columns` (arrays of card texts); `movable[c]` cards at the end of column c+1
   * may be picked up (lit), or null when not known. The cards that moved glide from where
   * they were (FLIP, motion.js), unless `glides` is false (a new deal comes as it is). */
  render(columns, movable, glides = true) {
    // shown: asked of the DOM, not of a layout (a drop's drawing would need one more)
    const motion = glides && moving() && !this.element.closest("[hidden]");
    // each column keeps the elements that show the same cards: a move touches two columns
    const kept = columns.map((cards, index) => {
      const existing = this.columns[index].children;
      let same = 0;
      while (same < existing.length && same < cards.length && /** @type {HTMLElement} */ (existing[same]).dataset.card === cards[same]) {
        same += 1;
      }
      return same;
    });
    // FLIP's first: where each card of a column that changes is now, all read before any
    // write; the cards leaving a column are kept by their text for the column they go to
    /** @type {Map<HTMLElement, import("./motion.js").Place>} */
    const was = new Map();
    /** @type {Map<string, HTMLElement[]>} */
    const freed = new Map();
    columns.forEach((cards, index) => {
      const existing = /** @type {HTMLElement[]} */ (Array.from(this.columns[index].children));
      if (kept[index] === existing.length && kept[index] === cards.length) return;
      existing.forEach((element, position) => {
        if (motion) was.set(element, this.from.get(element) ?? element.getBoundingClientRect());
        if (position < kept[index]) return;
        const same = freed.get(element.dataset.card);
        if (same) same.push(element);
        else freed.set(element.dataset.card, [element]);
      });
    });
    this.from.clear();
    /** @type {HTMLElement[]} */
    const fresh = [];
    columns.forEach((cards, index) => {
      const column = this.columns[index];
      const number = index + 1;
      const existing = column.children;
      while (existing.length > kept[index]) existing[existing.length - 1].remove();
      for (let position = kept[index]; position < cards.length; position += 1) {
        let element = freed.get(cards[position])?.shift();
        if (element) element.setAttribute("aria-label", cardLabel(cards[position], number));
        else fresh.push((element = cardElement(cards[position], number)));
        element.style.setProperty("--i", String(position)); // its place: --i times its column's --step
        column.append(element);
      }
      const lit = movable ? movable[index] : 0;
      Array.from(column.children).forEach((element, position) => {
        element.classList.toggle("movable", position >= cards.length - lit);
      });
      const label = cards.length
        ? tn("Column %(column)s, %(count)s card", "Column %(column)s, %(count)s cards", cards.length, { column: number })
        : t("Column %(column)s, empty", { column: number });
      column.setAttribute("aria-label", label);
      column.classList.toggle("empty", !cards.length);
    });
    this.counts = columns.map((cards) => cards.length);
    this.arrange();
    if (!motion) return;
    this.land(Array.from(was, ([element, from]) => [element, from]));
    // cards that come back from nowhere (a removed run undone) drop in from above
    fresh.forEach((element, order) => {
      if (!was.has(element)) this.mark(element, arrive(element, order));
    });
  }

  /** FLIP's last and play: each card glides from its box in `pairs` to where it is drawn
   * (its place read for all of them first, then the animations started: one layout). */
  land(/** @type {[HTMLElement, import("./motion.js").Place][]} */ pairs) {
    const here = pairs.filter(([element]) => element.isConnected);
    const places = here.map(([element]) => this.placeOf(element));
    here.forEach(([element, from], index) => this.mark(element, glide(element, from, places[index])));
  }

  /** Where `element` (a card on the table) is drawn when nothing moves it: its layout box,
   * whatever glide it is in. */
  placeOf(/** @type {HTMLElement} */ element) {
    const pile = element.parentElement.getBoundingClientRect();
    return new DOMRect(pile.left + element.offsetLeft, pile.top + element.offsetTop, element.offsetWidth, element.offsetHeight);
  }

  /** A card on its way: its column is drawn over the others until the card has landed. */
  mark(/** @type {HTMLElement} */ element, /** @type {Animation | null} */ animation) {
    if (!animation) return;
    const column = /** @type {HTMLElement & {landing?: object}} */ (element.parentElement);
    const token = {};
    column.landing = token;
    column.classList.add("landing");
    const done = () => {
      if (column.landing === token) column.classList.remove("landing");
    };
    animation.finished.then(done, done);
  }

  /** Measure the room the table has (on a resize, or when the table is shown: never on a
   * move), fill it with felt, and fit the cards to it. */
  layout() {
    if (!this.element.clientWidth) return;
    this.box = measure(this.element, this.columns[0]);
    this.element.style.height = `${this.box.felt}px`;
    document.documentElement.style.setProperty("--felt", `${this.box.felt}px`);
    this.arrange();
  }

  /** Fit the cards to the room last measured and the columns' lengths: only what changed
   * is written (a column's step and height; the cards' sizes only when the longest column
   * no longer fits them), so a move restyles two columns and nothing is measured. */
  arrange() {
    if (!this.box) return;
    // the settings' large cards: a larger rank and suit, and more of each covered card
    const scale = document.body.classList.contains("large-cards") ? 1.2 : 1;
    const size = fit(this.box.width, this.box.room, Math.max(0, ...this.counts), scale);
    const old = this.size;
    this.size = size;
    if (size.width !== old.width || size.height !== old.height || size.gap !== old.gap || size.font !== old.font) {
      // on the root: the dragged and the leaving cards are drawn outside the table
      const style = document.documentElement.style;
      style.setProperty("--card-width", `${size.width}px`);
      style.setProperty("--card-height", `${size.height}px`);
      style.setProperty("--card-font", `${size.font}px`);
      style.setProperty("--gap", `${size.gap}px`);
    }
    let tallest = size.height;
    this.columns.forEach((column, index) => {
      const count = this.counts[index] ?? 0;
      const step = stepOf(size, count);
      if (column.placedStep !== step) {
        column.placedStep = step;
        column.style.setProperty("--step", `${step}px`);
      }
      const height = size.height + Math.max(0, count - 1) * step;
      if (column.placedHeight !== height) {
        column.placedHeight = height;
        column.style.height = `${height}px`;
      }
      tallest = Math.max(tallest, height);
    });
    tallest += this.box.frame; // the table's own frame: its padding and the column numbers
    if (this.tallest !== tallest) {
      this.tallest = tallest;
      this.element.style.setProperty("--band", `${tallest}px`); // a lit column's band, to the felt's foot
      if (!this.heldUntil) this.element.style.minHeight = `${tallest}px`;
    }
  }

  /** Keep the table at least its present height for `ms`: a run flying off is drawn where
   * it was, which must stay on the felt while the columns it left grow shorter. */
  holdHeight(ms) {
    const element = this.element;
    element.style.minHeight = `${Math.max(this.tallest ?? 0, element.offsetHeight)}px`;
    clearTimeout(this.heldUntil);
    this.heldUntil = setTimeout(() => {
      this.heldUntil = null;
      element.style.minHeight = `${this.tallest}px`;
    }, ms);
  }

  /** The cards of a group: the last `count` of column `number`. */
  group(number, count) {
    const children = /** @type {HTMLElement[]} */ (Array.from(this.columns[number - 1].children));
    return children.slice(children.length - count);
  }

  /** Light the columns a group may go to (data-legal="true"); none: clear them. */
  highlight(targets) {
    this.columns.forEach((column, index) => {
      if (targets && targets.includes(index + 1)) column.dataset.legal = "true";
      else delete column.dataset.legal;
    });
    // while a group is held the only marks are where it may go: the pick-up edges step back
    this.element.classList.toggle("holding", Boolean(targets));
  }

  /** Mark the picked-up group (keyboard or tap), or clear the mark. */
  select(number, count) {
    for (const element of this.element.querySelectorAll(".selected")) element.classList.remove("selected");
    if (number) for (const element of this.group(number, count)) element.classList.add("selected");
  }

  /** The column under the point (x, y), by the columns' geometry, or 0. */
  columnAt(x, y) {
    const board = this.element.getBoundingClientRect();
    // anywhere down a column's band counts, to a little below the felt (a finger hides where
    // it is); further down is off the table, and a group let go there goes back
    if (y < board.top - 40 || y > board.bottom + this.size.height * 0.5) return 0;
    let best = 0;
    let distance = Infinity;
    this.columns.forEach((column, index) => {
      const box = column.getBoundingClientRect();
      const away = x < box.left ? box.left - x : x > box.right ? x - box.right : 0;
      if (away < distance) {
        distance = away;
        best = index + 1;
      }
    });
    return distance <= this.size.gap + 8 ? best : 0;
  }

  /** Keyboard focus to column `number` (one column takes Tab: the others by arrows). */
  focus(number) {
    this.focused = number;
    this.columns.forEach((column, index) => {
      column.tabIndex = index + 1 === number ? 0 : -1;
    });
    this.columns[number - 1].focus();
  }
}

function cardLabel(text, column) {
  return t("%(card)s, column %(column)s", { card: card(text).name, column });
}

function cardElement(text, column) {
  const shown = card(text);
  const element = document.createElement("div");
  element.className = `playing-card suit-${shown.suit}`;
  element.dataset.card = text;
  element.setAttribute("role", "listitem");
  element.setAttribute("aria-label", cardLabel(text, column));
  const corner = document.createElement("span");
  corner.className = "corner";
  corner.textContent = shown.shown + shown.symbol;
  corner.setAttribute("aria-hidden", "true");
  const pip = document.createElement("span");
  pip.className = "pip";
  pip.textContent = shown.symbol;
  pip.setAttribute("aria-hidden", "true");
  element.append(corner, pip);
  return element;
}
