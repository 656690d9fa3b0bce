// The game as the page shows it: the server's last word (confirmed) with the moves sent
// but not yet answered played on top (optimistic). Only what display needs: the server
// judges every move and says, with each state and move, which groups may go where.

import { columnsOf } from "./cards.js";

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
