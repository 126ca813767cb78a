// The game page's table features (docs/protocol.md): clocks, chat, takeback, hand-over of
// absent seats, the end screen's explanation and rematch, "My games" and the "Your move" tab
// title. game.js calls `before(msg)` and `after(msg)` around each server message and asks
// `canHandOver(piece, seat)`; everything else lives here.

import { AbsentPanel } from "./absent.js";
import { ChatPanel } from "./chat.js";
import { ClockPanel } from "./clock.js";
import { OfferPanel } from "./offers.js";
import { explain } from "./explain.js";
import { notifyWanted, rememberGame, setNotify, showTurn } from "./mygames.js";
import { t } from "./i18n.js";
import { h } from "./dom.js";
import { pieceName } from "./board.js";
import { forgetUndone } from "./verify.js";

export class GameExtras {
  constructor(page) {
    this.page = page;
    this.role = null;
    this.absentTimeout = 60;
    const side = page.root.querySelector(".side");
    const status = side.querySelector(".status");
    const holder = document.createElement("div");
    this.clock = new ClockPanel(holder);
    this.tableCard = h("section", { class: "card table-tools", id: "table-tools" },
      h("label", { class: "toggle" }, h("input", { type: "checkbox", id: "tg-notify", checked: notifyWanted(),
        onchange: (e) => setNotify(e.target.checked) }), h("span", { text: t("mygames.notify") })));
    status.after(...holder.children); // the clock (hidden without one) next to whose turn it is
    // who left, what the computer played for you, offers: above the move box (on a phone, at
    // the top of the screen)
    this.alerts = h("div", { class: "table-alerts", id: "table-alerts" });
    this.clock.card.after(this.alerts);
    this.absent = new AbsentPanel(page, this.alerts);
    this.offers = new OfferPanel(page, this.alerts);
    // asked where the answer comes: above the move box (on a phone, in the sheet's move tab)
    page.root.querySelector("#sheet").prepend(h("div", { class: "takeback-box", dataset: { sheet: "move" } },
      h("button", { type: "button", class: "btn btn-small", id: "btn-takeback", text: t("takeback.ask"), hidden: true,
        onclick: () => page.socket.send({ type: "takeback" }) })));
    // right under the move box; its button on the "You play" line of the status
    this.chat = new ChatPanel(page, page.root.querySelector("#play"), page.root.querySelector(".status .role-line"));
    side.append(this.tableCard);
    const outcome = page.root.querySelector("#outcome");
    this.explainBox = h("div", { id: "end-explain", class: "end-explain" });
    this.rematchBox = h("div", { id: "rematch", class: "rematch" },
      h("label", { class: "toggle" }, h("input", { type: "checkbox", id: "rematch-swap" }),
        h("span", { text: t("rematch.swap") })),
      h("button", { type: "button", class: "btn btn-primary", id: "btn-rematch", text: t("rematch.offer"),
        onclick: () => page.socket.send({ type: "rematch", swap: this.rematchBox.querySelector("#rematch-swap").checked }) }),
      h("p", { id: "rematch-status", class: "hint" }));
    outcome.querySelector("#outcome-reason").after(this.explainBox, this.rematchBox);
  }

  /** A seat of another player may be handed to the AI: same team and gone, or away long enough
   * (never one's own seat: the page offers no button for it). */
  canHandOver(piece, seat) {
    if (this.page.pieces.includes(piece) || seat.connected) return false;
    if (this.role === "detectives" && piece !== "X") return true;
    return seat.away !== null && seat.away !== undefined && seat.away >= this.absentTimeout;
  }

  /** Before game.js handles `msg`: a loss on time is shown as the end of the game. */
  before(msg) {
    if (msg.type === "state" && this.takenBack) this.forgetSeals(msg);
    if (msg.type !== "state" || !msg.adjudication || msg.view.outcome) return;
    const adj = msg.adjudication;
    msg.view.outcome = { winner: adj.winner, reason: "time", round: adj.round, piece: null };
    // the game is over: Mr X's log is opened (openings), as at any end
    const bySlot = new Map((msg.openings || []).map((o) => [o.slot, o.station]));
    for (const e of msg.view.log) if (bySlot.has(e.slot)) e.station = bySlot.get(e.slot);
    msg.view.all_shown = true;
    msg.view.legal_moves = [];
  }

  /** After a takeback: forget the seals of the log slots beyond the new log only (here and
   * in the local storage of verify.js firstSeen), so that the slots filled again are checked
   * against their new seals; every slot still in the log keeps the seal first seen (a changed
   * one fails the check: verify.js forgetUndone, changedSeals). */
  forgetSeals(msg) {
    this.takenBack = false;
    forgetUndone(this.page.gameId, msg.view.log, this.page.seen);
  }

  /** After game.js handled `msg`. */
  after(msg) {
    const page = this.page;
    if (msg.type === "welcome") {
      this.role = msg.role;
      this.myName = msg.token_name;
      if (typeof msg.absent_timeout === "number") this.absentTimeout = msg.absent_timeout;
      this.chat.setRole(msg.role, msg.token_name);
      rememberGame(page.gameId, msg.role);
    } else if (msg.type === "chat_history") {
      this.chat.messages.clear();
      this.chat.add(msg.messages);
    } else if (msg.type === "chat") {
      this.chat.add([msg.message], true);
    } else if (msg.type === "notice") {
      if (msg.code === "takeback") this.takenBack = true; // the undone slots get new seals
      const text = msg.code === "absent_ai" ? AbsentPanel.noticeText(msg) : msg.code === "timeout_ai" ? t("notice.timeout_ai", { piece: pieceName(msg.piece) })
        : msg.code === "timeout_lost" ? t("notice.timeout_lost")
          : t("notice.takeback");
      page.toast(text, "info");
      this.tableCard.dataset.notice = msg.code;
    } else if (msg.type === "rematch_ready") {
      location.assign(msg.link); // the new game, with this player's own new token
    } else if (msg.type === "state") {
      this.onState(msg);
    }
  }

  onState(msg) {
    const page = this.page;
    const view = msg.view;
    this.clock.update(view.outcome ? null : msg.clock);
    this.absent.update(msg);
    this.chat.setAgreement(msg.chat_record, this.role);
    showTurn(page.root.dataset.myTurn === "1");
    // takeback (docs/protocol.md): only a move of this player's own among the moves their side
    // made since the other side last moved
    const onASide = this.role === "mr_x" || this.role === "detectives";
    const sideOf = (piece) => (piece === "X" ? "mr_x" : "detectives");
    let since = view.history.length;
    while (since > 0 && sideOf(view.history[since - 1].piece) === this.role) since--;
    const mineSince = view.history.slice(since).some((m) => page.pieces.includes(m.piece));
    const canAsk = onASide && !view.outcome && mineSince && !msg.takeback;
    page.root.querySelector("#btn-takeback").hidden = !canAsk;
    this.offers.update(msg, this.role, this.tokenName()); // takeback and rematch offers
    // end screen
    const out = view.outcome;
    this.explainBox.replaceChildren(...(out ? explain(view, out).map((s) => h("p", { text: s })) : []));
    if (out && out.reason === "time") {
      page.root.querySelector("#outcome-reason").textContent = out.winner === "mr_x" ? t("end.time_detectives") : t("end.time_mr_x");
    }
    const player = this.role && this.role !== "spectator";
    this.rematchBox.hidden = !out || !player;
    const status = this.rematchBox.querySelector("#rematch-status");
    const r = msg.rematch;
    this.rematchBox.querySelector("#btn-rematch").textContent = r && r.by && !r.accepted.includes(this.tokenName())
      ? t("rematch.accept") : t("rematch.offer");
    if (r && r.swap !== undefined) this.rematchBox.querySelector("#rematch-swap").checked = r.swap;
    const counts = r && !r.game_id ? { n: r.accepted.length, total: r.needed.length } : null;
    status.textContent = !r ? "" : r.game_id ? t("rematch.started")
      : r.swap ? t("rematch.waiting_swap", counts) : t("rematch.waiting", counts);
  }

  /** "Let the AI play" in the players' table: asks first (in the absent panel). */
  confirmHandOver(piece) {
    this.absent.ask(piece);
  }

  tokenName() {
    return this.myName ?? null;
  }
}
