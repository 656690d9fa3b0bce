// The result drawn over the table (table.js loads this module at the first game's end: a
// first visit does not pay for it): a win celebrated first (celebrate.js), its rank, par and
// streak, the racers' places, the text to share, the links on, a rematch.

import { controller as c } from "./controller.js";
import { $, clock, current, laterStyles } from "./dom.js";
import { lang, laterWords, number, t, tn } from "./i18n.js";
import { racerLine } from "./race.js";
import { hasResult, showResult } from "./table.js";
import { sound } from "./account.js";

await Promise.all([laterWords(), laterStyles()]); // this module's words and styles

/** @typedef {import("./messages.js").Finished} Finished */

/** A share of the board as the language writes it ("42%", "42 %"). */
const PERCENT = new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 1 });

/** The games won and celebrated on this page: each once (not again when it is resumed). */
const celebrated = new Set();

/** The end of a game, or of a race, over the table; a game just won on the table is
 * celebrated first. */
export function drawResult() {
  const result = c.result;
  const game = c.game;
  const view = c.room.view;
  const inRace = game?.view.race && view?.code === game.view.race;
  if (!hasResult()) return;
  if (result?.won && game?.id === result.game && !celebrated.has(result.game)) {
    celebrated.add(result.game);
    sound.win();
    // the celebration's module is loaded for a win only (then cached like the others)
    const shown = () => {
      if (c.result === result && current() === "game") showResult();
    };
    import("./celebrate.js").then(({ celebrate }) => celebrate(c.board.element)).then(shown, shown);
    return;
  }
  const box = $("[data-result-box]");
  const me = c.player?.name;
  let heading = t("Game over");
  const lines = [];
  if (result) {
    heading = result.won ? t("You cleared the table!") : result.resigned ? t("You resigned") : t("The game is over");
    const score = { score: number(result.score), removed: result.removed, time: clock(result.elapsed) };
    lines.push(
      tn(
        "Score %(score)s in %(count)s move, %(removed)s of 4 runs, %(time)s.",
        "Score %(score)s in %(count)s moves, %(removed)s of 4 runs, %(time)s.",
        result.moves,
        score,
      ),
    );
    if (result.review === "held") {
      lines.push(t("Your result is under review: it reaches the board once a person has looked."));
      if (c.reviewHours) lines.push(reviewWait(c.reviewHours));
    }
    if (result.board === "new" && result.counts_from) {
      lines.push(t("Your dailies count on the public board from %(day)s.", { day: result.counts_from }));
    }
    // first place says it all (and the first result of a day beats "100%" of one)
    if (result.percentile != null && result.rank !== 1) {
      const percent = PERCENT.format(result.percentile / 100);
      lines.push(t("You did as well as or better than %(percent)s of the board.", { percent }));
    }
  }
  showFigures(result);
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
          ? t("You won the race!")
          : mine?.place
            ? t("Race over: you finished in place %(place)s", { place: number(mine.place) })
            : t("Race over");
    } else {
      lines.push(t("The others are still racing…"));
    }
    racers.replaceChildren(...view.racers.map((racer, index) => racerLine(racer, view, me, index)));
  }
  // a daily's end: the friends' board of its suit count (friends.js, loaded for it)
  const friends = $("[data-result-friends]");
  friends.hidden = true;
  if (result?.mode === "daily" && c.player) {
    import("./friends.js").then(({ friendsToday }) => friendsToday(friends, [game?.view.suits ?? 1], t("Friends today")).then((shown) => (friends.hidden = !shown)));
  }
  const rematchOpen = inRace && view.state === "over" && (view.next || c.room.rematchOpen === view.code);
  if (rematchOpen) lines.push(t("A rematch is open: join it to race again."));
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
  if (day) add(`/day/${day}?suits=${suits}${boardQuery}`, t("The day's board"));
  if (inRace) add(`/race/${encodeURIComponent(view.code)}`, t("The race's page"));
  if (me) add(`/player/${encodeURIComponent(me)}`, t("Your page"));
  const rematch = $("[data-action=race-rematch]");
  rematch.hidden = !(inRace && view.state === "over");
  rematch.textContent = rematchOpen ? t("Join the rematch") : t("Rematch");
  box.hidden = false;
  $("[data-result-card]").dataset.result = result?.won ? "won" : result ? (result.resigned ? "resigned" : "over") : "race";
  $("[data-result-box] button[data-action=lobby]").focus();
}

/** A daily's rank, par and days in a row, each a figure of its own (`[data-figure]`).
 * @param {Finished | null} result */
function showFigures(result) {
  const figures = $("[data-result-figures]");
  figures.replaceChildren();
  /** @param {string} name @param {string} term @param {string} value @param {string} [note]
   * @param {boolean} [figure] false: a word, not a figure (said smaller) */
  const add = (name, term, value, note, figure = true) => {
    const row = document.createElement("div");
    row.dataset.figure = name;
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    dd.textContent = value;
    dd.classList.toggle("words", !figure);
    if (note) {
      const small = document.createElement("small");
      small.textContent = note;
      dd.append(" ", small);
    }
    row.append(dt, dd);
    figures.append(row);
  };
  if (result?.mode === "daily") {
    if (result.review === "held") add("rank", t("Rank"), t("under review"), undefined, false);
    else if (result.rank) {
      const board = result.board === "new" ? t("on the new players' board") : t("on today's board");
      add("rank", t("Rank"), number(result.rank), board);
    }
    if (result.par != null) add("par", t("Par"), tn("%(count)s move", "%(count)s moves", result.par));
    else add("par", t("Par"), t("shown once the day is over"), undefined, false);
  }
  if (result?.streak) {
    const { current: days, best } = result.streak;
    add("streak", t("Days in a row"), number(days), t("best %(best)s", { best: number(best) }));
  }
  figures.hidden = !figures.childElementCount;
}


/** How long a review usually takes here, as the pages say it (server/web/pages.py's
 * review_wait): in days from two days on. @param {number} hours */
function reviewWait(hours) {
  if (hours >= 48) {
    const days = Math.round(hours / 24);
    return tn("A review usually takes about %(count)s day.", "A review usually takes about %(count)s days.", days);
  }
  return tn("A review usually takes about %(count)s hour.", "A review usually takes about %(count)s hours.", hours);
}
