// The sounds themselves (account.js loads this module only once sound is on): tiny tones made
// on the spot with the Web Audio API, no audio file. The AudioContext is made at the first
// sound; <body data-audio="on"> then says so (read by tests, never written by them).

/** @type {AudioContext | null} */
let context = null;

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
  if (!context) {
    const Context = window.AudioContext ?? /** @type {any} */ (window).webkitAudioContext;
    if (!Context) return null;
    context = new Context();
    document.body.dataset.audio = "on";
  }
  if (context.state === "suspended") context.resume();
  return context;
}

/** The sounds, each a few tones, by name. */
const SOUNDS = {
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

/** Play the sound `name`. @param {"pickUp" | "drop" | "run" | "win"} name */
export function play(name) {
  SOUNDS[name]();
}

/** Sound turned off: the context, if any, stops. */
export function suspend() {
  if (context) context.suspend();
}
