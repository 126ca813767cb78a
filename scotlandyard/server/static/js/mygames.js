// "My games": the games this browser holds a token for (localStorage), whose turn it is in
// each, and the tab title / optional notification when it is this player's move.

import { has, language, t } from "./i18n.js";
import { pieceName } from "./board.js";

const TOKENS_KEY = "sy.tokens"; // {gameId: token}, written by game.js when a game is opened
const SEEN_KEY = "sy.games";    // {gameId: {at, role}}: when this browser last opened it
const NOTIFY_KEY = "sy.notify";
const SHOWN = 12;

function read(key) {
  try { return JSON.parse(localStorage.getItem(key) || "{}") || {}; } catch (_) { return {}; }
}

function write(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (_) { /* storage disabled */ }
}

/** Remember that this browser plays `gameId` (called by the game page on `welcome`). */
export function rememberGame(gameId, role) {
  const seen = read(SEEN_KEY);
  seen[gameId] = { at: Date.now(), role };
  write(SEEN_KEY, seen);
}

/** Forget a game (its token no longer opens it). */
export function forgetGame(gameId) {
  const tokens = read(TOKENS_KEY);
  const seen = read(SEEN_KEY);
  delete tokens[gameId];
  delete seen[gameId];
  write(TOKENS_KEY, tokens);
  write(SEEN_KEY, seen);
}

/** The games this browser holds tokens for, most recently opened first. */
export function myGames() {
  const tokens = read(TOKENS_KEY);
  const seen = read(SEEN_KEY);
  return Object.keys(tokens)
    .map((id) => ({ id, token: tokens[id], at: seen[id]?.at ?? 0 }))
    .sort((a, b) => b.at - a.at)
    .slice(0, SHOWN);
}

/** One game's state (REST, with its token), or null if it cannot be read. */
export async function gameStatus(game) {
  try {
    const res = await fetch(`/api/games/${encodeURIComponent(game.id)}/state`, {
      headers: { Authorization: `Bearer ${game.token}` },
    });
    if (res.status === 401 || res.status === 404) return { gone: true };
    if (!res.ok) return null;
    return await res.json();
  } catch (_) {
    return null;
  }
}

/** Whose turn it is in a state body, or the result, as a sentence for the list. */
export function turnText(st) {
  const view = st.view;
  const out = view.outcome || st.adjudication;
  if (out) return resultText(st, out);
  const mine = view.pieces_to_move.filter((p) => st.pieces.includes(p) && st.seats[p]?.kind === "human");
  if (view.legal_moves.length && mine.length) return t("mygames.your_move");
  return t("mygames.waiting", { pieces: view.pieces_to_move.map((p) => seatName(st, p)).join(", ") });
}

/** Whether the state body says it is this token's move. */
export function isMyMove(st) {
  const view = st.view;
  if (view.outcome || st.adjudication || !view.legal_moves.length) return false;
  return view.pieces_to_move.some((p) => st.pieces.includes(p) && st.seats[p]?.kind === "human");
}

function levelName(agent) {
  return agent && has(`level.${agent}`) ? t(`level.${agent}`) : (agent ?? "");
}

/** A seat in words: "Detective 2", "Detective 2 (computer, hard)", "Detective 2 (open seat)". */
function seatName(st, piece) {
  const seat = st.seats[piece] || {};
  if (seat.kind === "ai") return t("mygames.seat_computer", { piece: pieceName(piece), level: levelName(seat.agent) });
  if (seat.open) return t("mygames.seat_open", { piece: pieceName(piece) });
  return pieceName(piece);
}

/** The other side's seats in words: "the computer (hard)" when it plays them all at one level. */
function sideText(st, pieces) {
  const seats = pieces.map((p) => st.seats[p] || {});
  if (seats.length && seats.every((s) => s.kind === "ai" && s.agent === seats[0].agent)) {
    return t("mygames.computer", { level: levelName(seats[0].agent) });
  }
  return pieces.map((p) => seatName(st, p)).join(", ");
}

/** Who this token plays against (the spectator: both sides). Only seat facts: nothing of
 * where Mr X is. */
export function opponentsText(st) {
  const hunters = Object.keys(st.seats).filter((p) => p !== "X");
  if (st.role === "hotseat") return t("mygames.hotseat");
  if (st.role === "spectator") return t("mygames.watching", { x: sideText(st, ["X"]), detectives: sideText(st, hunters) });
  const others = st.role === "mr_x" ? hunters : ["X"];
  return t("mygames.against", { who: sideText(st, others) });
}

/** The result of a finished game for this token: "You won: Detective 1 caught Mr X in round 12." */
export function resultText(st, out) {
  const reason = out.reason === "time"
    ? (out.winner === "mr_x" ? t("end.time_detectives") : t("end.time_mr_x"))
    : t(`outcome.reason.${out.reason}`, { piece: out.piece ? pieceName(out.piece) : "", round: out.round });
  const side = st.role === "mr_x" ? "mr_x" : st.role === "detectives" ? "detectives" : null;
  if (!side) return `${out.winner === "mr_x" ? t("mygames.over_mr_x") : t("mygames.over_detectives")} · ${reason}`;
  return `${out.winner === side ? t("mygames.won") : t("mygames.lost")} · ${reason}`;
}

/** How long ago (`at`, Unix seconds) in the page's language, with Intl.RelativeTimeFormat. */
export function agoText(at, now = Date.now() / 1000) {
  if (at === null || at === undefined) return t("mygames.no_move");
  const s = Math.max(0, now - at);
  const fmt = new Intl.RelativeTimeFormat(language(), { numeric: "auto" });
  const [n, unit] = s < 45 ? [0, "second"] : s < 3600 ? [Math.round(s / 60), "minute"]
    : s < 86400 ? [Math.round(s / 3600), "hour"] : [Math.round(s / 86400), "day"];
  return t("mygames.last_move", { when: fmt.format(-n, unit) });
}

/** Fill one "My games" row from its state body. */
export function showGame(li, st) {
  li.querySelector(".mygame-vs").textContent = `${t(`role.${st.role}`)} · ${opponentsText(st)}`;
  const over = !!(st.view.outcome || st.adjudication); // (the result names its round)
  li.querySelector(".mygame-status").textContent = over ? turnText(st) : `${t("status.round")} ${st.view.round} · ${turnText(st)}`;
  li.querySelector(".mygame-when").textContent = agoText(st.last_move_at);
  li.classList.toggle("your-move", isMyMove(st));
  li.classList.toggle("over", over);
}

// ---- tab title and notification ---------------------------------------------------------------
let wasMine = false;

export function notifyWanted() {
  try { return localStorage.getItem(NOTIFY_KEY) === "1"; } catch (_) { return false; }
}

export async function setNotify(on) {
  try { localStorage.setItem(NOTIFY_KEY, on ? "1" : "0"); } catch (_) { /* ignore */ }
  if (on && typeof Notification !== "undefined" && Notification.permission === "default") {
    try { await Notification.requestPermission(); } catch (_) { /* refused */ }
  }
}

/** Put "Your move" in the tab title while it is this player's move (and notify once). */
export function showTurn(mine) {
  document.title = mine ? `● ${t("mygames.your_move")} — ${t("app.title")}` : t("app.title");
  if (mine && !wasMine && document.hidden && notifyWanted()
      && typeof Notification !== "undefined" && Notification.permission === "granted") {
    try { new Notification(t("app.title"), { body: t("mygames.your_move") }); } catch (_) { /* ignore */ }
  }
  wasMine = mine;
}
