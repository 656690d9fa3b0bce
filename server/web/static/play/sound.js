// Sound, off until the player turns it on (the settings), for a pick-up, a drop, a run removed
// and a win. The tones are a module of their own (tones.js), loaded only once sound is on: a
// page with sound off loads no audio code and makes no AudioContext.

import { $ } from "./dom.js";
import { onSettings } from "./settings.js";

/** @type {typeof import("./tones.js") | null} */
let tones = null;
let on = false;

/** @param {"pickUp" | "drop" | "run" | "win"} name */
function play(name) {
  if (!on) return;
  if (tones) {
    tones.play(name);
    return;
  }
  // the first sound waits for its module (a few milliseconds, then cached like the others)
  import("./tones.js").then(
    (loaded) => {
      tones = loaded;
      if (on) loaded.play(name);
    },
    () => {}, // offline with the module never fetched: no sound, nothing else lost
  );
}

/** The sounds: silent while sound is off. */
export const sound = {
  pickUp: () => play("pickUp"),
  drop: () => play("drop"),
  run: () => play("run"),
  win: () => play("win"),
};

export function setupSound() {
  onSettings((settings) => {
    on = settings.sound;
    if (!on) tones?.suspend();
  });
  // made in the click that turns sound on (a page may start audio only after a gesture);
  // when the settings come with sound on, at the first sound, which follows the player's hand
  $("[data-setting=sound]").addEventListener("change", () => {
    if (on) sound.drop();
  });
}
