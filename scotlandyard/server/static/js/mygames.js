// "My games": the games this browser holds a token for (localStorage), whose turn it is in
// each, and the tab title / optional notification when it is this player's move.

import { t } from "./i18n.js";

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

/** Whose turn it is in a state body, as a sentence for the list. */
export function turnText(st) {
  const view = st.view;
  if (view.outcome || st.adjudication) {
    const winner = (view.outcome || st.adjudication).winner;
    return winner === "mr_x" ? t("mygames.over_mr_x") : t("mygames.over_detectives");
  }
  const mine = view.pieces_to_move.filter((p) => st.pieces.includes(p) && st.seats[p]?.kind === "human");
  if (view.legal_moves.length && mine.length) return t("mygames.your_move");
  return t("mygames.waiting", { pieces: view.pieces_to_move.join(", ") });
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
