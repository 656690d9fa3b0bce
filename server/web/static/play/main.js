// Simple Simon in the browser: the page's wiring. The server is the judge of every move
// (the same websocket protocol as the terminal client); this page shows the game, sends
// what the player does, and shows the server's answers.

import { setupAccountMenu } from "./account.js";
import { Board } from "./board.js";
import { groupText, short } from "./cards.js";
import {
  $,
  $$,
  announce,
  clearRefusal,
  click,
  copyText,
  current,
  refuse,
  setError,
  setText,
  show as showView,
} from "./dom.js";
import { Pointer } from "./drag.js";
import { Game, RUN_LENGTH } from "./game.js";
import { Keys } from "./keys.js";
import { Connection, serverUrl } from "./net.js";
import * as panels from "./panels.js";
import { Room, clock } from "./race.js";

const TOKEN = "simon.token";
const GAME = "simon.game";
const ROOM = "simon.room";
const CONFIRM_FOR = 4000; // ms a restart or resign waits for its confirmation
const ACTIONS = new Set(["move", "auto", "undo", "restart", "resign"]);


const page = {
  token: localStorage.getItem(TOKEN),
  player: null,
  game: null, // Game
  result: null, // the last `finished`
  room: new Room(),
  digest: null, // the daily race's last digest
  daily: null,
  dayEnds: null, // Date.now() at the end of the day (UTC), by the server's seconds_left
  dayTimer: 0,
  history: null,
  selected: null, // {column, count}: a group lifted by a tap or the keyboard
  confirming: null, // {action, until}
  joinCode: new URLSearchParams(location.search).get("race"),
};

const board = new Board($("[data-board]"));
const connection = new Connection(serverUrl(), {
  onOpen: signIn,
  onMessage: received,
  onStatus: (text) => {
    $("[data-connection]").textContent = text;
  },
});

// -- views ------------------------------------------------------------------------------

function show(name) {
  showView(name);
  if (name === "game") board.layout();
  // the day's countdown ticks only while the lobby shows it
  clearInterval(page.dayTimer);
  page.dayTimer = name === "lobby" ? setInterval(dayLeft, 1000) : 0;
  if (name === "lobby") dayLeft();
}

/** "The day (UTC) ends in 3:42:17.", counted down from the server's `seconds_left`; at the
 * end the new day's deals are asked for. */
function dayLeft() {
  if (!page.dayEnds) return;
  const left = Math.max(0, Math.ceil((page.dayEnds - Date.now()) / 1000));
  setText($("[data-day-left]"), `The day (UTC) ends in ${clock(left)}.`);
  if (left === 0) {
    page.dayEnds = null;
    setTimeout(refreshDaily, 1000);
  }
}

// -- signing in -------------------------------------------------------------------------

async function signIn(conn) {
  const welcome = await conn.early({ type: "hello", version: 1, client: "simon-web", legal: true });
  if (welcome.type !== "welcome") throw new Error(welcome.message ?? "no welcome");
  if (!page.token) return;
  const reply = await conn.early({ type: "auth", token: page.token });
  if (reply.type === "error") {
    if (reply.code === "bad-token") {
      forgetAccount();
      showWelcome();
      return;
    }
    throw new Error(reply.message);
  }
  signedIn(reply.player);
  const gameId = page.game && !page.game.finished ? page.game.id : localStorage.getItem(GAME);
  if (gameId) {
    const resumed = await conn.early({ type: "resume", game: gameId, seq: page.game?.seq ?? 0 });
    if (resumed.type === "error") localStorage.removeItem(GAME);
  } else {
    const code = page.room.view?.code ?? localStorage.getItem(ROOM);
    if (code) {
      const watched = await conn.early({ type: "race_watch", code });
      if (watched.type === "error") localStorage.removeItem(ROOM);
    }
  }
}

function signedIn(player) {
  page.player = player;
  $("[data-account]").hidden = false;
  for (const element of $$("[data-player-name]")) element.textContent = player.name;
  $("[data-player-link]").href = `/player/${encodeURIComponent(player.name)}`;
}

function forgetAccount() {
  localStorage.removeItem(TOKEN);
  localStorage.removeItem(GAME);
  localStorage.removeItem(ROOM);
  page.token = null;
  page.player = null;
  $("[data-account]").hidden = true;
}

function showWelcome() {
  show("welcome");
  $("[data-form=register] input[name=name]").focus();
}

/** The welcome forms: a new account (`register`) or a token from another device (`auth`). */
async function welcomed(event, message, tokenOf) {
  event.preventDefault();
  const form = event.currentTarget;
  setError(form, "");
  const reply = await connection.request(message(form.elements));
  if (reply.type === "error") {
    setError(form, reply.message);
    return;
  }
  page.token = tokenOf(reply, form.elements);
  localStorage.setItem(TOKEN, page.token);
  signedIn(reply.player);
  connection.wanted = true;
  await enterLobby();
}

function register(event) {
  return welcomed(
    event,
    (fields) => ({ type: "register", name: fields.name.value.trim() }),
    (reply) => reply.token,
  );
}

function signInWithToken(event) {
  return welcomed(
    event,
    (fields) => ({ type: "auth", token: fields.token.value.trim() }),
    (_, fields) => fields.token.value.trim(),
  );
}

// -- the lobby --------------------------------------------------------------------------

async function enterLobby() {
  if (!page.player) return; // the token was refused: the welcome form is up
  if (page.joinCode) {
    const code = page.joinCode;
    page.joinCode = null;
    if (await joinRoom(code)) return;
  }
  if (current() !== "game" && current() !== "room") showLobby();
  await refreshDaily();
}

async function refreshDaily() {
  const [daily, history] = await Promise.all([
    connection.request({ type: "daily" }),
    connection.request({ type: "history", limit: 20 }),
  ]);
  if (daily.type === "daily") {
    page.daily = daily;
    page.dayEnds = Date.now() + daily.seconds_left * 1000;
  }
  if (history.type === "history") page.history = history;
  if (daily.type === "error" && daily.code === "proving") {
    page.dayEnds = null;
    $("[data-day-left]").textContent = "Today's deals are being proven: a moment…";
    setTimeout(refreshDaily, 5000);
  }
  renderDaily();
}

function showLobby() {
  // what was refused before the player left the lobby no longer applies
  for (const error of $$("[data-view=lobby] [data-error]")) error.textContent = "";
  show("lobby");
  $("[data-action=back-to-game]").hidden = !page.game || page.game.finished;
}

/** The day's board a player's daily of `suits` is on: the new players' while their
 * dailies go there (a result under review is on neither yet: the public board is shown). */
function dayBoard(day, suits) {
  const played = playedDaily(day, suits);
  const board = played?.board === "new" && played.review !== "held" ? "&board=new" : "";
  return `/day/${day}?suits=${suits}${board}`;
}

function playedDaily(day, suits) {
  return (page.history?.games ?? []).find(
    (game) => game.mode === "daily" && game.day === day && game.suits === suits,
  );
}

function renderDaily() {
  const daily = page.daily;
  if (!daily) return;
  dayLeft();
  for (const deal of daily.deals) {
    const button = $(`[data-start="daily"][data-suits="${deal.suits}"]`);
    if (!button) continue;
    const played = playedDaily(daily.day, deal.suits);
    let state = "Play";
    button.dataset.played = "false";
    if (deal.finished) {
      button.dataset.played = "true";
      if (played?.review === "held") state = "Played · under review";
      else if (played?.rank) {
        const among = played.board === "new" ? " of new players" : "";
        state = `Played · rank ${played.rank}${among} · see the board`;
      }
      else state = "Played · see the board";
    } else if (deal.started) {
      state = "Continue";
    }
    $("[data-state]", button).textContent = state;
  }
}

async function start(mode, suits, code) {
  // a code names its own suit count: a malformed one is refused for what is wrong with it
  const message = code ? { type: "start", mode, code } : { type: "start", mode, suits };
  const panel = $(`[data-start="${mode}"]`).closest(".panel, .daily-panel");
  setError(panel, "");
  const reply = await connection.requestNow(message);
  if (reply.type === "error") {
    if (reply.code === "already-played") {
      location.href = dayBoard(page.daily?.day ?? "", suits);
      return;
    }
    setError(panel, reply.message);
  }
}

// -- the game ---------------------------------------------------------------------------

function takeState(view, request) {
  const resumed = request?.type === "resume";
  const pending = resumed && page.game?.id === view.game ? page.game.pending : [];
  if (page.game?.id !== view.game) {
    page.result = null;
    $("[data-race-news]").textContent = "";
  }
  const game = new Game(view);
  game.pending = pending;
  page.game = game;
  page.selected = null;
  if (view.finished) localStorage.removeItem(GAME);
  else localStorage.setItem(GAME, view.game);
  if (view.race) {
    localStorage.setItem(ROOM, view.race);
    page.room.reveal(view.race);
    if (page.room.view?.code !== view.race) connection.request({ type: "race_watch", code: view.race });
  } else if (!request || request.type === "start") {
    page.room.view = null;
    localStorage.removeItem(ROOM);
  }
  $("[data-game-title]").textContent = title(view);
  $("[data-game-code]").textContent = view.code;
  $("[data-view=game]").dataset.code = view.code;
  $("[data-par-box]").hidden = view.par == null;
  $("[data-par]").textContent = view.par ?? "";
  // a game taken up again after a reconnection stays behind the lobby the player went to
  const away = request?.type === "resume" && (current() === "lobby" || current() === "room");
  if (current() !== "game" && !away) {
    hideResult();
    show("game");
    // the button that started it is gone with the lobby: the keys go on at the table
    if (!$("[data-view=game]").contains(document.activeElement)) board.focus(board.focused);
  }
  renderStandings();
  renderGame();
  if (!view.finished && request && request.type === "start") announce(`${title(view)}: the deal is dealt.`);
}

function title(view) {
  const suits = view.suits === 1 ? "1 suit" : `${view.suits} suits`;
  if (view.race) return `Race ${view.race} · ${suits}`;
  if (view.mode === "daily") return `Daily · ${suits}`;
  return `Practice · ${suits}`;
}

function renderGame() {
  const game = page.game;
  if (!game) return;
  const pending = game.pending.length;
  const movable = pending || !game.legal ? null : game.legal.map((groups) => groups.length);
  board.render(game.columns(), movable);
  board.element.dataset.pending = String(pending);
  $("[data-moves]").textContent = String(game.moves + pending);
  $("[data-score]").textContent = String(game.score - pending);
  $("[data-removed]").textContent = String(game.removed);
  $("[data-action=undo]").disabled = game.finished || (!game.canUndo && !pending);
  $("[data-action=restart]").disabled = game.finished;
  $("[data-action=resign]").disabled = game.finished;
  // a finished game says so beside its title, and its result opens again from the bar
  const over = $("[data-game-over]");
  over.hidden = !game.finished;
  over.dataset.over = game.won ? "won" : page.result?.resigned ? "resigned" : "over";
  over.textContent = { won: "Won", resigned: "Resigned", over: "Over" }[over.dataset.over];
  $("[data-action=show-result]").hidden = !(game.finished && panels.hasResult(page));
  if (page.selected) {
    board.select(page.selected.column, page.selected.count);
    board.highlight(game.targets(page.selected.column, page.selected.count));
  }
  pointer.showTargets();
  tick();
}

function tick() {
  if (page.game) setText($("[data-clock]"), clock(page.game.clock()));
  const room = page.room;
  if (room.view) {
    const left = room.startsIn();
    const countdown = $("[data-room-countdown]");
    if (room.view.state === "countdown" && left != null) {
      setText(countdown, left > 0 ? `The deal is revealed in ${Math.ceil(left)}` : "Go!");
    } else if (room.view.state === "open" && room.view.auto_start_at) {
      const auto = (Date.parse(room.view.auto_start_at) - Date.now()) / 1000;
      // by this machine's time of day: shown only when it agrees with the server's promise
      const plausible = auto > 0 && auto <= 60;
      setText(countdown, plausible ? `Starts by itself in ${Math.ceil(auto)} s` : "");
    } else {
      setText(countdown, "");
    }
    // from the race's own clock (the game's elapsed time since the reveal): no trust in
    // this machine's time of day
    const racing = room.view.state === "racing" && page.game?.view.race === room.view.code;
    const remaining = racing ? room.view.time_limit - page.game.clock() : null;
    setText($("[data-race-clock]"), remaining != null ? `Time left ${clock(remaining)}` : "");
  }
}

/** Send a game action; its answer comes back through received(). */
function act(message) {
  if (!page.game) return null;
  const id = connection.nextId();
  connection.request({ ...message, id });
  return id;
}

function move(from, to, count, optimistic) {
  const game = page.game;
  if (!game || game.finished) return;
  if (optimistic && count) {
    const id = connection.nextId();
    game.optimistic(id, { from, to, count });
    // sent first, before anything on screen changes: the table is drawn while it is on its way
    connection.request({ type: "move", id, move: `${from}-${to}x${count}` });
    performance.mark(`simon:sent:${id}`);
    clearRefusal();
    cancelSelection();
    renderGame();
    return;
  }
  clearRefusal();
  cancelSelection();
  act({ type: "move", move: count ? `${from}-${to}x${count}` : `${from}-${to}` });
}

/** A move typed or chosen by column numbers: the group that fits, as the notation says. */
function moveTo(from, to, count) {
  const game = page.game;
  if (!game) return;
  const last = game.columns().length;
  const missing = [from, to].find((column) => !(column >= 1 && column <= last));
  if (missing != null) {
    refuse(`✗ There is no column ${missing}: the columns are 1 to ${last} (the key 0 is ${last}).`);
    return;
  }
  if (count == null) {
    const movable = game.movable(from);
    for (let n = movable ?? 0; n >= 1; n -= 1) {
      if ((game.targets(from, n) ?? []).includes(to)) {
        count = n;
        break;
      }
    }
  }
  const legal = count != null && (game.targets(from, count) ?? []).includes(to);
  move(from, to, count, legal);
}

function auto(column, count) {
  if (!page.game || page.game.finished) return;
  clearRefusal();
  cancelSelection();
  const message = { type: "auto", column };
  if (count) message.count = count;
  act(message);
}

function confirmed(action, button) {
  const now = Date.now();
  const unmark = (element) => {
    element.classList.remove("confirming");
    if (element.dataset.label) element.textContent = element.dataset.label;
    if (element.dataset.title) element.title = element.dataset.title;
  };
  if (page.confirming?.action === action && page.confirming.until > now) {
    page.confirming = null;
    unmark(button);
    return true;
  }
  for (const other of $$("[data-action=restart], [data-action=resign]")) unmark(other);
  page.confirming = { action, until: now + CONFIRM_FOR };
  button.dataset.label ??= button.textContent;
  button.dataset.title ??= button.title;
  // short enough for a phone's row of buttons: the mark and the question say "again"
  button.textContent = action === "restart" ? "Restart?" : "Resign?";
  button.classList.add("confirming");
  const again = action === "restart" ? "Press Restart again to deal the same cards again." : "Press Resign again to end this game.";
  button.title = again;
  announce(again);
  setTimeout(() => {
    if (page.confirming?.action === action && page.confirming.until <= Date.now() + 50) {
      page.confirming = null;
      unmark(button);
    }
  }, CONFIRM_FOR);
  return false;
}

function undo() {
  if (!page.game || page.game.finished) return;
  clearRefusal();
  cancelSelection();
  act({ type: "undo" });
}

function restart() {
  if (page.game && !page.game.finished && confirmed("restart", $("[data-action=restart]"))) {
    clearRefusal();
    act({ type: "restart" });
  }
}

function resign() {
  if (page.game && !page.game.finished && confirmed("resign", $("[data-action=resign]"))) {
    clearRefusal();
    act({ type: "resign" });
  }
}

function settled(moved) {
  const game = page.game;
  if (!game || moved.game !== game.id) return;
  const before = game.confirmed.map((column) => column.slice());
  const changed = game.settle(moved);
  if (changed === null) {
    connection.request({ type: "resume", game: game.id, seq: game.seq });
    return;
  }
  if (changed && moved.removed_run) leave(before, moved);
  renderGame();
  if (changed) {
    const [from, rest] = moved.move.split("-");
    const [to, count] = rest.split("x");
    const cards = before[Number(from) - 1].slice(-Number(count));
    let text = `${moved.move}: ${groupText(cards)} onto ${before[Number(to) - 1].length ? short(before[Number(to) - 1].at(-1)) : "an empty column"}`;
    if (moved.removed_run) text += `; a run of ${short(cards.at(-1)).slice(-1)} leaves the table`;
    announce(text + ".");
  }
}

/** A removed run visibly leaves: copies of its cards fly off the table. */
function leave(before, moved) {
  if (matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  const [from, rest] = moved.move.split("-");
  const [to, count] = rest.split("x").map(Number);
  if (page.game.pending.length) return; // the table shows moves still on their way
  const shown = before.map((column) => column.slice());
  // the table as it was, with the move: the run at the end of the target column
  shown[to - 1].push(...shown[Number(from) - 1].splice(shown[Number(from) - 1].length - count, count));
  board.render(shown, null);
  board.holdHeight(1100);
  const run = board.group(to, RUN_LENGTH);
  const layer = document.createElement("div");
  layer.className = "leaving-layer";
  layer.setAttribute("aria-hidden", "true");
  run.forEach((card, index) => {
    const box = card.getBoundingClientRect();
    const copy = card.cloneNode(true);
    copy.removeAttribute("data-card");
    copy.removeAttribute("role");
    copy.removeAttribute("aria-label");
    copy.style.left = `${box.left}px`;
    copy.style.top = `${box.top}px`;
    copy.style.animationDelay = `${(RUN_LENGTH - 1 - index) * 25}ms`;
    layer.append(copy);
  });
  document.body.append(layer);
  setTimeout(() => layer.remove(), 1100);
  const removed = $("[data-removed]").parentElement;
  removed.classList.remove("pulse");
  void removed.offsetWidth;
  removed.classList.add("pulse");
}

function refused(error, request) {
  const game = page.game;
  if (!game) return;
  if (request.type === "move" || request.type === "auto") {
    game.refuse(request.id);
    renderGame();
  }
  if (error.code === "game-over" || error.code === "no-game") {
    refuse(error.message);
    return;
  }
  const what = request.type === "move" ? `${request.move}: ` : "";
  refuse(`✗ ${what}${error.message}`);
}

function finished(message) {
  const game = page.game;
  page.result = message;
  if (game && message.game === game.id) {
    game.finished = true;
    game.elapsed = message.elapsed;
    renderGame();
  }
  localStorage.removeItem(GAME);
  showResult();
}

// -- selection by tap or keyboard -------------------------------------------------------

function select(column, count) {
  const game = page.game;
  if (!game || game.finished) return;
  const movable = game.movable(column);
  if (movable === 0) return;
  const size = count ?? movable ?? 1;
  if (movable != null && size > movable) {
    liftRefused(column, size);
    return;
  }
  page.selected = { column, count: size };
  board.select(column, size);
  board.highlight(game.targets(column, size));
  const cards = game.columns()[column - 1].slice(-size);
  nowhere(game, column, size);
  announce(`Lifted ${groupText(cards)} from column ${column}. Choose a column to put it on.`);
}

/** A lifted group no column takes: said on screen, not only lit nowhere. */
function nowhere(game, column, count) {
  if (game.targets(column, count)?.length !== 0) return;
  const cards = game.columns()[column - 1].slice(-count);
  refuse(`${groupText(cards)} can go nowhere now: no column takes ${count === 1 ? "it" : "them"}.`);
}

function cancelSelection() {
  if (!page.selected) return;
  page.selected = null;
  board.select(0);
  board.highlight(null);
}

function choose(column) {
  const selected = page.selected;
  if (!selected) {
    select(column, null);
    return;
  }
  if (selected.column === column) {
    cancelSelection();
    return;
  }
  moveTo(selected.column, column, selected.count);
}

/** A group that cannot be lifted: the server says which rule stops it. */
async function liftRefused(column, count) {
  const reply = await connection.request({ type: "targets", column, count });
  if (reply.type === "error") refuse(`✗ ${reply.message}`);
}

// -- races ------------------------------------------------------------------------------

async function joinRoom(code) {
  const reply = await connection.requestNow({ type: "race_join", code });
  if (reply.type !== "error") return true;
  if (reply.code === "race-started" || reply.code === "race-full") {
    const watched = await connection.request({ type: "race_watch", code });
    if (watched.type !== "error") return true;
  }
  show("lobby");
  setError($(".race-panel"), reply.message);
  return false;
}

function roomChanged(message) {
  const room = page.room;
  if (!room.take(message.room)) return;
  const view = room.view;
  if (view.state === "expired") {
    localStorage.removeItem(ROOM);
  } else {
    localStorage.setItem(ROOM, view.code);
  }
  const racing = page.game && page.game.view.race === view.code;
  if (!racing && (view.state === "open" || view.state === "countdown")) {
    hideResult();
    show("room");
  }
  renderRoom();
  renderStandings();
  if (view.state === "over" && racing) {
    renderGame(); // its result, the race's, opens again from the bar
    showResult();
  }
  if (message.event === "rematch") {
    // a private room names no rematch: it is joined by race_rematch, which the button sends
    room.rematchOpen = view.code;
    announce("A rematch is open: join it from the result.");
    showResult();
  }
}

/** Another racer finished first: the player still racing hears it beside the table. */
function raceNews(code, entry) {
  if (!entry.won || entry.player === page.player?.name || page.game?.view.race !== code) return;
  const news = $("[data-race-news]");
  if (news.textContent) return; // the first to win is the news
  news.textContent = `${entry.player} won in ${clock(entry.elapsed ?? 0)}`;
}

function renderRoom() {
  panels.renderRoom(page);
  tick();
}

function renderStandings() {
  panels.renderStandings(page);
  board.layout();
}

function showResult() {
  panels.showResult(page);
}

const hideResult = panels.hideResult;

// -- messages from the server -----------------------------------------------------------

function received(message, request) {
  if (message.type === "moved" && request) {
    // a move's round trip, for DevTools' timeline and bench/play_page.py
    const sent = `simon:sent:${request.id}`;
    if (performance.getEntriesByName(sent).length) {
      performance.measure("simon:move", sent);
      performance.clearMarks(sent);
    }
  }
  switch (message.type) {
    case "state":
      takeState(message.state, request);
      break;
    case "moved":
      settled(message);
      break;
    case "finished":
      finished(message);
      break;
    case "error":
      if (request && ACTIONS.has(request.type)) refused(message, request);
      else if (message.code === "stale-game") refuse(message.message);
      break;
    case "race_room":
      roomChanged(message);
      break;
    case "race_update":
      if (page.room.update(message.code, message.entry)) {
        raceNews(message.code, message.entry);
        renderStandings();
        renderRoom();
      }
      break;
    case "race_digest":
    case "race":
      page.digest = message;
      renderStandings();
      break;
    case "daily_changed":
      if (page.player) refreshDaily();
      break;
    default:
      break;
  }
}

// -- wiring -----------------------------------------------------------------------------

const pointer = new Pointer(board, {
  canLift(column, count) {
    const movable = page.game?.movable(column);
    if (!page.game || page.game.finished) return false;
    return movable == null ? null : count <= movable;
  },
  targets: (column, count) => page.game?.targets(column, count) ?? null,
  lifted: (column, count) => {
    cancelSelection();
    clearRefusal();
    if (page.game) nowhere(page.game, column, count);
  },
  drop: (from, to, count, legal) => move(from, to, count, legal),
  auto: (column, count) => auto(column, count),
  refuseLift: (column, count) => liftRefused(column, count),
  tap(column, count) {
    const selected = page.selected;
    if (selected && selected.column !== column) moveTo(selected.column, column, selected.count);
    else if (selected) cancelSelection();
    else if (count > 0) select(column, count);
  },
});

new Keys({
  active: () => current() === "game" && Boolean(page.game),
  move: (from, to, count) => moveTo(from, to, count),
  waits(from, to) {
    const game = page.game;
    return Boolean(game && game.columns()[to - 1]?.length === 0 && (game.movable(from) ?? 0) > 1);
  },
  auto: (column) => auto(column, null),
  undo,
  restart,
  resign,
  choose,
  focus: (column) => board.focus(column),
  cancel: () => {
    cancelSelection();
    clearRefusal();
  },
  typed(text, column) {
    $("[data-typed]").textContent = text ? `Typed: ${text}` : "";
    if (text) clearRefusal(); // a new move on its way: the last refusal is past
    if (!page.selected || page.selected.column !== column) {
      if (column && !text.includes("-")) select(column, null);
      else if (!text) cancelSelection();
    }
  },
  typedBad(text) {
    refuse(`✗ ${text}: a move is two columns, like 3 7 (0 is column 10), or 3-7x2 for two cards`);
  },
});

$("[data-form=register]").addEventListener("submit", register);
$("[data-form=sign-in]").addEventListener("submit", signInWithToken);
for (const button of $$("[data-start]")) {
  button.addEventListener("click", () => {
    const suits = Number(button.dataset.suits);
    if (button.dataset.start === "daily" && button.dataset.played === "true" && page.daily) {
      location.href = dayBoard(page.daily.day, suits);
      return;
    }
    start(button.dataset.start, suits);
  });
}
$("[data-form=practice-code]").addEventListener("submit", (event) => {
  event.preventDefault();
  const code = event.currentTarget.elements.code.value.trim().toUpperCase();
  start("practice", Number(code.match(/-S(\d)-/)?.[1] ?? 1), code);
});
$("[data-form=race-join]").addEventListener("submit", (event) => {
  event.preventDefault();
  setError($(".race-panel"), "");
  joinRoom(event.currentTarget.elements.code.value.trim());
});
click("[data-action=race-new]", async () => {
  setError($(".race-panel"), "");
  const reply = await connection.requestNow({
    type: "race_new",
    suits: Number($("[data-race-suits]").value),
    allow_bots: $("[data-race-bots]").checked,
  });
  if (reply.type === "error") setError($(".race-panel"), reply.message);
});
click("[data-action=race-quick]", async () => {
  setError($(".race-panel"), "");
  const reply = await connection.requestNow({ type: "race_quick", suits: Number($("[data-race-suits]").value) });
  if (reply.type === "error") setError($(".race-panel"), reply.message);
});
click("[data-action=race-start]", async () => {
  const reply = await connection.requestNow({ type: "race_start", code: page.room.view.code });
  if (reply.type === "error") setError($("[data-view=room]"), reply.message);
});
click("[data-action=race-leave]", async () => {
  const code = page.room.view?.code;
  page.room.view = null;
  localStorage.removeItem(ROOM);
  if (code) connection.request({ type: "race_leave", code }); // sent once connected
  showLobby();
  refreshDaily();
});
click("[data-action=race-rematch]", async () => {
  const reply = await connection.requestNow({ type: "race_rematch", code: page.room.view.code });
  if (reply.type === "error") refuse(reply.message);
});
click("[data-action=copy-share]", (event) => {
  const share = $("[data-result-share]");
  copyText(share.textContent, event.currentTarget, share);
});
click("[data-action=copy-link]", (event) => {
  const link = $("[data-room-link]");
  copyText(link.href, event.currentTarget, link);
});
click("[data-action=undo]", undo);
click("[data-action=restart]", restart);
click("[data-action=resign]", resign);
click("[data-action=back-to-game]", () => show("game"));
click("[data-action=lobby]", () => {
  hideResult();
  cancelSelection();
  showLobby();
  refreshDaily();
});
click("[data-action=close-result]", closeResult);
click("[data-action=show-result]", showResult);

/** "See the table" (or Esc): the result goes, the keys go on at the table. */
function closeResult() {
  hideResult();
  board.focus(board.focused);
}

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !$("[data-result-box]").hidden && $("[data-token-box]").hidden) {
    event.preventDefault();
    closeResult();
  }
});

setupAccountMenu({
  token: () => page.token,
  signOut() {
    forgetAccount();
    location.reload();
  },
});

setInterval(tick, 250);

// -- start ------------------------------------------------------------------------------

if (page.token) {
  $("[data-connection]").textContent = "Connecting…";
  connection.open();
  connection.request({ type: "ping" }).then(() => enterLobby());
} else {
  connection.wanted = false;
  showWelcome();
}
