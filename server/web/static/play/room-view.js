// A race room's waiting room (room.js loads this module when a room is first shown: a visit
// that never races does not pay for it): its code and link, who is in, how it starts, and its
// buttons.

import { controller as c } from "./controller.js";
import { $, click, copyText, setError } from "./dom.js";
import { laterWords, number, t, tn } from "./i18n.js";
import { refreshDaily, showLobby } from "./lobby.js";
import { racerLine } from "./race.js";
import { tick } from "./table.js";

await laterWords(); // this module's words, fetched with it

/** The waiting room: its code and link, who is in, how it starts. */
export function drawRoom() {
  const view = c.room.view;
  if (!view) return;
  const me = c.player?.name;
  $("[data-room-code]").textContent = view.code;
  const link = `${location.origin}/play?race=${encodeURIComponent(view.code)}`;
  const anchor = $("[data-room-link]");
  anchor.href = link;
  anchor.textContent = link;
  const suits = tn("%(count)s suit", "%(count)s suits", view.suits);
  const waiting = tn("%(racers)s of %(count)s racer", "%(racers)s of %(count)s racers", view.capacity, {
    racers: number(view.racers.length),
  });
  const how = view.public
    ? t("It starts by itself: at once with 3 racers, or shortly after a second racer comes.")
    : view.owner === me
      ? t("Start the race when your friends are in.")
      : t("%(owner)s starts the race.", { owner: view.owner });
  const ledes = {
    open: () => t("%(suits)s, %(waiting)s. %(how)s", { suits, waiting, how }),
    countdown: () =>
      t("%(suits)s: the race is about to start. Everyone gets the same deal at the same instant.", { suits }),
    racing: () => t("%(suits)s: racing.", { suits }),
    over: () => t("%(suits)s: the race is over.", { suits }),
    expired: () => t("This room expired before its race started."),
  };
  const lede = ledes[view.state]?.();
  $("[data-room-lede]").textContent = lede;
  const list = $("[data-room-racers]");
  list.replaceChildren(...view.racers.map((racer, index) => racerLine(racer, view, me, index)));
  const startButton = $("[data-action=race-start]");
  startButton.hidden = !(view.state === "open" && view.owner === me && !view.public);
  startButton.disabled = view.racers.length < 2;
  const why = $("[data-race-start-why]");
  why.hidden = startButton.hidden || !startButton.disabled;
  why.textContent = t("A race needs 2 racers: send the link.");
  $("[data-action=race-leave]").hidden = view.state !== "open";
  tick();
}

// the room's buttons, wired once, when the room is first drawn
click("[data-action=race-start]", async () => {
  const reply = await c.connection.requestNow({ type: "race_start", code: c.room.view.code });
  if (reply.type === "error") setError($("[data-view=room]"), reply.message);
});
click("[data-action=race-leave]", async () => {
  const code = c.room.view?.code;
  c.room.view = null;
  c.keepRoom(null);
  if (code) c.connection.request({ type: "race_leave", code }); // sent once connected
  showLobby();
  refreshDaily();
});
click("[data-action=copy-link]", (/** @type {MouseEvent} */ event) => {
  const link = $("[data-room-link]");
  copyText(link.href, /** @type {HTMLElement} */ (event.currentTarget), link);
});
