// Reading move notation for display and for picking among the legal moves the server sent.
// The rules live on the server: the page never decides what is legal, it only groups the
// server's legal moves (view.legal_moves) by piece, destination and ticket.

import { t } from "./i18n.js";

export const TICKET_LETTERS = { T: "taxi", B: "bus", U: "underground", K: "black" };
export const LETTER_OF = { taxi: "T", bus: "B", underground: "U", black: "K", double: "2" };

/**
 * A move written for prose in the page's language: the ticket letters of its chips (Russian
 * "А82" for B82, Italian "M13+N74" for U13+K74); pieces, stations and "pass" stay.
 */
export function proseMove(text) {
  return String(text).replace(/(^|[+:\s])([TBUK])(\d+|\?)/g,
    (_, pre, letter, to) => `${pre}${t(`ticket_short.${TICKET_LETTERS[letter]}`)}${to}`);
}

/**
 * Parse one move in notation ("T92", "B58+K74", "D2:T92", "T92!", "take:D1:B", "pass",
 * hidden forms "T?", "B58+K?").
 * Returns {text, piece, pass, take: {from, ticket}|null, reveal, steps: [{ticket, to}]}
 * where ticket is a name ("taxi"...) and `to` a number or null (hidden).
 */
export function parseMove(text) {
  const raw = String(text).trim();
  const out = { text: raw, piece: null, pass: false, take: null, reveal: false, steps: [] };
  let body = raw;
  const pm = /^([XDP]\d?):/i.exec(body);
  if (pm && !/^take:/i.test(body)) {
    out.piece = pm[1].toUpperCase();
    body = body.slice(pm[0].length);
  }
  if (body.toLowerCase() === "pass") {
    out.pass = true;
    return out;
  }
  const tm = /^take:([A-Z]\d):([TBU])$/i.exec(body);
  if (tm) {
    out.take = { from: tm[1].toUpperCase(), ticket: TICKET_LETTERS[tm[2].toUpperCase()] };
    return out;
  }
  if (body.endsWith("!")) {
    out.reveal = true;
    body = body.slice(0, -1);
  }
  for (const part of body.split("+")) {
    const sm = /^([TBUK])(\d+|\?)$/i.exec(part.trim());
    if (!sm) throw new Error(`cannot read move ${raw}`);
    out.steps.push({
      ticket: TICKET_LETTERS[sm[1].toUpperCase()],
      to: sm[2] === "?" ? null : Number(sm[2]),
    });
  }
  return out;
}

/** The station a move ends on (null for a pass, a take or a hidden step). */
export function destination(move) {
  return move.steps.length ? move.steps[move.steps.length - 1].to : null;
}

/**
 * Choosing a move among the legal ones by clicks: piece (free order), toggles (black,
 * double, reveal), then a station (and its second step for a double move), then a ticket
 * where several fit.
 */
export class MovePicker {
  /**
   * `legal`: notation strings from view.legal_moves; `mine`: pieces this player may move now;
   * `toMove`: the piece to move (a move without a piece prefix is its move).
   */
  constructor(legal, mine, toMove = null) {
    const own = new Set(mine);
    this.moves = legal.map(parseMove).filter((m) => own.has(m.piece ?? toMove));
    this.piece = null;
    this.black = false;
    this.double = false;
    this.reveal = false;
    this.first = null; // {ticket, to} of a double move's first step
    const pieces = this.pieces();
    if (pieces.length) this.piece = pieces[0];
  }

  /** Pieces with moves to choose from (only in free order, else []). */
  pieces() {
    const seen = [];
    for (const m of this.moves) if (m.piece && !seen.includes(m.piece)) seen.push(m.piece);
    return seen;
  }

  get freeOrder() {
    return this.moves.some((m) => m.piece !== null);
  }

  selectPiece(piece) {
    if (this.pieces().includes(piece)) {
      this.piece = piece;
      this.first = null;
      return true;
    }
    return false;
  }

  /** Moves of the selected piece (all moves in fixed order). */
  ofPiece() {
    return this.moves.filter((m) => m.piece === null || m.piece === this.piece);
  }

  get canBlack() { return this.ofPiece().some((m) => m.steps.some((s) => s.ticket === "black")); }
  get canDouble() { return this.ofPiece().some((m) => m.steps.length === 2); }
  get canReveal() { return this.ofPiece().some((m) => m.reveal); }
  get passMove() { return this.ofPiece().find((m) => m.pass) || null; }
  get takeMoves() { return this.ofPiece().filter((m) => m.take); }

  /** Moves that fit the toggles and the first step chosen so far. */
  candidates() {
    return this.ofPiece().filter((m) => {
      if (!m.steps.length) return false;
      if (this.double !== (m.steps.length === 2)) return false;
      if (this.reveal !== m.reveal) return false;
      if (this.first) {
        const s = m.steps[0];
        if (s.ticket !== this.first.ticket || s.to !== this.first.to) return false;
      }
      return true;
    });
  }

  /** The step being chosen now: 0 (single move or first step) or 1 (second step). */
  get stage() {
    return this.double && this.first ? 1 : 0;
  }

  /**
   * Map station -> tickets usable to get there at this stage, after the black toggle:
   * with "use black" on only black; off, every other ticket, or black where nothing else
   * reaches the station (the ferry).
   */
  options() {
    const byStation = new Map();
    const stage = this.stage;
    for (const m of this.candidates()) {
      const step = m.steps[stage];
      if (!byStation.has(step.to)) byStation.set(step.to, new Set());
      byStation.get(step.to).add(step.ticket);
    }
    const out = new Map();
    for (const [station, tickets] of byStation) {
      let usable;
      if (this.black) usable = [...tickets].filter((x) => x === "black");
      else {
        usable = [...tickets].filter((x) => x !== "black");
        if (!usable.length) usable = [...tickets];
      }
      if (usable.length) out.set(station, sortTickets(usable));
    }
    return new Map([...out.entries()].sort((a, b) => a[0] - b[0]));
  }

  /** Sorted stations that can be clicked now. */
  destinations() {
    return [...this.options().keys()];
  }

  /**
   * Take station (and ticket, when the player chose one). Returns
   * {move: notation} when a move is complete, {tickets: [...]} when a ticket must be chosen,
   * {next: true} when a double move's second step is to be chosen, or null if not allowed.
   */
  choose(station, ticket = null) {
    const opts = this.options().get(station);
    if (!opts) return null;
    if (ticket === null) {
      if (opts.length > 1) return { tickets: opts };
      ticket = opts[0];
    } else if (!opts.includes(ticket)) {
      return null;
    }
    if (this.double && !this.first) {
      this.first = { ticket, to: station };
      return { next: true };
    }
    const found = this.candidates().find((m) => {
      const s = m.steps[this.stage];
      return s.to === station && s.ticket === ticket;
    });
    return found ? { move: found.text } : null;
  }

  /** Undo the first step of a double move (or nothing). */
  back() {
    this.first = null;
  }

  /** Every legal move text of this player (for the notation input's autocomplete). */
  allTexts() {
    return this.moves.map((m) => m.text);
  }
}

const ORDER = ["taxi", "bus", "underground", "black"];
function sortTickets(list) {
  return [...list].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
}
