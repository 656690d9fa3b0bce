// A win worth having: for a moment (at most about 1.5 s) a burst of cards over the table,
// made with the Web Animations API (each animation's id is "celebrate"), before the result
// comes. With prefers-reduced-motion there is none, and the result comes at once.

import { SUITS } from "./game.js";
import { laterStyles } from "./dom.js";
import { flourish } from "./motion.js";

await laterStyles(); // the burst's styles (play/later.css), fetched with it

const CARDS = 28;
const LONGEST = 1100; // ms a card flies
const SPREAD = 300; // ms between the first card's start and the last's
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

/** Whether the player asked for less motion. */
export function reducedMotion() {
  return matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** Celebrate over `table` (the board's element); resolves when it is over (at once with
 * reduced motion). @param {HTMLElement} table @returns {Promise<void>} */
export function celebrate(table) {
  if (reducedMotion()) return Promise.resolve();
  const box = table.getBoundingClientRect();
  const layer = document.createElement("div");
  layer.className = "celebration";
  layer.dataset.celebration = "";
  layer.setAttribute("aria-hidden", "true");
  const fromX = box.left + box.width / 2;
  const fromY = box.top + Math.min(box.height, window.innerHeight - box.top) * 0.55;
  const reach = Math.max(160, Math.min(box.width, window.innerWidth) * 0.55);
  const suits = Object.keys(SUITS);
  const flights = [];
  for (let index = 0; index < CARDS; index += 1) {
    const suit = suits[index % suits.length];
    const card = document.createElement("div");
    card.className = `playing-card suit-${suit}`;
    const corner = document.createElement("span");
    corner.className = "corner";
    corner.textContent = `${RANKS[(index * 5) % RANKS.length]}${SUITS[suit].symbol}`;
    const pip = document.createElement("span");
    pip.className = "pip";
    pip.textContent = SUITS[suit].symbol;
    card.append(corner, pip);
    card.style.left = `${fromX}px`;
    card.style.top = `${fromY}px`;
    layer.append(card);
    // a fan upwards, then down as if thrown: each card its own angle, height and spin
    const angle = -Math.PI / 2 + ((index / (CARDS - 1)) * 2 - 1) * 1.25;
    const distance = reach * (0.55 + ((index * 7) % 10) / 20);
    const x = Math.cos(angle) * distance;
    const y = Math.sin(angle) * distance;
    const turn = ((index % 2 ? 1 : -1) * (180 + ((index * 37) % 200)));
    flights.push({ card, x, y, turn, delay: (index * SPREAD) / CARDS });
  }
  document.body.append(layer);
  const animations = flights.map(({ card, x, y, turn, delay }) => {
    const animation = card.animate(
      [
        { transform: "translate(-50%, -50%) scale(0.4) rotate(0deg)", opacity: 0 },
        { opacity: 1, offset: 0.12 },
        { transform: `translate(calc(-50% + ${x * 0.6}px), calc(-50% + ${y}px)) scale(1) rotate(${turn * 0.5}deg)`, opacity: 1, offset: 0.5 },
        { opacity: 1, offset: 0.75 },
        { transform: `translate(calc(-50% + ${x}px), calc(-50% + ${y * 0.2 + 140}px)) scale(0.8) rotate(${turn}deg)`, opacity: 0 },
      ],
      { duration: LONGEST - delay / 2, delay, easing: "cubic-bezier(0.2, 0.7, 0.4, 1)", fill: "both" },
    );
    animation.id = "celebrate";
    flourish(animation);
    return animation.finished;
  });
  // never longer than planned, even if a frame is lost: the result must come
  const limit = new Promise((resolve) => setTimeout(resolve, LONGEST + SPREAD + 100));
  return Promise.race([Promise.all(animations).catch(() => {}), limit]).then(() => layer.remove());
}
