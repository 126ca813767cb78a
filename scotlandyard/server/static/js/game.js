// The game page: connects with the token from the URL fragment (#t=TOKEN), draws the view
// the server sends (docs/protocol.md), and lets the player pick moves among view.legal_moves.

import { GameSocket, bindRecordDownload, getBoard } from "./api.js";
import { BoardView, LEGIBLE_SCALE, pieceName } from "./board.js";
import { applyI18n, has, onLanguageChange, t } from "./i18n.js";
import { MovePicker, destination, parseMove } from "./notation.js";
import { changedSeals, firstSeen, sealsFile, verifyJourney, verifyOpenings } from "./verify.js";
import { h } from "./dom.js";
import { play as playSound, setSound, soundOn } from "./sound.js";
import { renderAnalysis } from "./analysis.js";
import { ComputerAnalysis } from "./review.js";
import { GameExtras } from "./extras.js";
import { tp } from "./plural.js";

const TOKENS_KEY = "sy.tokens";
const TICKET_KINDS = ["taxi", "bus", "underground", "black", "double"];
/** The phone layout (app.css: a full-screen board with a bottom sheet). */
const PHONE = "(max-width: 600px)";

function onPhone() {
  return window.matchMedia(PHONE).matches;
}

/** The token for a game: from the URL fragment (remembered), else the one remembered. */
export function tokenFor(gameId) {
  const m = /(?:^#|&)t=([^&]+)/.exec(location.hash);
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(TOKENS_KEY) || "{}"); } catch (_) { saved = {}; }
  if (m) {
    const token = decodeURIComponent(m[1]);
    saved[gameId] = token;
    try { localStorage.setItem(TOKENS_KEY, JSON.stringify(saved)); } catch (_) { /* ignore */ }
    return token;
  }
  if (saved[gameId]) {
    history.replaceState(null, "", `${location.pathname}#t=${encodeURIComponent(saved[gameId])}`);
    return saved[gameId];
  }
  return null;
}

function $(root, sel) {
  return root.querySelector(sel);
}


/** The replay step in the URL fragment (#t=…&ply=N), or null. */
export function plyFromHash() {
  const m = /(?:^#|&)ply=(\d+)/.exec(location.hash);
  return m ? Number(m[1]) : null;
}

/**
 * Walk the public history from the start: every piece's station after `step` moves (null
 * where the viewer does not know it), each piece's last move as a trail
 * ({piece, path, tickets}), and the number of Mr X's log slots filled.
 */
export function walk(view, step = view.history.length) {
  const pos = { ...view.start };
  const last = {};
  let slots = 0;
  for (const m of view.history.slice(0, step)) {
    const mv = parseMove(m.move);
    if (!mv.steps.length) continue;
    const path = [pos[m.piece] ?? null, ...mv.steps.map((x) => x.to)];
    last[m.piece] = { piece: m.piece, path, tickets: mv.steps.map((x) => x.ticket) };
    pos[m.piece] = destination(mv);
    if (m.piece === "X") slots += mv.steps.length;
  }
  return { pos, trails: Object.values(last), slots };
}

/**
 * Tickets held after `step` moves, worked back from the final counts: what was spent after
 * the step is given back, and Mr X gives back what he was handed (classic rules).
 */
export function ticketsAt(view, step) {
  const out = {};
  for (const [p, tk] of Object.entries(view.tickets)) out[p] = { ...tk };
  const rules = view.rules;
  const pooled = rules.pooled_supply ? Object.keys(view.stations).filter((p) => p.startsWith("D")) : null;
  const add = (p, k, n) => {
    const row = out[p];
    if (!row || row[k] === null || row[k] === undefined) return;
    row[k] += n;
  };
  for (const m of view.history.slice(step)) {
    const mv = parseMove(m.move);
    if (mv.take) { // Mr X took a ticket from a detective
      add(mv.take.from, mv.take.ticket, 1);
      add("X", mv.take.ticket, -1);
      continue;
    }
    if (m.piece.startsWith("P")) continue; // police travel free
    for (const st of mv.steps) {
      if (m.piece.startsWith("D") && pooled) for (const d of pooled) add(d, st.ticket, 1);
      else add(m.piece, st.ticket, 1);
      if (m.piece.startsWith("D") && rules.ticket_handover) add("X", st.ticket, -1);
    }
    if (m.piece === "X" && mv.steps.length === 2) add("X", "double", 1);
  }
  return out;
}

function count(v) {
  return v === null ? "∞" : v === undefined ? "–" : String(v);
}

export class GamePage {
  constructor(app, gameId, token) {
    this.gameId = gameId;
    this.token = token;
    this.role = null;
    this.pieces = [];
    this.msg = null; // the last state message shown
    this.pending = null; // {id, text} of a move sent and not yet answered
    this.picker = null;
    this.board = null;
    this.boardName = null;
    this.shownSide = null; // hot-seat: the side whose view is on screen
    this.covered = null; // hot-seat: the state waiting behind the pass-the-device screen
    this.seen = new Map(); // slot -> first commitment hash seen
    this.changed = new Set(); // slots whose commitment changed after it was first seen
    this.replayStep = null; // null: live position
    this.verified = null;
    this.queue = Promise.resolve();
    this.shownHistory = null; // history length of the state on screen (to animate what is new)
    this.animMoves = null; // {piece: {path, tickets}} to animate in the next board drawing
    this.hashPly = plyFromHash();
    this.root = document.getElementById("tpl-game").content.firstElementChild.cloneNode(true);
    app.replaceChildren(this.root);
    applyI18n(this.root);
    this.bind();
    this.extras = new GameExtras(this);
    this.bindSheet();
    onLanguageChange(() => this.redraw());
    this.socket = new GameSocket(gameId, token, {
      onMessage: (msg) => { this.queue = this.queue.then(() => this.onMessage(msg)).catch(console.error); },
      onStatus: (s) => this.setConnection(s),
    });
  }

  // ---- wiring ---------------------------------------------------------------------------
  bind() {
    const r = this.root;
    $(r, "#tg-black").addEventListener("change", (e) => this.toggle("black", e.target.checked));
    $(r, "#tg-double").addEventListener("change", (e) => this.toggle("double", e.target.checked));
    $(r, "#tg-reveal").addEventListener("change", (e) => this.toggle("reveal", e.target.checked));
    $(r, "#btn-pass").addEventListener("click", () => {
      const m = this.picker?.passMove;
      if (m) this.play(m.text);
    });
    $(r, "#btn-cancel").addEventListener("click", () => this.cancelStep());
    $(r, "#tg-possible").addEventListener("change", () => this.renderShading());
    $(r, "#tg-heat").addEventListener("change", () => this.renderShading());
    $(r, "#cover-ok").addEventListener("click", () => this.uncover());
    $(r, "#save-seals").addEventListener("click", () => { // for scotlandyard verify --seen
      const url = URL.createObjectURL(new Blob([JSON.stringify(sealsFile(this.gameId, this.seen), null, 1)],
        { type: "application/json" }));
      const a = h("a", { href: url, download: `scotlandyard-seals-${this.gameId}.json` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    });
    const input = $(r, "#move-input");
    input.addEventListener("input", () => this.renderSuggestions());
    input.addEventListener("focus", () => this.renderSuggestions());
    input.addEventListener("keydown", (e) => this.onInputKey(e));
    input.addEventListener("blur", () => setTimeout(() => this.hideSuggestions(), 150));
    $(r, "#move-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.submitTyped();
    });
    const scrub = $(r, "#replay-range");
    scrub.addEventListener("input", () => this.setReplay(Number(scrub.value)));
    $(r, "#replay-first").addEventListener("click", () => this.setReplay(0));
    $(r, "#replay-prev").addEventListener("click", () => this.setReplay(Math.max(0, this.currentStep() - 1)));
    $(r, "#replay-next").addEventListener("click", () => this.setReplay(this.currentStep() + 1));
    $(r, "#replay-last").addEventListener("click", () => this.setReplay(null));
    const sound = $(r, "#tg-sound");
    sound.setAttribute("aria-pressed", soundOn() ? "true" : "false");
    sound.addEventListener("click", () => this.toggleSound());
    document.addEventListener("keydown", (e) => this.onShortcut(e));
  }

  /**
   * The panels below the turn banner form the sheet (index.html #sheet); on a phone it is a
   * bottom sheet with one tab shown at a time (app.css). Panels appended to the side panel by
   * extras.js join it: the chat in the "chat" tab, the rest in the "move" tab.
   */
  bindSheet() {
    const sheet = $(this.root, "#sheet");
    for (let node = sheet.nextElementSibling; node;) {
      const next = node.nextElementSibling;
      sheet.append(node);
      node = next;
    }
    for (const node of sheet.children) {
      if (!node.dataset.sheet) node.dataset.sheet = node.matches("#chat, .chat") ? "chat" : "move";
    }
    for (const tab of this.root.querySelectorAll(".sheet-tabs [role=tab]")) {
      tab.addEventListener("click", () => this.showTab(tab.dataset.tab));
    }
    this.chatSeen = 0;
    const chat = $(this.root, "#chat");
    $(this.root, "#tab-chat").hidden = !chat;
    if (chat) {
      new MutationObserver(() => this.countUnread()).observe(chat,
        { childList: true, subtree: true, attributes: true, attributeFilter: ["hidden"] });
    }
  }

  /** Show one tab of the bottom sheet (phone). */
  showTab(name) {
    const sheet = $(this.root, "#sheet");
    sheet.dataset.tab = name;
    sheet.scrollTop = 0;
    for (const tab of this.root.querySelectorAll(".sheet-tabs [role=tab]")) {
      tab.setAttribute("aria-selected", tab.dataset.tab === name ? "true" : "false");
    }
    this.countUnread();
  }

  /** The chat tab's badge: the chat panel's own unread count (chat.js), else the messages
   * that came while the tab was not shown. */
  countUnread() {
    const badge = $(this.root, "#tab-chat-badge");
    const theirs = $(this.root, "#chat-unread");
    if (theirs) {
      badge.hidden = theirs.hidden || !theirs.textContent;
      badge.textContent = theirs.textContent;
      return;
    }
    const n = this.root.querySelectorAll("#chat li").length;
    if (!onPhone() || $(this.root, "#sheet").dataset.tab === "chat") this.chatSeen = n;
    badge.hidden = n <= this.chatSeen;
    badge.textContent = String(n - this.chatSeen);
  }

  toggleSound() {
    const on = !soundOn();
    setSound(on);
    $(this.root, "#tg-sound").setAttribute("aria-pressed", on ? "true" : "false");
    if (on) playSound("move", "taxi");
  }

  /** Page-wide keys (see the shortcut list on the page); none while typing in a field. */
  onShortcut(e) {
    const r = this.root;
    if (e.key === "Escape") {
      if (!$(r, "#popup").hidden) this.closePopup();
      else this.cancelStep();
      return;
    }
    const tag = document.activeElement?.tagName;
    if (e.ctrlKey || e.metaKey || e.altKey || ["INPUT", "SELECT", "TEXTAREA"].includes(tag)) return;
    const flip = (id) => {
      const box = $(r, id);
      if (box.disabled || box.closest("label").hidden) return;
      box.checked = !box.checked;
      box.dispatchEvent(new Event("change"));
    };
    const key = e.key.toLowerCase();
    if (key === "b") flip("#tg-black");
    else if (key === "d") flip("#tg-double");
    else if (key === "r") flip("#tg-reveal");
    else if (key === "m") { e.preventDefault(); $(r, "#move-input").focus(); }
    else if (key === "g") { e.preventDefault(); this.focusBoard(); }
    else if (key === "s") this.toggleSound();
    else if (key === "p" && this.picker?.passMove) this.play(this.picker.passMove.text);
    else if (e.key === "?") { const box = $(r, "#shortcuts"); box.open = !box.open; }
    else if (this.msg?.view.outcome && (e.key === "," || e.key === ".")) {
      this.setReplay(Math.max(0, this.currentStep() + (e.key === "," ? -1 : 1)));
    }
  }

  /** Put the keyboard focus on the board: the first legal target, else the board itself. */
  focusBoard() {
    if (!this.board) return;
    const targets = this.board.targets;
    if (targets.length) this.board.focusStation(targets[0]);
    else this.board.svg.focus({ preventScroll: true });
  }

  setConnection(status) {
    this.connection = status;
    const el = $(this.root, "#conn");
    el.dataset.status = status;
    el.textContent = t(`conn.${status}`);
    if (status === "rejected") {
      $(this.root, "#fatal").hidden = false;
      $(this.root, "#fatal").textContent = t("error.bad_token");
    }
  }

  async onMessage(msg) {
    this.extras.before(msg);
    await this.onFrame(msg);
    this.extras.after(msg); // clocks, chat, takeback, rematch, end explanation (extras.js)
  }

  async onFrame(msg) {
    if (msg.type === "welcome") {
      this.role = msg.role;
      this.pieces = msg.pieces || [];
      this.root.dataset.role = msg.role;
    } else if (msg.type === "state") {
      await this.onState(msg);
    } else if (msg.type === "ack") {
      if (this.pending && this.pending.id === msg.id) this.pending = null;
    } else if (msg.type === "error") {
      if (this.pending && (msg.id === this.pending.id || msg.id === null)) {
        this.pending = null;
        if (this.msg) this.renderPlay();
      }
      if (msg.code !== "bad_token") this.toast(this.errorText(msg), "error");
    }
  }

  errorText(msg) {
    const key = `error.${msg.code}`;
    const base = has(key) ? t(key) : t("error.unknown");
    return msg.message ? `${base} (${msg.message})` : base;
  }

  async onState(msg) {
    // first-seen hashes win, across reloads too (verify.js firstSeen, local storage)
    for (const [slot, hash] of firstSeen(this.gameId, msg.commitments)) this.seen.set(slot, hash);
    for (const slot of changedSeals(this.seen, msg.commitments)) this.changed.add(slot); // a seal never changes
    const view = msg.view;
    await this.ensureBoard(view.rules.board);
    this.root.dataset.version = msg.version;
    if (this.pending && msg.version !== this.msg?.version) this.pending = null;
    if (this.role === "hotseat" && !view.outcome) {
      if (view.side !== this.shownSide) {
        // Pass the device: Mr X's view is drawn only once he has the device.
        this.showCover(msg);
        if (view.side !== "mr_x") this.show(msg);
        else this.blank();
        return;
      }
      if (this.covered) { // still covered: keep waiting, update what is safe
        this.covered = msg;
        if (view.side !== "mr_x") this.show(msg);
        return;
      }
    }
    this.show(msg);
  }

  async ensureBoard(name) {
    if (this.board && this.boardName === name) return;
    const data = await getBoard(name);
    this.boardName = name;
    this.board = new BoardView($(this.root, "#board"), data, {
      onStation: (s) => this.onStation(s),
    });
    this.board.svg.addEventListener("click", (e) => {
      const piece = e.target.closest?.(".piece.selectable");
      if (piece && !this.board.dragged) this.selectPiece(piece.dataset.piece);
    });
  }

  // ---- hot-seat cover ---------------------------------------------------------------------
  showCover(msg) {
    this.covered = msg;
    const cover = $(this.root, "#cover");
    const side = msg.view.side === "mr_x" ? "mr_x" : "detectives";
    cover.dataset.side = side;
    $(cover, "#cover-title").textContent = t(`hotseat.pass_${side}`);
    $(cover, "#cover-ok").textContent = t(`hotseat.ready_${side}`);
    cover.hidden = false;
    this.closePopup();
    $(cover, "#cover-ok").focus();
  }

  uncover() {
    const msg = this.covered;
    this.covered = null;
    $(this.root, "#cover").hidden = true;
    if (msg) this.show(msg);
  }

  /** Hot-seat: nothing secret on screen while the device changes hands. */
  blank() {
    this.picker = null;
    if (this.board) {
      this.board.setTargets([]);
      this.board.setPieces({}, {});
      this.board.setShading(null, null);
      this.board.setPath([]);
    }
    for (const sel of ["#travel-log", "#history", "#players tbody"]) $(this.root, sel).replaceChildren();
  }

  // ---- drawing the state ------------------------------------------------------------------
  show(msg) {
    const first = this.msg === null;
    if (msg.view.outcome && this.covered) { // the game ended: nothing is secret any more
      this.covered = null;
      $(this.root, "#cover").hidden = true;
    }
    this.msg = msg;
    this.shownSide = msg.view.side;
    this.root.dataset.side = msg.view.side;
    this.root.dataset.version = msg.version;
    this.root.dataset.over = msg.view.outcome ? "1" : "0";
    if (this.replayStep !== null && !msg.view.outcome) this.replayStep = null;
    this.noteNewMoves(msg.view, first);
    if (first && msg.view.outcome && this.hashPly !== null) this.replayStep = this.hashPly >= msg.view.history.length ? null : this.hashPly;
    this.redraw();
    this.animMoves = null;
    if (this.revealNote != null) { // Mr X has just shown himself: say where, by the station
      const key = msg.view.side === "mr_x" && this.role !== "spectator" ? "play.revealed_you" : "board.revealed";
      this.board.showNote(this.revealNote, t(key, { station: this.revealNote }), "reveal");
      this.revealNote = null;
    }
    if (msg.view.outcome && !this.verifying && msg.openings) {
      this.verifying = true;
      this.verify();
    }
    const ended = msg.view.outcome && !this.wasOver;
    this.wasOver = !!msg.view.outcome;
    if (ended) this.showTab("move"); // the result is in the move tab
    if (first) this.firstZoom();
    else if (ended && onPhone()) this.zoomToEnd();
    else if (onPhone() && this.isMyTurn(msg.view)) {
      // on a phone, follow the piece whose turn it is, and keep all its targets in view
      const piece = this.picker?.piece ?? msg.view.to_move;
      if (piece !== this.zoomedPiece || !this.board.inView(this.turnStations())) this.zoomToTurn();
    }
    if (this.wantFocus) {
      this.wantFocus = false;
      if (this.isMyTurn(msg.view)) this.focusBoard();
      else this.board?.svg.focus({ preventScroll: true });
    }
  }

  /** The whole board on a laptop; on a phone, the piece to move and its targets (else the
   * player's own pieces); at the end, where Mr X ended. */
  firstZoom() {
    if (!this.board) return;
    this.board.fit();
    if (!onPhone()) return;
    if (this.msg.view.outcome) this.zoomToEnd();
    else this.zoomToTurn();
  }

  /** The station of the piece to move (first) and all its legal targets; else own pieces. */
  turnStations() {
    const view = this.msg.view;
    const at = (p) => (p === "X" ? view.mr_x_station : view.stations[p]);
    const piece = this.isMyTurn(view) ? (this.picker?.piece ?? view.to_move) : null;
    if (piece) return [at(piece), ...this.board.targets].filter((s) => s != null);
    return this.pieces.map(at).filter((s) => s != null);
  }

  /**
   * Phone: zoom so that the piece to move and every one of its targets are in view, as large
   * as they allow (numbers stay legible: board.js LEGIBLE_SCALE; taps snap to the nearest
   * target). A revealed Mr X is shown too when he fits with them.
   */
  zoomToTurn() {
    const view = this.msg.view;
    this.zoomedPiece = this.isMyTurn(view) ? (this.picker?.piece ?? view.to_move) : null;
    let list = this.turnStations();
    if (view.side !== "mr_x" && view.mr_x_station != null && this.board.fits([...list, view.mr_x_station], 0.9)) {
      list = [...list, view.mr_x_station];
    }
    this.board.zoomTo(list.length ? list : Object.values(view.stations), LEGIBLE_SCALE, 1.4);
  }

  /** Phone, game over: where Mr X ended and the detectives, at a legible zoom (around Mr X
   * when they do not all fit). */
  zoomToEnd() {
    const v = this.msg.view;
    const list = [v.mr_x_station ?? v.log.at(-1)?.station ?? v.start.X, ...Object.values(v.stations)];
    this.board.zoomTo(list.filter((x) => x != null), LEGIBLE_SCALE / 0.8, 1.2);
  }

  /** Moves new since the state on screen: animate them, and sound them (if on). */
  noteNewMoves(view, first) {
    const before = this.shownHistory;
    this.shownHistory = view.history.length;
    if (first || before === null || view.history.length <= before || view.history.length - before > 8) return;
    const prev = walk(view, before).pos;
    const moves = {};
    let ticket = null;
    for (const m of view.history.slice(before)) {
      const mv = parseMove(m.move);
      if (!mv.steps.length) continue;
      const from = moves[m.piece] ? moves[m.piece].path.at(-1) : prev[m.piece];
      moves[m.piece] = { path: [from ?? null, ...mv.steps.map((x) => x.to)], tickets: mv.steps.map((x) => x.ticket) };
      ticket = mv.steps.at(-1).ticket;
    }
    this.animMoves = moves;
    const revealed = moves.X && view.log.slice(-2).some((e) => e.reveal && e.station != null);
    if (revealed && !view.outcome) this.revealNote = view.mr_x_station;
    if (view.outcome?.reason === "caught") playSound("capture");
    else if (revealed) playSound("reveal");
    else if (ticket) playSound("move", ticket);
  }

  redraw() {
    if (!this.msg || !this.board) return;
    this.board.relabel();
    if (this.connection) this.setConnection(this.connection);
    const view = this.msg.view;
    this.renderStatus(view);
    this.renderPlayers(view);
    this.renderLog(view);
    this.renderHistory(view);
    this.renderCommitments();
    this.renderOutcome(view);
    this.renderAnalysisCard(view);
    this.renderPlay();
    this.renderBoard();
    this.renderGlance(view);
  }

  /** Phone: the tickets of your piece (the one to move) and Mr X's last log slots. */
  renderGlance(view) {
    const piece = this.picker?.piece ?? (this.pieces.includes(view.to_move) ? view.to_move : this.pieces[0]);
    const tickets = piece ? view.tickets[piece] : null;
    const box = $(this.root, "#glance-tickets");
    box.replaceChildren();
    if (tickets) {
      box.append(h("span", { class: `swatch swatch-${piece}`, title: pieceName(piece) }));
      for (const k of TICKET_KINDS) {
        if (!(k in tickets) || (piece !== "X" && (k === "black" || k === "double"))) continue;
        box.append(h("span", { class: `gl-tk gl-tk-${k}`, title: t(`ticket.${k}`), dataset: { ticket: k },
          text: `${t(`ticket_short.${k}`)} ${count(tickets[k])}` }));
      }
    }
    box.dataset.piece = piece ?? "";
    const reveals = new Set(view.rules.reveal_slots);
    const list = $(this.root, "#glance-log");
    list.replaceChildren();
    const next = (view.log.at(-1)?.slot ?? 0) + 1;
    const shown = view.log.slice(-3);
    for (const e of shown) {
      list.append(h("li", { class: reveals.has(e.slot) ? "reveal-slot" : "", dataset: { slot: e.slot } },
        h("span", { class: "gl-n", text: String(e.slot) }),
        h("strong", { text: e.station == null ? "?" : String(e.station) }), ` ${t(`ticket_short.${e.ticket}`)}`));
    }
    if (!view.outcome && next <= view.rules.last_round + view.rules.double_moves) {
      list.append(h("li", { class: `next${reveals.has(next) ? " reveal-slot" : ""}`, dataset: { slot: next } },
        h("span", { class: "gl-n", text: String(next) }), "…"));
    }
  }

  isMyTurn(view) {
    if (!view.legal_moves.length || view.outcome || this.role === "spectator" || this.covered) return false;
    return this.movablePieces(view).length > 0;
  }

  movablePieces(view) {
    const seats = this.msg.seats || {};
    return view.pieces_to_move.filter((p) => this.pieces.includes(p) && (seats[p]?.kind ?? "human") === "human");
  }

  renderStatus(view) {
    const r = this.root;
    $(r, "#round").textContent = String(view.round);
    $(r, "#last-round").textContent = String(view.rules.last_round);
    $(r, "#role").textContent = this.role ? t(`role.${this.role}`) : "";
    $(r, "#edition").textContent = t(`preset.${view.rules.edition}`);
    const turn = $(r, "#turn");
    const seats = this.msg.seats || {};
    let text;
    let mine = false;
    if (view.outcome) text = t("turn.over");
    else if (this.isMyTurn(view)) {
      mine = true;
      text = view.to_move === "X" ? t("turn.you_mr_x")
        : t("turn.you", { pieces: this.movablePieces(view).map(pieceName).join(", ") });
    } else {
      const who = view.pieces_to_move.map((p) => {
        const ai = seats[p]?.kind === "ai";
        return ai ? `${pieceName(p)} (${t("seat.ai")})` : pieceName(p);
      }).join(", ");
      text = t("turn.waiting", { pieces: who });
    }
    turn.textContent = text;
    turn.classList.toggle("mine", mine);
    r.dataset.myTurn = mine ? "1" : "0";
  }

  renderPlayers(view) {
    const body = $(this.root, "#players tbody");
    body.replaceChildren();
    const seats = this.msg.seats || {};
    const step = view.outcome ? this.replayStep : null;
    const at = step === null ? null : { pos: walk(view, step).pos, tickets: ticketsAt(view, step) };
    body.closest("table").dataset.step = step === null ? "" : String(step);
    for (const piece of view.rules ? ["X", ...Object.keys(view.stations)] : []) {
      const tickets = (at ? at.tickets[piece] : view.tickets[piece]) || {};
      const seat = seats[piece] || {};
      const station = at ? at.pos[piece] : piece === "X" ? view.mr_x_station : view.stations[piece];
      const agent = seat.agent && has(`level.${seat.agent}`) ? t(`level.${seat.agent}`) : (seat.agent ?? "");
      const seatText = seat.kind === "ai" ? `${t("seat.ai")}: ${agent}` : t("seat.human");
      const seatLine = h("span", { class: `seat seat-${seat.kind || "human"}${seat.connected ? " online" : ""}`,
        title: seat.connected ? t("seat.connected") : t("seat.offline"), text: seatText });
      if (this.role && this.role !== "spectator" && !view.outcome) {
        if (seat.kind === "human" && this.extras.canHandOver(piece, seat)) {
          seatLine.append(" · ", h("button", { type: "button", class: "btn-link seat-btn", text: t("seat.takeover"),
            title: t("seat.takeover_hint"), dataset: { action: "takeover", piece },
            onclick: () => this.extras.confirmHandOver(piece) }));
        } else if (seat.kind === "ai" && this.pieces.includes(piece)) {
          seatLine.append(" · ", h("button", { type: "button", class: "btn-link seat-btn", text: t("seat.reclaim"),
            dataset: { action: "reclaim", piece },
            onclick: () => this.socket.send({ type: "reclaim", piece }) }));
        }
      }
      if (seat.note) seatLine.title = `${seatLine.title} — ${seat.note}`;
      const row = h("tr", { dataset: { piece }, class: view.pieces_to_move.includes(piece) && !view.outcome ? "to-move" : "" },
        h("th", { scope: "row" },
          h("span", { class: `swatch swatch-${piece}` }),
          h("span", { class: "pname", text: pieceName(piece) }), seatLine),
        h("td", { class: "st", text: station == null ? "?" : String(station) }),
        ...TICKET_KINDS.map((k) => h("td", { class: `tk tk-${k}`, dataset: { ticket: k }, text: count(tickets[k]) })));
      body.append(row);
    }
  }

  renderLog(view) {
    const list = $(this.root, "#travel-log");
    list.replaceChildren();
    const rules = view.rules;
    const reveals = new Set(rules.reveal_slots);
    const slots = rules.last_round + rules.double_moves;
    const bySlot = new Map(view.log.map((e) => [e.slot, e]));
    for (let n = 1; n <= slots; n++) {
      const e = bySlot.get(n);
      const cls = ["slot"];
      if (reveals.has(n)) cls.push("reveal-slot");
      if (e) cls.push("filled", `log-${e.ticket}`);
      if (e?.double) cls.push("double");
      if (e?.voluntary) cls.push("voluntary");
      const label = e
        ? t("log.slot_filled", { n, ticket: t(`ticket.${e.ticket}`), station: e.station ?? "?" })
        : t("log.slot_empty", { n });
      list.append(h("li", { class: cls.join(" "), dataset: { slot: n, station: e?.station ?? "" },
        title: reveals.has(n) ? `${label} — ${t("log.reveal")}` : label },
      h("span", { class: "slot-n", text: String(n) }),
      h("span", { class: "slot-st", text: e ? (e.station == null ? "?" : String(e.station)) : "" }),
      e ? h("span", { class: "slot-tk", text: t(`ticket_short.${e.ticket}`) }) : null));
    }
  }

  renderHistory(view) {
    const list = $(this.root, "#history");
    list.replaceChildren();
    const over = !!view.outcome;
    view.history.forEach((m, i) => {
      const item = h("li", { dataset: { step: i + 1 } },
        h("span", { class: "h-round", text: `${m.round}.` }),
        h("span", { class: `swatch swatch-${m.piece}` }),
        h("span", { class: "h-piece", text: m.piece }),
        h("code", { class: "h-move", text: m.move }));
      if (over) {
        item.tabIndex = 0;
        item.setAttribute("role", "button");
        item.addEventListener("click", () => this.setReplay(i + 1));
        item.addEventListener("keydown", (e) => { if (e.key === "Enter") this.setReplay(i + 1); });
      }
      if (this.replayStep === i + 1) item.classList.add("current");
      list.append(item);
    });
    if (!over) list.scrollTop = list.scrollHeight;
  }

  renderCommitments() {
    const list = $(this.root, "#commitments");
    list.replaceChildren();
    const slots = [...this.seen.keys()].sort((a, b) => a - b);
    for (const slot of slots) {
      const hash = this.seen.get(slot);
      const label = slot === 0 ? t("verify.start") : String(slot); // slot 0: Mr X's start
      list.append(h("li", { dataset: { slot } }, h("span", { text: `${label}: ` }),
        h("code", { title: hash, text: `${hash.slice(0, 16)}…` })));
    }
    $(this.root, "#commit-count").textContent = String(slots.length);
    const out = $(this.root, "#verify");
    if (this.verified) {
      out.dataset.result = this.verified.ok ? "honest" : "dishonest";
      out.textContent = this.verified.ok
        ? tp("verify.honest", this.verified.checked)
        : t("verify.warning", { slots: [...new Set(this.verified.problems.map((p) => p.slot))].join(", ") });
    } else if (this.changed.size) { // a seal changed: no need to wait for the end
      out.dataset.result = "dishonest";
      out.textContent = t("verify.warning", { slots: [...this.changed].sort((a, b) => a - b).join(", ") });
    } else {
      out.dataset.result = "pending";
      out.textContent = t("verify.pending");
    }
  }

  async verify() {
    const msg = this.msg;
    const commitments = [...this.seen.entries()].map(([slot, hash]) => ({ slot, hash }));
    this.verified = await verifyOpenings(this.gameId, commitments, msg.openings, msg.view.log);
    for (const slot of this.changed) this.verified.problems.push({ slot, why: "changed" });
    this.verified.ok = this.verified.ok && this.changed.size === 0;
    try { // the journey itself, on the board the page draws (verify.js)
      const board = await getBoard((msg.view.rules && msg.view.rules.board) || "classic");
      const journey = verifyJourney(board, msg.view, msg.openings);
      this.verified.problems.push(...journey.problems);
      this.verified.ok = this.verified.ok && journey.ok;
    } catch (_) { /* the board could not be loaded: the hashes are still checked */ }
    this.renderCommitments();
  }

  renderOutcome(view) {
    const box = $(this.root, "#outcome");
    const replay = $(this.root, "#replay");
    const out = view.outcome;
    box.hidden = !out;
    replay.hidden = !out;
    if (!out) return;
    box.dataset.winner = out.winner;
    $(box, "#outcome-title").textContent = t(`outcome.${out.winner}`);
    $(box, "#outcome-reason").textContent = t(`outcome.reason.${out.reason}`, {
      piece: out.piece ? pieceName(out.piece) : "", round: out.round,
    });
    bindRecordDownload($(box, "#download-text"), this.gameId, this.token, "text");
    bindRecordDownload($(box, "#download-json"), this.gameId, this.token, "json");
    const range = $(replay, "#replay-range");
    range.max = String(view.history.length);
    range.value = String(this.currentStep());
    $(replay, "#replay-pos").textContent = t("replay.position", { step: this.currentStep(), total: view.history.length });
  }

  renderAnalysisCard(view) {
    const card = $(this.root, "#analysis");
    const data = view.outcome ? this.msg.analysis : null;
    card.hidden = !data;
    if (!data) return;
    renderAnalysis($(card, "#analysis-body"), data, (round) => {
      // the position after that round's last move
      let step = 0;
      view.history.forEach((m, i) => { if (m.round <= round) step = i + 1; });
      this.setReplay(step);
    });
    if (!this.review) {
      this.review = new ComputerAnalysis($(card, "#review"), { gameId: this.gameId, token: this.token,
        onPly: (step) => this.setReplay(step) });
      this.review.start();
    }
  }

  currentStep() {
    return this.replayStep ?? this.msg.view.history.length;
  }

  setReplay(step) {
    if (!this.msg?.view.outcome) return;
    const total = this.msg.view.history.length;
    this.replayStep = step === null || step >= total ? null : Math.max(0, step);
    const shown = this.replayStep ?? total;
    const hash = location.hash.replace(/&ply=\d+/, "");
    history.replaceState(null, "", `${location.pathname}${hash}&ply=${shown}`);
    this.renderOutcome(this.msg.view);
    this.renderHistory(this.msg.view);
    this.renderPlayers(this.msg.view);
    this.renderBoard();
  }

  // ---- the board --------------------------------------------------------------------------
  renderBoard() {
    const view = this.msg.view;
    this.board.setArrows([]);
    if (view.outcome && this.replayStep !== null) {
      this.renderReplayBoard(view, this.replayStep);
      return;
    }
    const stations = { ...view.stations };
    if (view.outcome || view.side === "mr_x") stations.X = view.mr_x_station;
    const ghost = view.side !== "mr_x" && !view.outcome ? view.mr_x_station : null;
    const active = view.pieces_to_move.length === 1 ? view.pieces_to_move[0] : this.picker?.piece;
    let lastSeen = null;
    if (!view.outcome && view.side !== "mr_x") {
      const seen = [...view.log].reverse().find((e) => e.reveal && e.station != null);
      if (seen) {
        lastSeen = { station: seen.station, slot: seen.slot, round: seen.round,
          tickets: view.log.filter((e) => e.slot > seen.slot).map((e) => e.ticket) };
      }
    }
    const own = this.pieces.find((p) => p === view.to_move) ?? this.pieces[0];
    this.board.home = own === "X" ? view.mr_x_station : view.stations[own];
    this.board.setTrails(walk(view).trails);
    this.board.setPieces(stations, { active, ghost, lastSeen, moves: this.animMoves });
    if (this.picker?.freeOrder) {
      for (const p of this.picker.pieces()) {
        this.board.piecesLayer.querySelector(`[data-piece="${p}"]`)?.classList.add("selectable");
      }
    }
    if (view.outcome) {
      const path = [view.start.X, ...view.log.map((e) => e.station)];
      this.board.setPath(path, ["", ...view.log.map((e) => String(e.slot))]);
    } else if (view.side === "mr_x") {
      const path = [view.start.X, ...view.log.map((e) => e.station)];
      this.board.setPath(path, ["", ...view.log.map((e) => String(e.slot))]);
    } else {
      this.board.setPath([]);
    }
    this.renderShading();
    this.updateTargets();
  }

  /** Positions after `step` moves of the history (the whole game is known at the end). */
  renderReplayBoard(view, step) {
    const { pos, trails, slots } = walk(view, step);
    this.board.setTrails(trails);
    this.board.setPieces(pos, {});
    const log = view.log.slice(0, slots);
    this.board.setPath([view.start.X, ...log.map((e) => e.station)], ["", ...log.map((e) => String(e.slot))]);
    this.board.setTargets([]);
    const hist = this.possibleHistory();
    const possible = hist ? (hist.get(slots) ?? null) : null;
    this.board.setShading(possible || null, null);
    this.board.setArrows(this.review ? this.review.arrowsFor(step) : []);
    this.root.dataset.replayStep = String(step);
  }

  /**
   * What the detectives thought possible after each of Mr X's log slots, from the server's
   * `possible_history` ([{slot, round, possible}], sent once the game is over): slot -> stations.
   */
  possibleHistory() {
    const raw = this.msg.possible_history;
    if (!Array.isArray(raw)) return null;
    return new Map(raw.map((entry) => [entry.slot, entry.possible]));
  }

  /** The probability map {station: p} of the `state` message (public facts only). */
  probability() {
    return this.msg.probability ?? null;
  }

  renderShading() {
    if (!this.msg || !this.board) return;
    // Mr X sees what the detectives can know of him, not where he is
    const own = this.msg.view.side === "mr_x" && this.role !== "spectator" && !this.msg.view.outcome;
    $(this.root, "#tools-title").textContent = own ? t("tools.title_mr_x") : t("tools.title");
    $(this.root, "#tools-possible").textContent = own ? t("tools.possible_mr_x") : t("tools.possible");
    if (this.msg.view.outcome && this.replayStep !== null) return;
    const prob = this.probability();
    const heatBox = $(this.root, "#tg-heat");
    heatBox.disabled = !prob;
    $(this.root, "#heat-missing").hidden = !!prob;
    const showPossible = $(this.root, "#tg-possible").checked;
    const showHeat = heatBox.checked && prob;
    if (this.msg.view.outcome) {
      this.board.setShading(showPossible ? this.msg.view.possible : null, null);
      return;
    }
    this.board.setShading(showPossible ? this.msg.view.possible : null, showHeat ? prob : null);
    $(this.root, "#possible-count").textContent = String(this.msg.view.possible.length);
  }

  // ---- choosing a move -----------------------------------------------------------------------
  renderPlay() {
    const view = this.msg.view;
    const card = $(this.root, "#play");
    const mine = this.isMyTurn(view) && !this.pending && !this.covered;
    const old = this.picker;
    this.picker = mine ? new MovePicker(view.legal_moves, this.movablePieces(view), view.to_move) : null;
    if (this.picker && old && old.piece && this.picker.pieces().includes(old.piece)) this.picker.piece = old.piece;
    card.hidden = this.role === "spectator" || !!view.outcome;
    card.classList.toggle("active", !!this.picker);
    this.closePopup();
    this.updatePlayControls();
  }

  updatePlayControls() {
    const r = this.root;
    const p = this.picker;
    const active = !!p && p.moves.length > 0;
    const setToggle = (id, can, on) => {
      const box = $(r, id);
      box.checked = on;
      box.disabled = !can;
      box.closest("label").hidden = !can;
    };
    setToggle("#tg-black", active && p.canBlack, !!p?.black);
    setToggle("#tg-double", active && p.canDouble, !!p?.double);
    setToggle("#tg-reveal", active && p.canReveal, !!p?.reveal);
    const picker = $(r, "#piece-picker");
    picker.replaceChildren();
    if (active && p.freeOrder) {
      picker.append(h("span", { class: "label", text: t("play.choose_piece") }));
      for (const piece of p.pieces()) {
        picker.append(h("button", {
          type: "button", class: `piece-btn${piece === p.piece ? " selected" : ""}`,
          "aria-pressed": piece === p.piece ? "true" : "false", dataset: { piece },
          onclick: () => this.selectPiece(piece),
        }, h("span", { class: `swatch swatch-${piece}` }), pieceName(piece)));
      }
    }
    $(r, "#btn-pass").hidden = !(active && p.passMove);
    const takes = $(r, "#take-buttons");
    takes.replaceChildren();
    if (active) {
      for (const m of p.takeMoves) {
        takes.append(h("button", { type: "button", class: `btn take ticket-${m.take.ticket}`,
          dataset: { move: m.text },
          text: t("play.take", { ticket: t(`ticket.${m.take.ticket}`), piece: pieceName(m.take.from) }),
          onclick: () => this.play(m.text) }));
      }
    }
    $(r, "#btn-cancel").hidden = !(active && p.first);
    let hint = "";
    if (this.pending) hint = t("play.sending");
    else if (active) {
      if (p.takeMoves.length) hint = t("play.hint_take");
      else if (p.first) hint = t("play.hint_second", { station: p.first.to });
      else if (p.destinations().length) hint = p.double ? t("play.hint_first") : t("play.hint_click");
      else if (p.passMove) hint = t("play.hint_pass");
    }
    $(r, "#play-hint").textContent = hint;
    this.renderRevealNote();
    $(r, "#move-input").disabled = !active;
    $(r, "#move-submit").disabled = !active;
    this.updateTargets();
  }

  /**
   * Mr X's warnings: before a move that fills a reveal slot, "your next move will be shown to
   * the detectives" (or the second step of a double move); after it, until his next move,
   * "the detectives now see you at N".
   */
  renderRevealNote() {
    const view = this.msg.view;
    const note = $(this.root, "#reveal-note");
    let text = "";
    let kind = "";
    if (view.side === "mr_x" && this.role !== "spectator" && !view.outcome) {
      const reveals = new Set(view.rules.reveal_slots);
      const last = view.log.at(-1);
      const next = (last?.slot ?? 0) + 1;
      const p = this.picker;
      if (p && p.moves.length && reveals.has(next)) {
        text = t("play.reveal_next", { slot: next });
        kind = "before";
      } else if (p && p.double && reveals.has(next + 1)) {
        text = t("play.reveal_second", { slot: next + 1 });
        kind = "before";
      } else if (last && (last.reveal || reveals.has(last.slot)) && view.mr_x_station != null) {
        text = t("play.revealed_you", { station: last.station ?? view.mr_x_station });
        kind = "shown";
      }
    }
    note.textContent = text;
    note.dataset.kind = kind;
    note.hidden = !text;
  }

  updateTargets() {
    if (!this.board) return;
    const p = this.picker;
    if (!p || this.pending || (this.msg.view.outcome && this.replayStep !== null)) {
      this.board.setTargets([]);
      this.board.setChosen(null);
      return;
    }
    this.board.setTargets(p.destinations(), p.stage === 1 ? "second" : "move", p.options());
    this.board.setChosen(p.first ? p.first.to : null);
  }

  toggle(which, on) {
    if (!this.picker) return;
    this.picker[which] = on;
    if (which === "double") this.picker.first = null;
    this.closePopup();
    this.updatePlayControls();
  }

  selectPiece(piece) {
    if (this.picker?.selectPiece(piece)) {
      this.closePopup();
      this.updatePlayControls();
      this.renderBoard();
    }
  }

  cancelStep() {
    if (this.picker?.first) {
      this.picker.back();
      this.updatePlayControls();
    }
    this.closePopup();
  }

  onStation(station) {
    if (!this.msg || this.covered) return;
    const why = this.whyNot(station);
    if (why) {
      this.board.showNote(station, why, "why");
      const node = this.board.stationNodes.get(station);
      node?.classList.add("refused");
      setTimeout(() => node?.classList.remove("refused"), 700);
      return;
    }
    this.board.hideNote();
    this.handleChoice(station, this.picker.choose(station));
  }

  /** Why `station` cannot be played now (a sentence), or null when it can. */
  whyNot(station) {
    const view = this.msg.view;
    if (view.outcome) return t("why.over");
    if (this.role === "spectator") return t("why.spectator");
    if (this.pending) return t("play.sending");
    const p = this.picker;
    if (!p) {
      const who = view.pieces_to_move.map(pieceName).join(", ");
      return t("why.not_your_turn", { pieces: who });
    }
    if (p.takeMoves.length) return t("play.hint_take");
    if (p.destinations().includes(station)) return null;
    const piece = p.piece ?? view.to_move;
    const from = p.first ? p.first.to : piece === "X" ? view.mr_x_station : view.stations[piece];
    if (station === from) return t("why.here", { piece: pieceName(piece) });
    const stations = { ...view.stations };
    if (view.side === "mr_x" && view.mr_x_station != null) stations.X = view.mr_x_station;
    const standing = Object.entries(stations).find(([q, s]) => s === station && q !== piece);
    if (standing && (standing[0] !== "X" || piece === "X")) return t("why.occupied", { piece: pieceName(standing[0]) });
    if (p.passMove && !p.destinations().length) return t("play.hint_pass");
    const key = from < station ? `${from}-${station}` : `${station}-${from}`;
    const kinds = this.board.pairs.get(key) || [];
    if (!kinds.length) return t("why.no_line", { from, to: station });
    const tickets = view.tickets[piece] || {};
    if (piece !== "X") {
      if (kinds.every((k) => k === "ferry")) return t("why.ferry_mr_x");
      const empty = kinds.filter((k) => k !== "ferry" && tickets[k] === 0);
      if (empty.length) return t("why.no_ticket", { ticket: t(`ticket.${empty[0]}`) });
    } else {
      if (p.black && !tickets.black) return t("why.no_ticket", { ticket: t("ticket.black") });
      if (kinds.every((k) => k === "ferry") && !tickets.black) return t("why.no_ticket", { ticket: t("ticket.black") });
      const empty = kinds.filter((k) => k !== "ferry" && tickets[k] === 0);
      if (empty.length === kinds.length) return t("why.no_ticket", { ticket: t(`ticket.${empty[0]}`) });
      if (p.double && !p.first) return t("why.double_first");
    }
    return t("why.not_legal", { station });
  }

  handleChoice(station, res) {
    if (!res) return;
    if (res.tickets) this.openPopup(station, res.tickets);
    else if (res.next) {
      this.closePopup();
      this.updatePlayControls();
      const targets = this.picker.destinations();
      if (document.activeElement?.closest?.(".station") && targets.length) this.board.focusStation(targets[0]);
    } else if (res.move) this.play(res.move);
  }

  openPopup(station, tickets) {
    const pop = $(this.root, "#popup");
    pop.replaceChildren(h("div", { class: "popup-title", id: "popup-title", text: t("play.choose_ticket", { station }) }));
    const returnTo = document.activeElement;
    for (const ticket of tickets) {
      pop.append(h("button", {
        type: "button", class: `btn ticket-btn ticket-${ticket}`, dataset: { ticket },
        text: t(`ticket.${ticket}`),
        onclick: () => {
          this.closePopup();
          this.handleChoice(station, this.picker.choose(station, ticket));
        },
      }));
    }
    pop.append(h("button", { type: "button", class: "btn btn-plain", text: t("play.cancel"),
      onclick: () => { this.closePopup(); returnTo?.focus?.(); } }));
    const area = $(this.root, ".board-area").getBoundingClientRect();
    const pt = this.board.screenPoint(station);
    pop.style.left = `${Math.max(4, Math.min(area.width - 180, pt.x - area.left + 16))}px`;
    pop.style.top = `${Math.max(4, Math.min(area.height - 200, pt.y - area.top + 16))}px`;
    pop.hidden = false;
    pop.dataset.station = station;
    pop.querySelector("button").focus();
  }

  closePopup() {
    const pop = $(this.root, "#popup");
    if (!pop.hidden) {
      pop.hidden = true;
      pop.replaceChildren();
    }
  }

  play(text) {
    if (!this.socket.ready) {
      this.toast(t("conn.closed"), "error");
      return;
    }
    const id = this.socket.send({ type: "move", move: text });
    this.pending = { id, text };
    this.wantFocus = true;
    this.board?.hideNote();
    this.board?.svg.focus({ preventScroll: true });
    this.closePopup();
    $(this.root, "#move-input").value = "";
    this.hideSuggestions();
    this.updatePlayControls();
  }

  // ---- typing a move (keyboard play) ---------------------------------------------------------
  suggestions() {
    if (!this.picker) return [];
    const typed = $(this.root, "#move-input").value.trim().toUpperCase();
    const all = this.picker.allTexts();
    if (!typed) return all.slice(0, 12);
    const starts = all.filter((m) => m.toUpperCase().startsWith(typed));
    const has = all.filter((m) => !m.toUpperCase().startsWith(typed) && m.toUpperCase().includes(typed));
    return [...starts, ...has].slice(0, 12);
  }

  renderSuggestions() {
    const list = $(this.root, "#move-list");
    const input = $(this.root, "#move-input");
    const items = this.suggestions();
    list.replaceChildren();
    this.suggestIndex = -1;
    items.forEach((m, i) => {
      list.append(h("li", { role: "option", id: `move-opt-${i}`, "aria-selected": "false", dataset: { move: m },
        onmousedown: (e) => { e.preventDefault(); this.play(m); } }, h("code", { text: m })));
    });
    list.hidden = items.length === 0 || document.activeElement !== input;
    input.setAttribute("aria-expanded", list.hidden ? "false" : "true");
  }

  hideSuggestions() {
    const list = $(this.root, "#move-list");
    list.hidden = true;
    $(this.root, "#move-input").setAttribute("aria-expanded", "false");
  }

  onInputKey(e) {
    const list = $(this.root, "#move-list");
    const items = [...list.children];
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      if (!items.length) return;
      e.preventDefault();
      list.hidden = false;
      const n = items.length;
      this.suggestIndex = e.key === "ArrowDown" ? (this.suggestIndex + 1) % n : (this.suggestIndex - 1 + n) % n;
      items.forEach((li, i) => li.setAttribute("aria-selected", i === this.suggestIndex ? "true" : "false"));
      $(this.root, "#move-input").setAttribute("aria-activedescendant", items[this.suggestIndex].id);
    } else if (e.key === "Enter") {
      e.preventDefault();
      if (this.suggestIndex >= 0 && items[this.suggestIndex]) this.play(items[this.suggestIndex].dataset.move);
      else this.submitTyped();
    } else if (e.key === "Escape") {
      this.hideSuggestions();
    }
  }

  submitTyped() {
    const input = $(this.root, "#move-input");
    const typed = input.value.trim().replace(/\s+/g, "").toUpperCase();
    if (!typed || !this.picker) return;
    const all = this.picker.allTexts();
    const exact = all.find((m) => m.toUpperCase() === typed);
    if (exact) {
      this.play(exact);
      return;
    }
    const starts = all.filter((m) => m.toUpperCase().startsWith(typed));
    if (starts.length === 1) this.play(starts[0]);
    else this.toast(t("play.not_legal", { move: input.value.trim() }), "error");
  }

  // ---- messages ------------------------------------------------------------------------------
  toast(text, kind = "info") {
    const box = $(this.root, "#toast");
    const item = h("div", { class: `toast-item ${kind}`, text });
    box.append(item);
    setTimeout(() => item.remove(), 6000);
  }
}

/** Show the game page for `gameId` (the token comes from the fragment or storage). */
export function showGame(app, gameId) {
  const token = tokenFor(gameId);
  if (!token) {
    const tpl = document.getElementById("tpl-no-token").content.firstElementChild.cloneNode(true);
    app.replaceChildren(tpl);
    applyI18n(tpl);
    return null;
  }
  return new GamePage(app, gameId, token);
}
