// Cards as the protocol writes them ("TH": rank then suit letter), for display only.

import { t } from "./i18n.js";

const RANKS = { A: 1, T: 10, J: 11, Q: 12, K: 13 };
const RANK_SHOWN = { 1: "A", 10: "10", 11: "J", 12: "Q", 13: "K" };
export const SUITS = {
  S: { symbol: "♠" },
  H: { symbol: "♥" },
  D: { symbol: "♦" },
  C: { symbol: "♣" },
};

/** A rank as a card is called ("ace", "10"). @param {number} rank */
function rankName(rank) {
  if (rank === 1) return t("ace");
  if (rank === 11) return t("jack");
  if (rank === 12) return t("queen");
  if (rank === 13) return t("king");
  return String(rank);
}

/** "ace of spades", "10 of hearts": the whole name, each suit its own sentence (a suit's
 * word takes its rank's case in Polish and Russian). @param {number} rank @param {string} suit */
function cardName(rank, suit) {
  const params = { rank: rankName(rank) };
  if (suit === "S") return t("%(rank)s of spades", params);
  if (suit === "H") return t("%(rank)s of hearts", params);
  if (suit === "D") return t("%(rank)s of diamonds", params);
  return t("%(rank)s of clubs", params);
}

/** {text, rank, suit, shown, symbol, name} of a card's protocol text. */
export function card(text) {
  const rank = RANKS[text[0]] ?? Number(text[0]);
  const suit = text[1];
  return {
    text,
    rank,
    suit,
    shown: RANK_SHOWN[rank] ?? String(rank),
    symbol: SUITS[suit].symbol,
    name: cardName(rank, suit),
  };
}

/** "8♠" */
export function short(text) {
  const c = card(text);
  return c.shown + c.symbol;
}

/** The ten columns of a board in board text (one line a column, deepest card first). */
export function columnsOf(board) {
  return board.map((line) => (line.trim() ? line.trim().split(/\s+/) : []));
}

/** "8♠ 7♠" or "8♠…2♠" for a longer group. */
export function groupText(cards) {
  if (cards.length <= 3) return cards.map(short).join(" ");
  return `${short(cards[0])}…${short(cards[cards.length - 1])}`;
}
