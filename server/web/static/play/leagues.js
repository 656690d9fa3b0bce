// Leagues, loaded the first time one is asked for (the Leagues panel, a league's page, an
// invitation opened as /play?league=CODE): the leagues you are in, a new one, one joined by
// its code; a league's page: today's places and points (or, before your own daily, who has
// finished), the season's table by month, past winners, the members and their streaks, the
// invitation to copy, and the owner's actions (remove a member, hand the league over, make
// its web page public or private). Drawn in devices.js's dialog, like the account's panels.

import { controller as c } from "./controller.js";
import { clock, copyText, laterStyles, setError } from "./dom.js";
import { lang, laterWords, number, t, tn } from "./i18n.js";
import { el, errorLine, openPanel } from "./devices.js";
import { circle, followButton, playerLink, suitsName } from "./friends.js";

await Promise.all([laterWords(), laterStyles()]); // this module's words and styles

/** @typedef {import("./messages.js").LeagueView} LeagueView */
/** @typedef {import("./messages.js").ServerMessage} ServerMessage */

/** "December 2026" of "2026-12", as the language says it. @param {string} month */
function monthName(month) {
  const [year, number_] = month.split("-").map(Number);
  return new Intl.DateTimeFormat(lang, { month: "long", year: "numeric", timeZone: "UTC" }).format(new Date(Date.UTC(year, number_ - 1, 1)));
}

/** The month `step` months after `month` (YYYY-MM). @param {string} month @param {number} step */
function monthAfter(month, step) {
  const [year, number_] = month.split("-").map(Number);
  const index = year * 12 + number_ - 1 + step;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, "0")}`;
}

/** A table of `head` and `rows` (each a row's cells). @param {string[]} head @param {(Node | string)[][]} rows
 * @param {{[name: string]: string}} [attributes] */
function table(head, rows, attributes) {
  return el(
    "div.scroll",
    null,
    el(
      "table.board.compact",
      attributes ?? null,
      el("thead", null, el("tr", null, ...head.map((name) => el("th", { scope: "col" }, name)))),
      el("tbody", null, ...rows.map((cells) => el("tr", null, ...cells.map((cell) => el("td", null, cell))))),
    ),
  );
}

// -- your leagues --------------------------------------------------------------------------

/** The Leagues panel. @param {HTMLElement} panel */
export async function leaguesPanel(panel) {
  const list = el("ul.account-list", { "data-leagues": true });
  const name = el("input", { name: "name", id: "league-name", required: true, maxlength: "40", autocomplete: "off" });
  const suits = el("select", { name: "suits", id: "league-suits" }, ...[1, 2, 4].map((n) => el("option", { value: String(n) }, suitsName(n))));
  const create = el(
    "form",
    { "data-form": "league-new" },
    el("label", { for: "league-name" }, t("A new league")),
    el("div.row", null, name, el("label.sr", { for: "league-suits" }, t("Suits")), suits, el("button", { type: "submit" }, t("Create"))),
  );
  const code = el("input", { name: "code", id: "league-code", required: true, maxlength: "16", autocomplete: "off", autocapitalize: "characters" });
  const join = el(
    "form",
    { "data-form": "league-join" },
    el("label", { for: "league-code" }, t("Join a league by its code")),
    el("div.row", null, code, el("button", { type: "submit" }, t("Join the league"))),
  );
  panel.append(
    el("p.hint", null, t("A league plays the daily of one suit count: each day its members earn points by their places, and each month is a season.")),
    list,
    create,
    join,
    errorLine(),
  );
  const reply = await c.connection.request({ type: "leagues" });
  if (reply.type === "leagues") {
    const items = reply.leagues.map((league) => {
      const open = el("button.link", { "data-league": league.code }, league.name);
      open.addEventListener("click", () => openPanel("league", league.code));
      return el(
        "li",
        null,
        open,
        el("span.hint", null, [suitsName(league.suits), tn("%(count)s member", "%(count)s members", league.members)].join(" · ")),
      );
    });
    list.replaceChildren(...(items.length ? items : [el("li.hint", null, t("You are in no league yet."))]));
  }
  /** @param {SubmitEvent} event @param {any} request */
  const send = async (event, request) => {
    event.preventDefault();
    setError(panel, "");
    const answer = await c.connection.request(request);
    if (answer.type === "league") openPanel("league", answer);
    else if (answer.type === "error") setError(panel, answer.message);
  };
  create.addEventListener("submit", (/** @type {SubmitEvent} */ event) =>
    send(event, { type: "league_new", name: name.value.trim(), suits: Number(suits.value) }),
  );
  join.addEventListener("submit", (/** @type {SubmitEvent} */ event) =>
    send(event, { type: "league_join", code: code.value.trim().toUpperCase() }),
  );
}

// -- an invitation -------------------------------------------------------------------------

/** /play?league=CODE signed in: the league's page if you are in it, else "Join it?".
 * @param {HTMLElement} panel @param {string} code */
export async function invitationPanel(panel, code) {
  const seen = await c.connection.request({ type: "league", code });
  const me = c.player?.name;
  if (seen.type === "league" && seen.members.some((member) => member.name === me)) {
    await openPanel("league", seen);
    return;
  }
  const named = seen.type === "league" ? seen.name : code;
  const yes = el("button", { "data-action": "join-league" }, t("Join the league"));
  const no = el("button", { "data-action": "close-invitation" }, t("Not now"));
  panel.append(el("p", { "data-invitation": true }, t("Join league %(name)s?", { name: named })), el("div.row", null, yes, no), errorLine());
  no.addEventListener("click", () => /** @type {HTMLElement} */ (document.querySelector("[data-action=close-panel]")).click());
  yes.addEventListener("click", async () => {
    setError(panel, "");
    const reply = await c.connection.request({ type: "league_join", code });
    if (reply.type === "league") await openPanel("league", reply);
    else if (reply.type === "error") setError(panel, reply.message);
  });
}

// -- a league's page -----------------------------------------------------------------------

/** A league's page: `given` is its code, or its view already at hand.
 * @param {HTMLElement} panel @param {string | LeagueView} given */
export async function leaguePanel(panel, given) {
  const error = errorLine();
  /** @param {any} request */
  const ask = async (request) => {
    setError(panel, "");
    const reply = await c.connection.request(request);
    if (reply.type === "league") draw(reply);
    else if (reply.type === "leagues") await openPanel("leagues");
    else if (reply.type === "error") setError(panel, reply.message);
  };
  const content = el("div.league");
  panel.append(content, error);
  await circle({ type: "following" });
  /** @param {LeagueView} view */
  const draw = (view) => {
    const me = c.player?.name;
    const owner = view.owner === me;
    /** @type {HTMLElement} */ (document.querySelector("[data-panel-title]")).textContent = t("League %(name)s", { name: view.name });
    const invite = el("code", { "data-invite": true }, view.invite);
    const copy = el("button.small", { "data-action": "copy-invite" }, t("Copy"));
    copy.addEventListener("click", () => copyText(view.invite, copy, invite));
    const today = view.finished_today
      ? el(
          "p",
          { "data-finished-today": true },
          view.finished_today.length
            ? t("Finished: %(names)s", { names: view.finished_today.join(", ") }) + " " + t("Their scores show once you have finished this daily.")
            : t("Nobody of the league has finished today's daily yet."),
        )
      : view.today.length
        ? table(
            [t("Place"), t("Player"), t("Points"), t("Result"), t("Score"), t("Time")],
            view.today.map((row) => [
              number(row.place), playerLink(row.name), number(row.points),
              row.won ? t("won") : tn("%(count)s run", "%(count)s runs", row.removed), number(row.score), clock(row.elapsed),
            ]),
            { "data-league-today": "" },
          )
        : el("p.hint", null, t("Nobody of the league has finished today's daily yet."));
    const current = view.day.slice(0, 7);
    const previous = el("button.small", { "data-month": monthAfter(view.month, -1) }, `← ${monthName(monthAfter(view.month, -1))}`);
    const next = el("button.small", { "data-month": monthAfter(view.month, 1), hidden: view.month >= current }, `${monthName(monthAfter(view.month, 1))} →`);
    for (const button of [previous, next]) button.addEventListener("click", () => ask({ type: "league", code: view.code, month: button.dataset.month }));
    const season = view.season.length
      ? table(
          [t("Place"), t("Player"), t("Points"), t("Days"), t("Days won")],
          view.season.map((row) => [number(row.place), playerLink(row.name), number(row.points), number(row.days), number(row.wins)]),
          { "data-season": "" },
        )
      : el("p.hint", null, t("No points this season yet."));
    const winners = view.winners.length
      ? el("ul", { "data-winners": true }, ...view.winners.map((w) => el("li", null, `${monthName(w.month)}: `, playerLink(w.name), " · " + tn("%(count)s point", "%(count)s points", w.points))))
      : el("p.hint", null, t("No season of this league is over yet."));
    const members = el(
      "ul.account-list",
      { "data-members": true },
      ...view.members.map((member) =>
        el(
          "li",
          { "data-member": member.name },
          playerLink(member.name),
          el("span.hint", null, member.name === view.owner ? t("owner") : ""),
          el("span.hint", null, tn("%(count)s day in a row", "%(count)s days in a row", member.streak)),
          followButton(member.name, panel),
          owner && member.name !== me ? el("button.small", { "data-remove": member.name }, t("Remove")) : null,
          owner && member.name !== me ? el("button.small", { "data-hand-over": member.name }, t("Hand over")) : null,
        ),
      ),
    );
    members.addEventListener("click", (/** @type {MouseEvent} */ event) => {
      const button = /** @type {HTMLElement} */ (event.target).closest("[data-remove], [data-hand-over]");
      if (!(button instanceof HTMLElement)) return;
      const { remove, handOver } = button.dataset;
      if (remove && confirm(t("Remove %(name)s from the league?", { name: remove }))) ask({ type: "league_remove", code: view.code, name: remove });
      if (handOver && confirm(t("Hand the league over to %(name)s? They become its owner.", { name: handOver })))
        ask({ type: "league_hand_over", code: view.code, name: handOver });
    });
    const publicBox = el("input", { type: "checkbox", "data-league-public": true, checked: view.public });
    publicBox.disabled = !owner;
    publicBox.addEventListener("change", () => ask({ type: "league_public", code: view.code, public: publicBox.checked }));
    const leave = el("button", { "data-action": "leave-league" }, t("Leave the league"));
    leave.addEventListener("click", () => {
      if (confirm(t("Leave the league %(name)s?", { name: view.name }))) ask({ type: "league_leave", code: view.code });
    });
    const back = el("button", { "data-action": "my-leagues" }, t("Your leagues"));
    back.addEventListener("click", () => openPanel("leagues"));
    const page = `/league/${encodeURIComponent(view.code)}`;
    content.dataset.league = view.code;
    content.replaceChildren(
      el("p.hint", null, [suitsName(view.suits), t("kept by %(name)s", { name: view.owner }), t("code %(code)s", { code: view.code })].join(" · ")),
      el("p.room-link", null, t("Invite with this link:"), " ", invite, " ", copy),
      el("h3", null, t("Today")),
      today,
      el("h3", null, t("Season %(month)s", { month: monthName(view.month) })),
      el("div.row", null, previous, next),
      season,
      el("h3", null, t("Past winners")),
      winners,
      el("h3", null, t("Members")),
      members,
      el(
        "p",
        null,
        el("label.check", null, publicBox, " ", t("A public web page for the league")),
        view.public ? el("span", null, " · ", el("a", { href: page, "data-public-page": true }, t("open it"))) : null,
      ),
      el("div.row", null, back, leave),
    );
  };
  if (typeof given === "string") await ask({ type: "league", code: given });
  else draw(given);
}
