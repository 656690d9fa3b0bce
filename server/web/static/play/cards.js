// Cards as the protocol writes them ("TH": rank then suit letter), for display only.

const RANKS = { A: 1, T: 10, J: 11, Q: 12, K: 13 };
const RANK_NAMES = { 1: "ace", 11: "jack", 12: "queen", 13: "king" };
const RANK_SHOWN = { 1: "A", 10: "10", 11: "J", 12: "Q", 13: "K" };
export const SUITS = {
  S: { symbol: "♠", name: "spades" },
  H: { symbol: "♥", name: "hearts" },
  D: { symbol: "♦", name: "diamonds" },
  C: { symbol: "♣", name: "clubs" },
};

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
    name: `${RANK_NAMES[rank] ?? rank} of ${SUITS[suit].name}`,
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
