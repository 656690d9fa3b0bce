// Sound, off until the player turns it on (the settings): tiny tones made on the spot with
// the Web Audio API (no audio files) for a pick-up, a drop, a run removed and a win. No
// AudioContext is made until sound is on; once one is, <body data-audio="on"> says so
// (read by tests, never written by them).

import { $ } from "./dom.js";
import { onSettings } from "./settings.js";

/** @type {AudioContext | null} */
let context = null;
let on = false;

/** A tone: `frequency` Hz from `at` seconds on, for `length` seconds, with a soft attack
 * and an exponential fade (no click at either end).
 * @param {AudioContext} audio @param {number} frequency @param {number} at @param {number} length
 * @param {OscillatorType} [shape] @param {number} [loudness] */
function tone(audio, frequency, at, length, shape = "triangle", loudness = 0.12) {
  const start = audio.currentTime + at;
  const oscillator = audio.createOscillator();
  const gain = audio.createGain();
  oscillator.type = shape;
  oscillator.frequency.setValueAtTime(frequency, start);
  gain.gain.setValueAtTime(0.0001, start);
  gain.gain.exponentialRampToValueAtTime(loudness, start + 0.008);
  gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
  oscillator.connect(gain).connect(audio.destination);
  oscillator.start(start);
  oscillator.stop(start + length + 0.02);
}

/** The context, made the first time sound is on (a click on the setting lets it play). */
function audio() {
  if (!on) return null;
  if (!context) {
    const Context = window.AudioContext ?? /** @type {any} */ (window).webkitAudioContext;
    if (!Context) return null;
    context = new Context();
    document.body.dataset.audio = "on";
  }
  if (context.state === "suspended") context.resume();
  return context;
}

/** The sounds, each a few tones: silent while sound is off. */
export const sound = {
  pickUp() {
    const a = audio();
    if (a) tone(a, 660, 0, 0.06, "sine", 0.08);
  },
  drop() {
    const a = audio();
    if (a) tone(a, 330, 0, 0.08, "triangle", 0.14);
  },
  run() {
    const a = audio();
    if (!a) return;
    [523.25, 659.25, 783.99].forEach((frequency, index) => tone(a, frequency, index * 0.07, 0.16));
  },
  win() {
    const a = audio();
    if (!a) return;
    [523.25, 659.25, 783.99, 1046.5].forEach((frequency, index) => tone(a, frequency, index * 0.11, 0.3));
    tone(a, 1318.5, 0.48, 0.6, "sine", 0.1);
  },
};

export function setupSound() {
  onSettings((settings) => {
    on = settings.sound;
    if (!on && context) context.suspend();
  });
  // made in the click that turns sound on (a page may start audio only after a gesture);
  // when the settings come with sound on, at the first sound, which follows the player's hand
  $("[data-setting=sound]").addEventListener("change", () => {
    if (on) sound.drop();
  });
}
