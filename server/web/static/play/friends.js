// Friends, loaded the first time they are needed (the lobby's friends' boards, the Friends
// panel, a friend's finish told): who you follow, who follows you and who you blocked
// (`follow`, `unfollow`, `block`, `unblock`, `following`), and the friends' board of today's
// daily of each suit count (`leaderboard` with `board: "friends"`): you and everyone you
// follow, ranked among yourselves; before your own daily of that suit count is done, only
// who of them has finished (no scores, no spoilers).

import { controller as c } from "./controller.js";
import { $, clock, laterStyles, setError } from "./dom.js";
import { laterWords, number, t, tn } from "./i18n.js";
import { el, errorLine } from "./devices.js";

await Promise.all([laterWords(), laterStyles()]); // this module's words and styles

/** @typedef {import("./messages.js").Following} Following */
/** @typedef {import("./messages.js").LeaderboardPage} LeaderboardPage */
/** @typedef {import("./messages.js").ServerMessage} ServerMessage */

/** @type {Set<string>} the names you follow, as the last `following` said (casefolded) */
export const followed = new Set();

/** "1 suit", "4 suits". @param {number} suits */
export const suitsName = (suits) => tn("%(count)s suit", "%(count)s suits", suits);

/** A player's name, linked to their page. @param {string} name */
export const playerLink = (name) => el("a", { href: `/player/${encodeURIComponent(name)}` }, name);

/** @param {Following} reply */
function remember(reply) {
  followed.clear();
  for (const player of reply.following) followed.add(player.name.toLowerCase());
}

/** Ask for `request` (follow, unfollow, block, unblock, following): the circle it answers,
 * or null with the error said in `scope`.
 * @param {{type: string, name?: string}} request @param {HTMLElement} [scope] @returns {Promise<Following | null>} */
export async function circle(request, scope) {
  const reply = await c.connection.request(request);
  if (reply.type === "following") {
    remember(reply);
    return reply;
  }
  if (reply.type === "error" && scope) setError(scope, reply.message);
  return null;
}

/** A "Follow" button for `name`, or nothing for yourself and those you follow already.
 * @param {string} name @param {HTMLElement} scope where a refusal is said */
export function followButton(name, scope) {
  if (name === c.player?.name || followed.has(name.toLowerCase())) return null;
  const button = el("button.small", { "data-follow": name }, t("Follow"));
  button.addEventListener("click", async () => {
    button.disabled = true;
    const found = await circle({ type: "follow", name }, scope);
    button.replaceWith(el("span.hint", null, found ? t("Following") : ""));
  });
  return button;
}

// -- the panel ---------------------------------------------------------------------------

/** The Friends panel (devices.js's dialog opens it). @param {HTMLElement} panel */
export async function friendsPanel(panel) {
  const name = el("input", {
    name: "name", id: "follow-name", required: true, autocomplete: "off", spellcheck: "false",
    autocapitalize: "off", maxlength: "64",
  });
  const form = el(
    "form",
    { "data-form": "follow" },
    el("label", { for: "follow-name" }, t("Follow a player by name")),
    el("div.row", null, name, el("button", { type: "submit" }, t("Follow"))),
  );
  const lists = el("div.friends-lists");
  const today = el("div.friends-today", { "data-friends-boards": true });
  panel.append(
    el("p.hint", null, t("The friends' board ranks you among the players you follow. Their scores show once you have played the same daily.")),
    form,
    errorLine(),
    lists,
    el("h3", null, t("Today")),
    today,
  );
  /** @param {Following} found */
  const draw = (found) => {
    /** @param {string} title @param {string} kind @param {import("./messages.js").FollowedPlayer[]} players
     * @param {string} empty @param {(name: string) => (HTMLElement | null)[]} actions */
    const list = (title, kind, players, empty, actions) =>
      el(
        "section",
        { "data-list": kind },
        el("h3", null, title),
        el(
          "ul.account-list",
          null,
          ...(players.length
            ? players.map((player) => el("li", { "data-name": player.name }, playerLink(player.name), ...actions(player.name)))
            : [el("li.hint", null, empty)]),
        ),
      );
    const action = (/** @type {string} */ type, /** @type {string} */ label, /** @type {string} */ player) =>
      el("button.small", { "data-do": type, "data-name": player }, label);
    lists.replaceChildren(
      list(t("You follow"), "following", found.following, t("You follow nobody yet."), (player) => [
        action("unfollow", t("Unfollow"), player),
        action("block", t("Block"), player),
      ]),
      list(t("Your followers"), "followers", found.followers, t("Nobody follows you yet."), (player) => [
        followed.has(player.toLowerCase()) ? null : action("follow", t("Follow back"), player),
        action("block", t("Block"), player),
      ]),
      list(t("Blocked"), "blocked", found.blocked, t("You blocked nobody."), (player) => [action("unblock", t("Unblock"), player)]),
    );
    friendsToday(today);
  };
  const found = await circle({ type: "following" }, panel);
  if (found) draw(found);
  form.addEventListener("submit", async (/** @type {SubmitEvent} */ event) => {
    event.preventDefault();
    setError(panel, "");
    const reply = await circle({ type: "follow", name: name.value.trim() }, panel);
    if (reply) {
      name.value = "";
      draw(reply);
    }
  });
  lists.addEventListener("click", async (/** @type {MouseEvent} */ event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest("[data-do]");
    if (!(button instanceof HTMLElement)) return;
    const { do: type, name: player } = button.dataset;
    if (type === "block" && !confirm(t("Block %(name)s? They stop following you and cannot follow you again.", { name: player }))) return;
    setError(panel, "");
    const reply = await circle({ type: type ?? "", name: player }, panel);
    if (reply) draw(reply);
  });
}

// -- the friends' boards -----------------------------------------------------------------

/** Today's friends' board of `suits`, drawn into a section of its own.
 * @param {number} suits @returns {Promise<HTMLElement | null>} null: nobody to show */
export async function friendsBoard(suits) {
  const reply = await c.connection.request({ type: "leaderboard", board: "friends", suits, limit: 100 });
  if (reply.type !== "leaderboard") return null;
  const title = el("h4", null, suitsName(suits));
  const box = el("section.friends-board", { "data-friends-board": String(suits) }, title);
  if (reply.finished) {
    if (!reply.finished.length) return null;
    box.append(
      el("p", { "data-finished": true }, t("Finished: %(names)s", { names: reply.finished.join(", ") })),
      el("p.hint", null, t("Their scores show once you have finished this daily.")),
    );
    return box;
  }
  if (reply.rows.length <= 1 && reply.rows[0]?.player === c.player?.name) return null;
  if (!reply.rows.length) return null;
  const rows = reply.rows.map((row) =>
    el(
      "tr",
      { "data-player": row.player, class: row.player === c.player?.name ? "me" : undefined },
      el("td.num", null, number(row.rank)),
      el("th", { scope: "row" }, playerLink(row.player)),
      el("td", null, row.won ? t("won") : tn("%(count)s run", "%(count)s runs", row.removed)),
      el("td.num", null, number(row.score)),
      el("td.num", null, clock(row.elapsed)),
    ),
  );
  box.append(
    el(
      "div.scroll",
      null,
      el(
        "table.board.compact",
        null,
        el(
          "thead",
          null,
          el("tr", null, el("th.num", { scope: "col" }, "#"), el("th", { scope: "col" }, t("Player")), el("th", { scope: "col" }, t("Result")),
            el("th.num", { scope: "col" }, t("Score")), el("th.num", { scope: "col" }, t("Time"))),
        ),
        el("tbody", null, ...rows),
      ),
    ),
  );
  return box;
}

/** Every suit count's friends' board of today into `into` (or, of `counts` alone), under
 * `heading` if given. Nothing to show: a line that says so; the count of boards shown.
 * @param {HTMLElement} into @param {number[]} [counts] @param {string} [heading] */
export async function friendsToday(into, counts = [1, 2, 4], heading) {
  const boards = (await Promise.all(counts.map(friendsBoard))).filter((board) => board !== null);
  into.replaceChildren(
    ...(heading && boards.length ? [el("h3", null, heading)] : []),
    ...(boards.length ? boards : [el("p.hint", { "data-no-friends": true }, t("None of the players you follow has finished today's daily yet."))]),
  );
  return boards.length;
}

// -- a friend's finish -------------------------------------------------------------------

/** @type {number} the toast's timer */
let hiding = 0;

/** "Bob finished today's 4-suit daily", said for a few seconds; the lobby's boards again.
 * @param {import("./messages.js").FriendFinished} message */
export function friendFinished(message) {
  const toast = $("[data-toast]");
  const params = { name: message.name };
  toast.textContent = tn("%(name)s finished today's %(count)s-suit daily", "%(name)s finished today's %(count)s-suit daily", message.suits, params);
  toast.hidden = false;
  clearTimeout(hiding);
  hiding = setTimeout(() => {
    toast.hidden = true;
  }, 6000);
  const lobby = $("[data-lobby-friends]");
  if (!lobby.hidden) friendsToday(/** @type {HTMLElement} */ ($("[data-friends-boards]", lobby)));
}
