// Optional sounds, made on the fly with WebAudio (no files): a move (a short tone per
// transport), a reveal (a rising chime) and a capture (a falling fanfare). Off by default;
// the choice is remembered in localStorage ("sy.sound").

const KEY = "sy.sound";
let ctx = null;

/** True when the player switched sounds on. */
export function soundOn() {
  try { return localStorage.getItem(KEY) === "1"; } catch (_) { return false; }
}

/** Switch sounds on or off (and remember it). */
export function setSound(on) {
  try { localStorage.setItem(KEY, on ? "1" : "0"); } catch (_) { /* ignore */ }
  if (on) audio(); // a user gesture: the audio context may start now
}

function audio() {
  if (!ctx) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    ctx = new Ctx();
  }
  if (ctx.state === "suspended") ctx.resume().catch(() => {});
  return ctx;
}

function tone(freq, start, length, { type = "sine", gain = 0.12, slide = null } = {}) {
  const a = audio();
  if (!a) return;
  const t0 = a.currentTime + start;
  const osc = a.createOscillator();
  const amp = a.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (slide) osc.frequency.exponentialRampToValueAtTime(slide, t0 + length);
  amp.gain.setValueAtTime(0.0001, t0);
  amp.gain.exponentialRampToValueAtTime(gain, t0 + 0.015);
  amp.gain.exponentialRampToValueAtTime(0.0001, t0 + length);
  osc.connect(amp).connect(a.destination);
  osc.start(t0);
  osc.stop(t0 + length + 0.02);
}

const MOVE = {
  taxi: () => tone(660, 0, 0.12, { type: "triangle" }),
  bus: () => { tone(440, 0, 0.12, { type: "triangle" }); tone(550, 0.1, 0.14, { type: "triangle" }); },
  underground: () => tone(180, 0, 0.35, { type: "sawtooth", gain: 0.06, slide: 120 }),
  black: () => tone(240, 0, 0.25, { type: "square", gain: 0.04, slide: 160 }),
};

/** Play a sound for an event ("move" with a ticket, "reveal", "capture", "offer": a takeback
 * or rematch offer to answer) if sounds are on.
 * Returns the name of what was played, or null. */
export function play(event, ticket = "taxi") {
  if (!soundOn()) return null;
  if (event === "move") (MOVE[ticket] || MOVE.taxi)();
  else if (event === "reveal") [523, 659, 784].forEach((f, i) => tone(f, i * 0.09, 0.3, { gain: 0.1 }));
  else if (event === "offer") [880, 1175].forEach((f, i) => tone(f, i * 0.12, 0.18, { gain: 0.09 }));
  else if (event === "capture") [784, 622, 523, 392].forEach((f, i) => tone(f, i * 0.13, 0.32, { type: "triangle", gain: 0.12 }));
  else return null;
  return event;
}
