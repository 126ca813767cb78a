// The end screen's explanation: a few sentences on how the game ended, from the final view
// (every fact in it is public once the game is over).

import { t } from "./i18n.js";
import { tp } from "./plural.js";
import { proseMove } from "./notation.js";
import { pieceName } from "./board.js";

function ticketsLeft(tickets) {
  const parts = [];
  for (const [kind, key] of [["taxi", "ticket.taxi"], ["bus", "ticket.bus"], ["underground", "ticket.underground"],
    ["black", "ticket.black"], ["double", "ticket.double"]]) {
    const n = tickets?.[kind];
    if (n !== null && n !== undefined && n > 0) parts.push(`${n} × ${t(key)}`);
  }
  return parts.length ? parts.join(", ") : t("end.none");
}

/** Sentences explaining `outcome` (the view's, or a loss on time) for the final `view`. */
export function explain(view, outcome) {
  const out = [];
  const last = view.history[view.history.length - 1];
  const xStation = view.mr_x_station ?? (view.log.length ? view.log[view.log.length - 1].station : null);
  if (outcome.reason === "caught") {
    const move = [...view.history].reverse().find((m) => m.piece === outcome.piece);
    out.push(t("end.caught", { piece: pieceName(outcome.piece), station: xStation ?? "?", round: outcome.round,
      move: move ? proseMove(move.move) : "" }));
  } else if (outcome.reason === "cornered") {
    out.push(t("end.cornered", { station: xStation ?? "?", round: outcome.round }));
  } else if (outcome.reason === "detectives_stuck") {
    out.push(t("end.stuck", { round: outcome.round }));
  } else if (outcome.reason === "survived") {
    out.push(t("end.survived", { rounds: view.rules.last_round, station: xStation ?? "?" }));
  } // a loss on time: the line above the explanation already says who ran out of time
  const reveals = view.log.filter((e) => e.reveal).length;
  out.push(t("end.log", { slots: tp("end.slots", view.log.length), reveals: tp("end.reveals", reveals) }));
  if (last) out.push(t("end.last_move", { piece: pieceName(last.piece), move: proseMove(last.move) }));
  out.push(t("end.tickets_x", { tickets: ticketsLeft(view.tickets.X) }));
  const hunters = Object.keys(view.stations);
  const total = {};
  for (const p of hunters) for (const [k, n] of Object.entries(view.tickets[p] || {})) if (n) total[k] = (total[k] || 0) + n;
  out.push(t("end.tickets_detectives", { tickets: ticketsLeft(total) }));
  return out;
}
