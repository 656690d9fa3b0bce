// The end of a game, or of a race, over the table: the result as the server said it,
// the racers' places, the text to share, the links on, a rematch.

import { cancelSelection } from "./controls.js";
import { controller as c } from "./controller.js";
import { $, click, clock, copyText, counted, ordinal } from "./dom.js";
import { refreshDaily, showLobby } from "./lobby.js";
import { racerLine } from "./race.js";

/** Whether there is a result to show: the game's end as the server said it, or its race's. */
export function hasResult() {
  const view = c.room.view;
  const inRace = c.game?.view.race && view?.code === c.game.view.race;
  return Boolean(c.result || (inRace && view.state === "over"));
}

/** The end of a game, or of a race, over the table. */
export function showResult() {
  const result = c.result;
  const game = c.game;
  const view = c.room.view;
  const inRace = game?.view.race && view?.code === game.view.race;
  if (!hasResult()) return;
  const box = $("[data-result-box]");
  const me = c.player?.name;
  let heading = "Game over";
  const lines = [];
  if (result) {
    heading = result.won ? "You cleared the table!" : result.resigned ? "You resigned" : "The game is over";
    lines.push(`Score ${result.score} in ${counted(result.moves, "move")}, ${result.removed} of 4 runs, ${clock(result.elapsed)}.`);
    const board = result.board === "new" ? "the new players' board" : "today's board";
    if (result.review === "held") lines.push("Your result is under review: it reaches the board once a person has looked.");
    else if (result.rank) lines.push(`Rank ${result.rank} on ${board}.`);
    if (result.board === "new" && result.counts_from) {
      lines.push(`Your dailies count on the public board from ${result.counts_from}.`);
    }
    // first place says it all (and the first result of a day beats "100%" of one)
    if (result.percentile != null && result.rank !== 1) lines.push(`You did as well as or better than ${result.percentile}% of the board.`);
    if (result.par != null) lines.push(`Par: ${result.par} moves.`);
    if (result.streak) lines.push(`Days in a row: ${result.streak.current} (best ${result.streak.best}).`);
  }
  const share = $("[data-result-share]");
  $("[data-result-share-box]").hidden = !result?.share;
  // the server names the day's page by its path when it has no public address: this one
  share.textContent = (result?.share ?? "").replace(/^\//m, `${location.origin}/`);
  const racers = $("[data-result-racers]");
  racers.hidden = !inRace;
  if (inRace) {
    const mine = view.racers.find((racer) => racer.player === me);
    if (view.state === "over") {
      heading =
        mine?.place === 1 && mine.won
          ? "You won the race!"
          : mine?.place
            ? `Race over: you came ${ordinal(mine.place)}`
            : "Race over";
    } else {
      lines.push("The others are still racing…");
    }
    racers.replaceChildren(...view.racers.map((racer, index) => racerLine(racer, view, me, index)));
  }
  const rematchOpen = inRace && view.state === "over" && (view.next || c.room.rematchOpen === view.code);
  if (rematchOpen) lines.push("A rematch is open: join it to race again.");
  $("[data-result-title]").textContent = heading;
  $("[data-result-line]").textContent = lines.join(" ");
  const links = $("[data-result-links]");
  links.replaceChildren();
  const day = game?.view.day;
  const suits = game?.view.suits ?? 1;
  const add = (href, text) => {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    if (links.childElementCount) links.append(" · ");
    links.append(a);
  };
  const boardQuery = result?.board === "new" ? "&board=new" : "";
  if (day) add(`/day/${day}?suits=${suits}${boardQuery}`, "The day's board");
  if (inRace) add(`/race/${encodeURIComponent(view.code)}`, "The race's page");
  if (me) add(`/player/${encodeURIComponent(me)}`, "Your page");
  const rematch = $("[data-action=race-rematch]");
  rematch.hidden = !(inRace && view.state === "over");
  rematch.textContent = rematchOpen ? "Join the rematch" : "Rematch";
  box.hidden = false;
  $("[data-result-card]").dataset.result = result?.won ? "won" : result ? (result.resigned ? "resigned" : "over") : "race";
  $("[data-result-box] button[data-action=lobby]").focus();
}

export function hideResult() {
  $("[data-result-box]").hidden = true;
  delete $("[data-result-card]").dataset.result;
}

/** "See the table" (or Esc): the result goes, the keys go on at the table. */
function closeResult() {
  hideResult();
  c.board.focus(c.board.focused);
}

/** The result's buttons, and Esc. */
export function setupResult() {
  click("[data-action=copy-share]", (/** @type {MouseEvent} */ event) => {
    const share = $("[data-result-share]");
    copyText(share.textContent, /** @type {HTMLElement} */ (event.currentTarget), share);
  });
  click("[data-action=lobby]", () => {
    hideResult();
    cancelSelection();
    showLobby();
    refreshDaily();
  });
  click("[data-action=close-result]", closeResult);
  click("[data-action=show-result]", showResult);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !$("[data-result-box]").hidden && $("[data-token-box]").hidden) {
      event.preventDefault();
      closeResult();
    }
  });
}
