// The game as the page shows it: the server's last word (confirmed) with the moves sent
// but not yet answered played on top (optimistic). Only what display needs: the server
// judges every move and says, with each state and move, which groups may go where. And its
// cards as the protocol writes them ("TH": rank then suit letter), for display only.

import { t } from "./i18n.js";

/** "3-7x2" -> {from: 3, to: 7, count: 2} (columns from 1). */
export function parseMove(text) {
  const found = /^(\d+)-(\d+)(?:x(\d+))?$/.exec(text);
  if (!found) return null;
  return { from: Number(found[1]), to: Number(found[2]), count: found[3] ? Number(found[3]) : null };
}

export const RUN_LENGTH = 13;

/** Play a move with an explicit count on `columns` (arrays of card texts), in place. */
export function applyMove(columns, move, removedRun) {
  const source = columns[move.from - 1];
  const target = columns[move.to - 1];
  target.push(...source.splice(source.length - move.count, move.count));
  if (removedRun) target.splice(target.length - RUN_LENGTH, RUN_LENGTH);
}

export class Game {
  constructor(view) {
    this.pending = []; // {id, move} sent, not answered yet, in order
    this.take(view);
  }

  /** A whole state from the server replaces everything it knew. */
  take(view) {
    this.view = view;
    this.id = view.game;
    this.seq = view.seq;
    this.confirmed = columnsOf(view.board);
    this.legal = view.legal ?? null;
    this.moves = view.moves;
    this.score = view.score;
    this.removed = view.removed;
    this.canUndo = view.can_undo;
    this.finished = view.finished;
    this.won = view.won;
    this.receivedAt = performance.now();
    this.elapsed = view.elapsed;
    this.pending = [];
  }

  /** The board shown: confirmed, with the pending moves played on it. */
  columns() {
    const columns = this.confirmed.map((column) => column.slice());
    for (const { move } of this.pending) applyMove(columns, move, false);
    return columns;
  }

  /** How many cards at the end of `column` (from 1) may be picked up, or null when unknown
   * (a move is on its way: the server's answer says). */
  movable(column) {
    if (this.pending.length || !this.legal) return null;
    return this.legal[column - 1].length;
  }

  /** The columns a group of `count` from `column` may go to (null: not known yet). */
  targets(column, count) {
    if (this.pending.length || !this.legal) return null;
    return this.legal[column - 1][count - 1] ?? [];
  }

  /** A move sent: shown at once. */
  optimistic(id, move) {
    this.pending.push({ id, move });
  }

  /** The server's `moved`: true when it changed the confirmed game. */
  settle(moved) {
    this.pending = this.pending.filter((p) => p.id !== moved.id);
    if (moved.seq <= this.seq) return false; // already in the state (a resent answer)
    if (moved.seq !== this.seq + 1) return null; // missed something: ask for the state
    const move = parseMove(moved.move);
    applyMove(this.confirmed, move, moved.removed_run);
    this.seq = moved.seq;
    this.legal = moved.legal ?? null;
    this.moves = moved.moves;
    this.score = moved.score;
    this.removed = moved.removed;
    this.won = moved.won;
    this.canUndo = true;
    return true;
  }

  /** A refused move: forget it (the board shows the server's game again). */
  refuse(id) {
    const before = this.pending.length;
    this.pending = this.pending.filter((p) => p.id !== id);
    return this.pending.length !== before;
  }

  /** Seconds on the game's clock now (the server's figure, carried on by the page). */
  clock() {
    if (this.finished) return this.elapsed;
    return this.elapsed + (performance.now() - this.receivedAt) / 1000;
  }
}

// -- cards ---------------------------------------------------------------------------------


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
