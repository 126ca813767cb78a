// The puzzle page (/puzzles, /puzzles/ID): a detectives' position from a real game where the
// exact search proves a capture. The player picks one move for each detective to move (click
// a highlighted station; a ticket chip when several tickets reach it), then Check: the server
// judges it with the rules engine. A 2-round puzzle answers with Mr X's hardest reply, and the
// player finishes him. Ratings are Glicko-2 (the player's token is kept in localStorage).

import { getBoard } from "./api.js";
import { BoardView, pieceName } from "./board.js";
import { h } from "./dom.js";
import { applyI18n, onLanguageChange, t } from "./i18n.js";
import { tp } from "./plural.js";

const TOKEN_KEY = "sy.puzzle.player";
const LETTER = { T: "taxi", B: "bus", U: "underground" };

async function call(url, { method = "GET", body = null, token = null } = {}) {
  const headers = {};
  if (body !== null) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(url, { method, headers, body: body === null ? null : JSON.stringify(body), cache: "no-store" });
  let data = null;
  try { data = await res.json(); } catch (_) { /* not JSON */ }
  if (!res.ok) {
    const err = new Error((data && data.detail) || `HTTP ${res.status}`);
    err.status = res.status;
    throw err;
  }
  return data;
}

export class PuzzlePage {
  constructor(root, puzzleId = null) {
    this.root = root;
    this.page = h("section", { class: "puzzle-page", "data-state": "loading" });
    root.replaceChildren(this.page);
    this.token = null;
    try { this.token = localStorage.getItem(TOKEN_KEY); } catch (_) { /* storage off */ }
    this.unlisten = onLanguageChange(() => this.render());
    this.start(puzzleId).catch((e) => this.fail(e));
  }

  fail(e) {
    console.error(e);
    this.page.dataset.state = "error";
    this.page.replaceChildren(h("div", { class: "card narrow" }, h("p", { class: "error", text: e.message })));
  }

  async ensurePlayer() {
    if (this.token) return;
    try {
      const made = await call("/api/puzzles/players", { method: "POST" });
      this.token = made.player;
      try { localStorage.setItem(TOKEN_KEY, this.token); } catch (_) { /* unrated then */ }
    } catch (_) { this.token = null; } // a refused player (rate): the puzzle is unrated
  }

  async start(puzzleId) {
    await this.ensurePlayer();
    let puzzle;
    try {
      puzzle = await call(puzzleId ? `/api/puzzles/${encodeURIComponent(puzzleId)}` : "/api/puzzles/next", { token: this.token });
    } catch (e) {
      if (e.status === 401 && this.token) { // a token this server does not know: a new one
        this.token = null;
        try { localStorage.removeItem(TOKEN_KEY); } catch (_) { /* ignore */ }
        await this.ensurePlayer();
        puzzle = await call("/api/puzzles/next", { token: this.token });
      } else throw e;
    }
    this.data = await getBoard("classic");
    this.load(puzzle, null);
  }

  /** Show a puzzle position; `first` holds the first round's moves in a 2-round puzzle's second. */
  load(puzzle, first) {
    this.puzzle = puzzle;
    if (!first) this.root.ownerDocument.defaultView.history.replaceState(null, "", `/puzzles/${puzzle.id}`);
    this.first = first;
    this.root.dataset.puzzle = puzzle.id;
    this.chosen = [];
    this.pendingStation = null;
    this.result = null;
    this.zoomed = false;
    if (puzzle.player) this.player = puzzle.player;
    this.buildLayout();
    this.render();
  }

  buildLayout() {
    this.page.replaceChildren();
    this.page.dataset.state = "playing";
    const boardBox = h("div", { class: "puzzle-board board", id: "puzzle-board" });
    this.panel = h("aside", { class: "card puzzle-panel" });
    this.page.append(h("div", { class: "puzzle-layout" }, boardBox, this.panel));
    this.board = new BoardView(boardBox, this.data, { onStation: (s) => this.pick(s) });
  }

  /** The piece whose move is chosen next, or null when every detective has one. */
  current() {
    return this.puzzle.to_move[this.chosen.length] ?? null;
  }

  /** Where the current piece may go: its reach minus the stations other detectives hold now. */
  options() {
    const piece = this.current();
    if (!piece) return new Map();
    const held = new Set();
    const stations = this.stationsNow();
    for (const [p, s] of Object.entries(stations)) if (p !== piece) held.add(s);
    const out = new Map();
    for (const [s, letters] of Object.entries(this.puzzle.reach[piece] || {})) {
      if (held.has(Number(s))) continue;
      out.set(Number(s), letters.map((l) => LETTER[l]));
    }
    return out;
  }

  stationsNow() {
    const st = { ...this.puzzle.view.stations };
    for (const c of this.chosen) st[c.piece] = c.to;
    return st;
  }

  pick(station) {
    if (this.result?.final) return;
    const opts = this.options();
    if (!opts.has(station)) return;
    const tickets = opts.get(station);
    if (tickets.length === 1) return this.choose(station, tickets[0]);
    this.pendingStation = station;
    this.render();
  }

  choose(station, ticket) {
    const piece = this.current();
    const letter = Object.keys(LETTER).find((k) => LETTER[k] === ticket);
    this.chosen.push({ piece, to: station, ticket, text: `${piece}:${letter}${station}` });
    this.pendingStation = null;
    this.render();
  }

  undo() {
    if (this.result?.final) return;
    this.chosen.pop();
    this.pendingStation = null;
    this.render();
  }

  async check() {
    const moves = this.chosen.map((c) => c.text);
    const body = this.first ? { moves: this.first, then: moves } : { moves };
    this.checkButton.disabled = true;
    let res;
    try {
      res = await call(`/api/puzzles/${encodeURIComponent(this.puzzleId())}/attempt`, { method: "POST", body, token: this.token });
    } catch (e) {
      this.result = { final: false, error: e.message };
      return this.render();
    }
    if (!res.final) { // Mr X's reply: play the second round
      this.reply = res.reply;
      this.rootId = this.puzzleId();
      this.load({ ...res.reply.puzzle, rating: this.puzzle.rating }, moves);
      return;
    }
    this.result = res;
    if (res.rating && this.player) this.player = { ...this.player, rating: res.rating.player };
    else if (res.rating) this.player = { rating: res.rating.player };
    this.render();
  }

  puzzleId() {
    return this.first ? this.rootId : this.puzzle.id;
  }

  async next() {
    this.reply = null;
    this.first = null;
    this.page.dataset.state = "loading";
    try {
      const p = await call("/api/puzzles/next", { token: this.token });
      this.load(p, null);
    } catch (e) { this.fail(e); }
  }

  render() {
    if (!this.puzzle || !this.board) return;
    const p = this.puzzle;
    const piece = this.current();
    const opts = this.options();
    const final = this.result?.final;
    // the board: detectives (moved ones at their new station), where Mr X may be, targets
    this.board.setPieces(this.stationsNow(), { active: piece });
    this.board.setShading(p.possible, null);
    const targets = final ? [] : [...opts.keys()];
    this.board.setTargets(targets, "move", final ? null : opts);
    if (!final && targets.length && !this.zoomed) {
      this.board.zoomTo([...targets, ...p.possible, ...Object.values(p.view.stations)]);
      this.zoomed = true;
    }
    this.page.dataset.state = final ? (this.result.solved ? "solved" : "failed") : "playing";
    this.page.dataset.toMove = piece || "";
    const task = this.first ? t("puzzle.task_finish") : p.rounds === 1 ? t("puzzle.task_one") : t("puzzle.task_two");
    const head = h("div", { class: "puzzle-head" },
      h("h1", { text: t("puzzle.title", { id: this.puzzleId() }) }),
      h("p", { class: "puzzle-rating", text: t("puzzle.rating", { rating: p.rating }) }));
    const parts = [head];
    if (this.reply) {
      const ticket = t(`ticket.${this.reply.ticket}`);
      parts.push(h("p", { class: "puzzle-reply notice", role: "status",
        text: this.reply.double ? t("puzzle.reply_double", { ticket }) : t("puzzle.reply", { ticket }) }));
    }
    parts.push(h("p", { class: "puzzle-task", text: task }));
    parts.push(h("p", { class: "puzzle-possible", text: tp("puzzle.possible", p.possible.length) }));
    const list = h("ol", { class: "puzzle-moves" });
    p.to_move.forEach((pc, i) => {
      const c = this.chosen[i];
      const li = h("li", { class: pc === piece ? "current" : "", "data-piece": pc },
        h("span", { class: `dot dot-${pc}` }), h("span", { text: pieceName(pc) }),
        h("span", { class: "puzzle-move", text: c ? `${t(`ticket_short.${c.ticket}`)} ${c.to}` : pc === piece ? t("puzzle.choose") : "…" }));
      list.append(li);
    });
    parts.push(list);
    if (this.pendingStation != null && !final) {
      const row = h("div", { class: "puzzle-tickets", role: "group", "aria-label": t("puzzle.which_ticket") },
        h("span", { text: t("puzzle.which_ticket") }));
      for (const tk of opts.get(this.pendingStation) || []) {
        row.append(h("button", { class: `btn ticket-btn ticket-${tk}`, type: "button", "data-ticket": tk,
          text: t(`ticket.${tk}`), onclick: () => this.choose(this.pendingStation, tk) }));
      }
      parts.push(row);
    }
    const actions = h("div", { class: "actions-row" });
    this.checkButton = h("button", { class: "btn btn-primary", type: "button", id: "puzzle-check",
      text: t("puzzle.check"), onclick: () => this.check() });
    this.checkButton.disabled = final || piece !== null;
    const undo = h("button", { class: "btn", type: "button", id: "puzzle-undo", text: t("puzzle.undo"), onclick: () => this.undo() });
    undo.disabled = final || this.chosen.length === 0;
    actions.append(this.checkButton, undo);
    if (final) actions.append(h("button", { class: "btn btn-primary", type: "button", id: "puzzle-next", text: t("puzzle.next"), onclick: () => this.next() }));
    parts.push(actions);
    if (this.result?.error) parts.push(h("p", { class: "error", role: "alert", text: this.result.error }));
    if (final) {
      const ok = this.result.solved;
      const box = h("div", { class: `puzzle-result ${ok ? "ok" : "bad"}`, role: "status", id: "puzzle-result" },
        h("strong", { text: ok ? t("puzzle.solved") : t("puzzle.failed") }));
      if (!ok && this.result.open?.length) {
        box.append(h("p", { class: "puzzle-reason", text: t("puzzle.open", { stations: this.result.open.join(", ") }) }));
      } else if (!ok && this.result.reason) box.append(h("p", { class: "puzzle-reason", text: this.result.reason }));
      if (this.result.rating && !this.result.rating.unrated) {
        const d = this.result.rating.player - this.result.rating.before;
        box.append(h("p", { class: "puzzle-change", text: t("puzzle.rating_change", { rating: this.result.rating.player, change: d >= 0 ? `+${d}` : `${d}` }) }));
      }
      box.append(h("p", { class: "puzzle-solution", text: t("puzzle.solution", { moves: this.result.solution.join("  ") }) }));
      parts.push(box);
    }
    if (this.player) parts.push(h("p", { class: "puzzle-player muted", text: t("puzzle.your_rating", { rating: this.player.rating }) }));
    parts.push(h("p", { class: "puzzle-source muted", text: p.source }));
    this.panel.replaceChildren(...parts);
    applyI18n(this.panel);
  }
}
