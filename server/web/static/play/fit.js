// The table's sizes, fitted to the screen: the cards and their overlap from the room the
// table has (its width, and the window's height below its top less what must stay in view
// under it), so the deal as it lies fills the screen and a column that grows gives up its
// overlap before anything scrolls. Measured only when the room changes (a resize, the table
// shown, the bar over it wrapping), never on a move; the sizes are CSS variables.

/** The deepest column of a deal as it lies (8, 8, 8, 7, 6, 5, 4, 3, 2, 1). */
export const DEAL_DEPTH = 8;
const MOST_CARD_WIDTH = 118;
const LEAST_CARD_WIDTH = 24;
/** A card's height to its width; on a tall, narrow screen (a phone) up to TALLEST. */
const ASPECT = 1.4;
const TALLEST = 1.8;

/** @typedef {{width: number, height: number, font: number, gap: number, least: number, most: number, room: number}} Size */

/** @param {number} cardWidth @param {number} scale the settings' large cards: 1.2 */
function fontOf(cardWidth, scale) {
  return Math.round(Math.max(12, Math.min(20, Math.round(cardWidth * 0.26))) * scale);
}

/** The least of a covered card that shows: its rank and suit. @param {number} font */
function leastOf(font) {
  return Math.round(font * 1.1) + 1;
}

/** The cards' size and overlap for a table `width` wide whose columns have `room` pixels of
 * height, the longest holding `longest` cards: as wide as ten columns allow, smaller only if
 * the longest column would not fit even with the least of each card showing; taller on a
 * screen with height to spare; a covered card shows at most `most` (the deal's deepest column
 * then reaches the bottom), at least `least`.
 * With `scale` over 1 (the settings' large cards) the rank and suit are that much larger,
 * and so is what shows of a covered card.
 * @param {number} width @param {number} room @param {number} longest @param {number} [scale]
 * @returns {Size} */
export function fit(width, room, longest, scale = 1) {
  const gap = Math.max(2, Math.round(width * 0.006));
  const depth = Math.max(longest, DEAL_DEPTH);
  let cardWidth = Math.max(LEAST_CARD_WIDTH, Math.min(MOST_CARD_WIDTH, Math.floor((width - 11 * gap) / 10)));
  while (cardWidth > LEAST_CARD_WIDTH && Math.round(cardWidth * ASPECT) + (depth - 1) * leastOf(fontOf(cardWidth, scale)) > room) {
    cardWidth -= 1;
  }
  const font = fontOf(cardWidth, scale);
  const least = leastOf(font);
  let height = Math.round(cardWidth * ASPECT);
  // height to spare: the cards grow taller, up to the deal's columns of whole cards
  const whole = Math.floor(room / DEAL_DEPTH);
  if (whole > height) height = Math.min(Math.round(cardWidth * TALLEST), whole);
  const most = Math.max(least, Math.min(height, Math.floor((room - height) / (DEAL_DEPTH - 1))));
  return { width: cardWidth, height, font, gap, least, most, room };
}

/** How far apart the cards of a column of `count` lie: `most` while it fits, then less,
 * down to `least`. @param {Size} size @param {number} count */
export function stepOf(size, count) {
  if (count < 2) return size.most;
  const fitting = Math.floor((size.room - size.height) / (count - 1));
  return Math.max(size.least, Math.min(size.most, fitting));
}

/** The room the table `element` has: its width, and from its top to the window's bottom,
 * less what follows it in its view that must stay in view too (the keys' help; not the
 * race's standings under the table on a narrow screen) and its own frame (padding, the
 * column numbers). `first` is its first column.
 * @param {HTMLElement} element @param {HTMLElement} first */
export function measure(element, first) {
  const box = element.getBoundingClientRect();
  const table = element.parentElement;
  const view = element.closest("[data-view]");
  const main = element.closest("main");
  const style = getComputedStyle(element);
  const after = view && table ? view.getBoundingClientRect().bottom - table.getBoundingClientRect().bottom : 0;
  const below = Math.max(0, after) + (main ? parseFloat(getComputedStyle(main).paddingBottom) : 0);
  // two pixels to spare: what lies above the table may settle a little lower after it was
  // measured (a line's layout: once seen 1.3 px), and the felt's foot must stay on the screen
  const felt = Math.floor(window.innerHeight - (box.top + window.scrollY) - below) - 2;
  const frame = first.getBoundingClientRect().top - box.top + parseFloat(style.paddingBottom);
  return { width: element.clientWidth, felt, frame, room: felt - frame };
}

/** Call `refit` once a frame at most while the room of the table `element` may have
 * changed: its width, the window, or the height of its view (the bar over it wrapping, the
 * keys' help under it). Its own height follows the room: that alone does not count.
 * @param {HTMLElement} element @param {() => void} refit */
export function watch(element, refit) {
  let frame = 0;
  const soon = () => {
    if (!frame) {
      frame = requestAnimationFrame(() => {
        frame = 0;
        refit();
      });
    }
  };
  /** @type {Map<Element, DOMRectReadOnly>} */
  const seen = new Map();
  const observer = new ResizeObserver((entries) => {
    for (const { target, contentRect } of entries) {
      const last = seen.get(target);
      seen.set(target, contentRect);
      const mine = target === element;
      if (!last || last.width !== contentRect.width || (!mine && last.height !== contentRect.height)) soon();
    }
  });
  observer.observe(element);
  const view = element.closest("[data-view]");
  if (view) observer.observe(view);
  window.addEventListener("resize", soon);
}
