// Motion that explains a move (FLIP, Web Animations, transforms): cards glide to where they
// land, a removed run sweeps off as one, a group dropped nowhere glides back. None of it
// with prefers-reduced-motion.

export const GLIDE = 200; // ms a card takes to land
export const SWEEP = 520; // ms a removed run takes to leave
const EASE = "cubic-bezier(0.2, 0.7, 0.3, 1)";

const reduced = matchMedia("(prefers-reduced-motion: reduce)");

/** Whether the page may move things (the player has not asked for less motion). */
export function moving() {
  return !reduced.matches;
}

/** @typedef {{left: number, top: number}} Place */

/** Each card's glide: getAnimations() would restyle the page once a card. */
const glides = new WeakMap();
/** A run's sweep and pulse, a win's burst: a press ends them (docs/web.md). */
const flourishes = new Set();

export function flourish(/** @type {Animation} */ animation) {
  flourishes.add(animation);
  animation.onfinish = () => flourishes.delete(animation);
}

export function settle() {
  for (const animation of flourishes) animation.finish();
}

/** The runs count's pulse. */
export function pulse(/** @type {HTMLElement} */ element) {
  flourish(element.animate([{ transform: "scale(1.35)" }, { transform: "none" }], { duration: 900, easing: "ease-out" }));
}

/** Glide `element` from `from` to `to`, where it is drawn now (its last glide dropped). */
export function glide(/** @type {HTMLElement} */ element, /** @type {Place} */ from, /** @type {Place} */ to) {
  const dx = from.left - to.left;
  const dy = from.top - to.top;
  glides.get(element)?.cancel();
  if (Math.abs(dx) < 0.5 && Math.abs(dy) < 0.5) return null;
  const animation = element.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], {
    duration: GLIDE,
    easing: EASE,
  });
  animation.id = "glide";
  glides.set(element, animation);
  return animation;
}

/** Cards that come back from nowhere (an undone removal): they drop in from above. */
export function arrive(/** @type {HTMLElement} */ element, /** @type {number} */ order) {
  const animation = element.animate(
    [
      { transform: "translateY(-40vh)", opacity: 0 },
      { transform: "none", opacity: 1 },
    ],
    { duration: GLIDE, easing: EASE, delay: Math.min(order, 12) * 4, fill: "backwards" },
  );
  animation.id = "glide";
  glides.set(element, animation);
  return animation;
}

/** A removed run's `cards` (deepest first), copied into a layer that sweeps away once
 * they have landed. @param {{element: HTMLElement, at: DOMRect, from?: Place}[]} cards */
export function sweep(cards) {
  const layer = document.createElement("div");
  layer.className = "leaving-layer";
  layer.setAttribute("aria-hidden", "true");
  const base = cards[0].at;
  const last = cards[cards.length - 1].at;
  // the layer is the run's box, so it turns about the run's middle
  layer.style.left = `${base.left}px`;
  layer.style.top = `${base.top}px`;
  layer.style.width = `${base.width}px`;
  layer.style.height = `${last.bottom - base.top}px`;
  let landing = false;
  for (const { element, at, from } of cards) {
    const copy = /** @type {HTMLElement} */ (element.cloneNode(true));
    copy.removeAttribute("data-card");
    copy.removeAttribute("role");
    copy.removeAttribute("aria-label");
    copy.classList.remove("movable", "selected", "lifted");
    copy.style.left = `${at.left - base.left}px`;
    copy.style.top = `${at.top - base.top}px`;
    layer.append(copy);
    if (from && glide(copy, from, at)) landing = true;
  }
  document.body.append(layer);
  const leaving = layer.animate(
    [
      { transform: "none", opacity: 1 },
      { transform: "translate3d(0, -70vh, 0) rotate(-12deg) scale(0.6)", opacity: 0 },
    ],
    { duration: SWEEP, delay: landing ? GLIDE : 60, easing: "cubic-bezier(0.5, 0, 0.75, 0)", fill: "both" },
  );
  flourish(leaving);
  leaving.id = "sweep";
  leaving.finished.then(
    () => layer.remove(),
    () => layer.remove(),
  );
  return landing ? GLIDE + SWEEP : SWEEP + 60;
}
