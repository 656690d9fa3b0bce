// What the page shows around the table: the race room, the standings beside the table,
// the result of a game or a race.

import { $, counted, ordinal } from "./dom.js";
import { clock, racerLine } from "./race.js";

/** The waiting room: its code and link, who is in, how it starts. */
export function renderRoom(page) {
  const view = page.room.view;
  if (!view) return;
  const me = page.player?.name;
  $("[data-room-code]").textContent = view.code;
  const link = `${location.origin}/play?race=${encodeURIComponent(view.code)}`;
  const anchor = $("[data-room-link]");
  anchor.href = link;
  anchor.textContent = link;
  const suits = view.suits === 1 ? "1 suit" : `${view.suits} suits`;
  const waiting = `${view.racers.length} of ${view.capacity} racers`;
  const how = view.public
    ? "It starts by itself: at once with 3 racers, or shortly after a second racer comes."
    : view.owner === me
      ? "Start the race when your friends are in."
      : `${view.owner} starts the race.`;
  const lede = {
    open: `${suits}, ${waiting}. ${how}`,
    countdown: `${suits}: the race is about to start. Everyone gets the same deal at the same instant.`,
    racing: `${suits}: racing.`,
    over: `${suits}: the race is over.`,
    expired: "This room expired before its race started.",
  }[view.state];
  $("[data-room-lede]").textContent = lede;
  const list = $("[data-room-racers]");
  list.replaceChildren(...view.racers.map((racer, index) => racerLine(racer, view, me, index)));
  const startButton = $("[data-action=race-start]");
  startButton.hidden = !(view.state === "open" && view.owner === me && !view.public);
  startButton.disabled = view.racers.length < 2;
  const why = $("[data-race-start-why]");
  why.hidden = startButton.hidden || !startButton.disabled;
  why.textContent = "A race needs 2 racers: send the link.";
  $("[data-action=race-leave]").hidden = view.state !== "open";
}

/** Beside the table: the room's racers, or the daily race's leaders. */
export function renderStandings(page) {
  const aside = $("[data-standings]");
  const game = page.game;
  const view = page.room.view;
  const me = page.player?.name;
  if (game?.view.race && view && view.code === game.view.race) {
    aside.hidden = false;
    $("[data-standings-title]").textContent = `Race ${view.code}`;
    $("[data-standings-list]").replaceChildren(...view.racers.map((racer, index) => racerLine(racer, view, me, index)));
  } else if (game?.view.mode === "daily" && page.digest && page.digest.suits === game.view.suits) {
    aside.hidden = false;
    const digest = page.digest;
    // a result held for review is not in the digest yet: say why it is missing
    const held = page.result?.game === game.id && page.result.review === "held" ? " (yours is under review)" : "";
    $("[data-standings-title]").textContent =
      `Today's race: ${digest.playing} playing, ${digest.finished} finished${held}`;
    $("[data-standings-list]").replaceChildren(
      ...digest.players.map((row) => {
        const item = document.createElement("li");
        if (row.player === me) item.className = "me";
        const state = row.won ? "won" : row.resigned ? "gave up" : row.left ? "left" : "playing";
        item.textContent = `${row.rank}. ${row.player}${row.bot ? " (bot)" : ""} · ${row.score} · ${state}`;
        return item;
      }),
    );
  } else if (game?.view.race || game?.view.mode === "daily") {
    // the standings are on their way: their place beside the table is kept from the deal
    // on, so the cards do not shrink under the pointer when they come
    aside.hidden = false;
    $("[data-standings-title]").textContent = game.view.race ? `Race ${game.view.race}` : "Today's race";
    $("[data-standings-list]").replaceChildren();
  } else {
    aside.hidden = true;
  }
}

/** Whether there is a result to show: the game's end as the server said it, or its race's. */
export function hasResult(page) {
  const view = page.room.view;
  const inRace = page.game?.view.race && view?.code === page.game.view.race;
  return Boolean(page.result || (inRace && view.state === "over"));
}

/** The end of a game, or of a race, over the table. */
export function showResult(page) {
  const result = page.result;
  const game = page.game;
  const view = page.room.view;
  const inRace = game?.view.race && view?.code === game.view.race;
  if (!hasResult(page)) return;
  const box = $("[data-result-box]");
  const me = page.player?.name;
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
  const rematchOpen = inRace && view.state === "over" && (view.next || page.room.rematchOpen === view.code);
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
