// The table: ten columns of overlapping cards, sized to fit the window (no sideways
// scrolling), with the hooks tests and userscripts use: [data-column] holding [data-card]
// deepest first, data-legal="true" on the columns a lifted group may go to.

import { card } from "./cards.js";
import { t, tn } from "./i18n.js";

const MOST_CARD_WIDTH = 118;

export class Board {
  constructor(element) {
    this.element = element;
    /** @type {(HTMLDivElement & {placedHeight?: number})[]} the ten columns, the height last written kept on each */
    this.columns = [];
    this.counts = [];
    this.focused = 1;
    this.size = { width: 60, height: 84, font: 14 };
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
    // a new width resizes the cards; the table growing taller with a move does not
    new ResizeObserver(([entry]) => {
      if (entry.contentRect.width !== this.observedWidth) {
        this.observedWidth = entry.contentRect.width;
        this.layout();
      }
    }).observe(element);
    window.addEventListener("resize", () => this.layout());
  }

  /** Show `columns` (arrays of card texts); `movable[c]` cards at the end of column c+1
   * may be picked up (lit), or null when not known. */
  render(columns, movable) {
    columns.forEach((cards, index) => {
      const column = this.columns[index];
      const number = index + 1;
      const existing = column.children;
      // keep the elements that show the same cards: a move touches two columns
      let same = 0;
      while (same < existing.length && same < cards.length && /** @type {HTMLElement} */ (existing[same]).dataset.card === cards[same]) {
        same += 1;
      }
      while (existing.length > same) existing[existing.length - 1].remove();
      for (let position = same; position < cards.length; position += 1) {
        column.append(cardElement(cards[position], number));
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
  }

  /** Size the cards to the board's width and the overlap to the window's height (on a
   * resize, or when the table is shown: it measures, so never on a move). */
  layout() {
    const width = this.element.clientWidth;
    if (!width) return;
    const gap = Math.max(2, Math.round(width * 0.008));
    // the settings' large cards: wider where the screen has room, and a larger rank and suit
    const large = document.body.classList.contains("large-cards") ? 1.2 : 1;
    const cardWidth = Math.min(Math.round(MOST_CARD_WIDTH * large), Math.floor((width - 11 * gap) / 10)); // padding: a gap each side
    const cardHeight = Math.round(cardWidth * 1.4);
    const font = Math.round(Math.max(12, Math.min(20, cardWidth * 0.26)) * large);
    const changed = cardWidth !== this.size.width || gap !== this.size.gap || font !== this.size.font;
    this.size = { width: cardWidth, height: cardHeight, font, gap };
    if (changed) {
      // on the root: the dragged and the leaving cards are drawn outside the table
      const style = document.documentElement.style;
      style.setProperty("--card-width", `${cardWidth}px`);
      style.setProperty("--card-height", `${cardHeight}px`);
      style.setProperty("--card-font", `${font}px`);
      style.setProperty("--gap", `${gap}px`);
    }
    const top = this.element.getBoundingClientRect().top + window.scrollY;
    this.room = Math.max(cardHeight * 2, window.innerHeight - top - 12);
    this.arrange();
  }

  /** Place the cards by the last measures: only what changed is written, so a move
   * restyles two columns and nothing is measured. */
  arrange() {
    const { height: cardHeight, font } = this.size;
    const room = this.room ?? cardHeight * 4;
    // a card's strip shows its rank and suit; with room to spare (a tall phone) it grows
    const most = Math.max(Math.round(cardHeight * 0.3), Math.round(font * 1.9));
    const least = Math.round(font * 1.2);
    let tallest = cardHeight;
    this.columns.forEach((column, index) => {
      const count = this.counts[index] ?? 0;
      const step = count > 1 ? Math.max(least, Math.min(most, Math.floor((room - cardHeight) / (count - 1)))) : most;
      // the place last written is kept on the element: written again only when it changes
      /** @type {(HTMLElement & {placedAt?: number})[]} */ (Array.from(column.children)).forEach((element, position) => {
        const top = position * step;
        if (element.placedAt !== top) {
          element.placedAt = top;
          element.style.top = `${top}px`;
        }
      });
      const height = cardHeight + Math.max(0, count - 1) * step;
      if (column.placedHeight !== height) {
        column.placedHeight = height;
        column.style.height = `${height}px`;
      }
      tallest = Math.max(tallest, height);
    });
    if (this.tallest !== tallest) {
      this.tallest = tallest;
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
    const children = Array.from(this.columns[number - 1].children);
    return children.slice(children.length - count);
  }

  /** Light the columns a group may go to (data-legal="true"); none: clear them. */
  highlight(targets) {
    this.columns.forEach((column, index) => {
      if (targets && targets.includes(index + 1)) column.dataset.legal = "true";
      else delete column.dataset.legal;
    });
  }

  /** Mark the picked-up group (keyboard or tap), or clear the mark. */
  select(number, count) {
    for (const element of this.element.querySelectorAll(".selected")) element.classList.remove("selected");
    if (number) for (const element of this.group(number, count)) element.classList.add("selected");
  }

  /** The column under the point (x, y), by the columns' geometry, or 0. */
  columnAt(x, y) {
    const board = this.element.getBoundingClientRect();
    // anywhere down a column's band counts, below the felt too: a finger hides where it is
    if (y < board.top - 40 || y > Math.max(board.bottom, window.innerHeight) + 40) return 0;
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

function cardElement(text, column) {
  const shown = card(text);
  const element = document.createElement("div");
  element.className = `playing-card suit-${shown.suit}`;
  element.dataset.card = text;
  element.setAttribute("role", "listitem");
  element.setAttribute("aria-label", t("%(card)s, column %(column)s", { card: shown.name, column }));
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
