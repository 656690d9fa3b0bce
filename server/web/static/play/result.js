// The end of a game, or of a race, over the table: whether there is one to show, showing it
// (drawn by result-view.js, a module loaded at the first game's end), its buttons and Esc.

import { cancelSelection } from "./controls.js";
import { controller as c } from "./controller.js";
import { $, click, copyText } from "./dom.js";
import { refreshDaily, showLobby } from "./lobby.js";

/** Whether there is a result to show: the game's end as the server said it, or its race's. */
export function hasResult() {
  const view = c.room.view;
  const inRace = c.game?.view.race && view?.code === c.game.view.race;
  return Boolean(c.result || (inRace && view.state === "over"));
}

/** Show the result over the table (its module is loaded the first time: a few milliseconds,
 * then cached like the others). */
export function showResult() {
  if (!hasResult()) return;
  import("./result-view.js").then(
    ({ drawResult }) => drawResult(),
    (error) => console.error("the result could not be shown", error),
  );
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
