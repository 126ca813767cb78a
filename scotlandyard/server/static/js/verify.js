// Verifiable hiding: Mr X's log commitments are sha256("{game_id}:{slot}:{station}:{salt}")
// (docs/protocol.md). At the end the page recomputes each one from the openings.

/** SHA-256 of a UTF-8 string as lowercase hex, by WebCrypto; a plain-JS fallback where
 * WebCrypto is missing (pages served over plain http from another machine are not a secure
 * context, and crypto.subtle is undefined there). */
export async function sha256Hex(text) {
  const bytes = new TextEncoder().encode(text);
  if (globalThis.crypto && crypto.subtle) {
    const digest = await crypto.subtle.digest("SHA-256", bytes);
    return toHex(new Uint8Array(digest));
  }
  return toHex(sha256Fallback(bytes));
}

function toHex(bytes) {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Check the openings against the commitments seen during the game and the final log; slot 0
 * is Mr X's start and must be among them.
 * Returns {ok, checked, problems: [{slot, why: "hash"|"station"|"missing"}]}.
 */
export async function verifyOpenings(gameId, commitments, openings, log) {
  const problems = [];
  const bySlot = new Map(openings.map((o) => [o.slot, o]));
  const logStation = new Map((log || []).map((e) => [e.slot, e.station]));
  for (const c of commitments) {
    const o = bySlot.get(c.slot);
    if (!o) {
      problems.push({ slot: c.slot, why: "missing" });
      continue;
    }
    const h = await sha256Hex(`${gameId}:${o.slot}:${o.station}:${o.salt}`);
    if (h !== String(c.hash).toLowerCase()) problems.push({ slot: c.slot, why: "hash" });
    else if (logStation.has(o.slot) && logStation.get(o.slot) !== o.station) {
      problems.push({ slot: c.slot, why: "station" });
    }
  }
  for (const e of log || []) {
    if (!commitments.some((c) => c.slot === e.slot)) problems.push({ slot: e.slot, why: "missing" });
  }
  // slot 0: Mr X's start, sealed when the game was created (a server that never sealed it
  // could pick it after the game)
  if (!commitments.some((c) => c.slot === 0)) problems.push({ slot: 0, why: "missing" });
  return { ok: problems.length === 0, checked: commitments.length, problems };
}

/**
 * The commitments first seen for a game, kept in local storage so that a reload (or a server
 * that sends other hashes later) cannot swap them: returns a Map slot -> hash where the stored
 * first-seen hash wins, and saves any new slots.
 */
export function firstSeen(gameId, commitments, storage = globalThis.localStorage) {
  const key = `sy.seals.${gameId}`;
  let kept = {};
  try { kept = JSON.parse((storage && storage.getItem(key)) || "{}") || {}; } catch (_) { kept = {}; }
  let changed = false;
  for (const c of commitments || []) {
    if (!(c.slot in kept)) { kept[c.slot] = c.hash; changed = true; }
  }
  if (changed && storage) {
    try { storage.setItem(key, JSON.stringify(kept)); } catch (_) { /* storage full or off */ }
  }
  return new Map(Object.entries(kept).map(([slot, hash]) => [Number(slot), hash]));
}

/**
 * The file of the seals seen so far (slot -> first-seen hash) that `scotlandyard verify
 * STATE.json --seen SEEN.json` checks the final openings against (docs/webapp.md, "Seals"):
 * `{"format": "scotlandyard-seals", "game_id", "saved_at", "seals": {"0": hash, ...}}`.
 */
export function sealsFile(gameId, seen) {
  const seals = {};
  for (const [slot, hash] of [...seen.entries()].sort((a, b) => a[0] - b[0])) seals[String(slot)] = hash;
  return { format: "scotlandyard-seals", game_id: gameId, saved_at: new Date().toISOString(), seals };
}

/**
 * After a takeback: forget the first-seen commitments (in `seen` and in local storage) of the
 * log slots beyond the new log `log` only: those moves were undone and their slots get new
 * seals when filled again. Every slot still in the log keeps the commitment first seen, so a
 * takeback notice (or a fake one from a cheating server) cannot reset it: a different hash
 * for it later is a changed seal (`changedSeals`). Returns the slots forgotten.
 */
export function forgetUndone(gameId, log, seen, storage = globalThis.localStorage) {
  const last = Math.max(0, ...(log || []).map((e) => Number(e.slot)));
  const dropped = new Set();
  for (const slot of [...seen.keys()]) if (slot > last) { seen.delete(slot); dropped.add(slot); }
  const key = `sy.seals.${gameId}`;
  try {
    const kept = JSON.parse((storage && storage.getItem(key)) || "{}") || {};
    for (const slot of Object.keys(kept)) {
      if (Number(slot) > last) { delete kept[slot]; dropped.add(Number(slot)); }
    }
    if (storage) storage.setItem(key, JSON.stringify(kept));
  } catch (_) { /* storage off: nothing kept */ }
  return [...dropped].sort((a, b) => a - b);
}

/**
 * The slots whose commitment in `commitments` differs from the one first seen (`seen`, slot ->
 * hash): a seal never changes once published, so each of these fails the check ("Mr X's log
 * was NOT honest"), whatever the openings say at the end.
 */
export function changedSeals(seen, commitments) {
  return (commitments || [])
    .filter((c) => seen.has(c.slot)
      && String(seen.get(c.slot)).toLowerCase() !== String(c.hash).toLowerCase())
    .map((c) => c.slot);
}

/**
 * Check Mr X's opened journey against the board, from the openings and the public log alone:
 * every step along a line of the ticket shown (black: any line, ferries included), never onto
 * a detective, the first step from the start shown at the end (before it is shown: from a
 * start card he could have drawn), which must be the one opened for slot 0, and never with a ticket he
 * did not hold at that moment: his tickets are counted as the rules give them (the rules'
 * `mr_x_tickets`, `black_tickets`, `double_moves`; taxi, bus and underground unlimited where
 * `mr_x_unlimited`; the tickets detectives spend handed to him where `ticket_handover`; a
 * ticket he takes from a detective), as `scotlandyard verify` does by replaying the game.
 * `board` is the /api/board payload the page draws with; `view` the final view (rules, start,
 * history, log). Returns {ok, problems: [{slot, why: "journey", text}]}.
 */
export function verifyJourney(board, view, openings) {
  const problems = [];
  const lines = new Map();
  for (const [label, list] of Object.entries(board.edges)) {
    const set = new Set();
    for (const [a, b] of list) { set.add(`${a}-${b}`); set.add(`${b}-${a}`); }
    lines.set(label, set);
  }
  const linked = (a, b, ticket) => (ticket === "black"
    ? [...lines.values()].some((set) => set.has(`${a}-${b}`))
    : Boolean(lines.get(ticket) && lines.get(ticket).has(`${a}-${b}`)));
  const opened = new Map((openings || []).map((o) => [o.slot, o.station]));
  const ticketOf = new Map((view.log || []).map((e) => [e.slot, e.ticket]));
  const pos = {};
  for (const [p, st] of Object.entries(view.start || {})) if (p !== "X") pos[p] = st;
  const rules = view.rules || {};
  const deck = rules.shared_start_deck ? rules.start_deck_detectives : rules.start_deck_mr_x;
  const all = Array.from({ length: board.stations }, (_, i) => i + 1);
  const shownStart = (view.start || {}).X; // Mr X's start, shown to everyone once the game is over
  let from = null;
  let slot = 0;
  const fail = (s, text) => problems.push({ slot: s, why: "journey", text });
  const sealedStart = opened.get(0); // slot 0: his start, sealed before the first move
  if (sealedStart !== undefined && shownStart !== undefined && sealedStart !== shownStart) {
    fail(0, `Mr X's start as shown, ${shownStart}, is not the one sealed at the start, ${sealedStart}`);
  }
  const held = mrXTickets(rules);
  const spend = (s, ticket) => { // one of Mr X's tickets used at slot s
    if (!(ticket in held)) return; // taxi, bus, underground without limit
    held[ticket] -= 1;
    if (held[ticket] < 0) fail(s, `Mr X had no ${ticket} ticket left`);
  };
  for (const h of view.history || []) {
    const text = String(h.move);
    if (h.piece !== "X") { // "D2:T92" (or "T92"), "D2:pass"
      const step = /^([TBUK])(\d+)/i.exec(text.split(":").pop());
      if (!step) continue; // a pass: no station, no ticket
      pos[h.piece] = Number(step[2]);
      const used = LETTERS[step[1].toUpperCase()];
      if (rules.ticket_handover && handsOver(h.piece, rules) && used in held) {
        held[used] += 1; // a detective's spent ticket goes to Mr X
      }
      continue;
    }
    const take = text.match(/^take:[^:]+:([A-Z])/i);
    if (take) { // he takes a ticket from a detective: no step, no log slot
      const got = LETTERS[take[1].toUpperCase()];
      if (got && got in held) held[got] += 1;
      continue;
    }
    const parts = text.split("+").length;
    if (parts > 1) spend(slot + 1, "double");
    for (let i = 0; i < parts; i++) {
      slot += 1;
      const to = opened.get(slot);
      const ticket = ticketOf.get(slot);
      if (to === undefined || ticket === undefined) {
        fail(slot, "no opening or ticket");
        return { ok: false, problems };
      }
      spend(slot, ticket);
      const taken = Object.values(pos);
      if (from === null && Number.isInteger(shownStart)) { // the start shown at the end
        if (!linked(shownStart, to, ticket)) {
          fail(slot, `Mr X's start as shown, ${shownStart}, to ${to} is not a ${ticket} line`);
        }
      } else if (from === null) {
        const cards = ((deck && deck.length) ? deck : all).filter((c) => !taken.includes(c));
        if (!cards.some((c) => linked(c, to, ticket))) fail(slot, `no start card reaches ${to} by ${ticket}`);
      } else if (!linked(from, to, ticket)) {
        fail(slot, `${from} to ${to} is not a ${ticket} line`);
      }
      if (taken.includes(to)) fail(slot, `${to} is a detective's station`);
      from = to;
    }
  }
  return { ok: problems.length === 0, problems };
}

const LETTERS = { T: "taxi", B: "bus", U: "underground", K: "black" };

/** Mr X's tickets at the start, by name, as the rules give them; a kind he may use without
 * limit (taxi, bus, underground where `mr_x_unlimited`) is left out. */
function mrXTickets(rules) {
  const held = { black: Number(rules.black_tickets) || 0, double: Number(rules.double_moves) || 0 };
  if (!rules.mr_x_unlimited) {
    const [taxi, bus, underground] = rules.mr_x_tickets || [0, 0, 0];
    Object.assign(held, { taxi: Number(taxi) || 0, bus: Number(bus) || 0,
      underground: Number(underground) || 0 });
  }
  return held;
}

/** Whether a piece's spent tickets go to Mr X: the detectives D1..Dn (police move free). */
function handsOver(piece, rules) {
  const m = /^D(\d+)$/.exec(String(piece));
  return Boolean(m) && Number(m[1]) <= Number(rules.detectives || 0);
}

// FIPS 180-4 SHA-256, used only where WebCrypto is unavailable.
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** SHA-256 of bytes (Uint8Array) -> Uint8Array(32). Exported for the browser test. */
export function sha256Fallback(bytes) {
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const bitLen = bytes.length * 8;
  const padded = new Uint8Array(((bytes.length + 9 + 63) >> 6) << 6);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const dv = new DataView(padded.buffer);
  dv.setUint32(padded.length - 8, Math.floor(bitLen / 2 ** 32));
  dv.setUint32(padded.length - 4, bitLen >>> 0);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = dv.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let i = 0; i < 64; i++) {
      const S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + K[i] + w[i]) >>> 0;
      const S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0;
      d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
  const out = new Uint8Array(32);
  const odv = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) odv.setUint32(i * 4, h[i]);
  return out;
}
