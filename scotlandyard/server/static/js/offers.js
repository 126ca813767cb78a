// Offers at the table (docs/protocol.md "Takeback", "Rematch"): next to the move box (on a
// phone, at the top of the screen), the other side reads "Mr X asks to take back his last move"
// with Allow / Refuse (so does a team mate whose move a detective's takeback undoes), or a rematch offer with Accept / Decline, and hears a short sound when
// sounds are on; whoever asked reads "waiting for an answer".

import { t } from "./i18n.js";
import { h } from "./dom.js";
import { play as playSound } from "./sound.js";
import { pieceName } from "./board.js";

export class OfferPanel {
  constructor(page, parent) {
    this.page = page;
    this.heard = new Set(); // offers already sounded (by a key of who offered what)
    this.card = h("section", { class: "card offer", id: "offer", hidden: true, role: "alert" },
      h("p", { class: "offer-text", id: "offer-text" }),
      h("div", { class: "offer-actions" },
        h("button", { type: "button", class: "btn btn-primary", id: "offer-accept", onclick: () => this.answer(true) }),
        h("button", { type: "button", class: "btn", id: "offer-decline", onclick: () => this.answer(false) })),
      h("p", { class: "offer-wait hint", id: "offer-wait" }));
    parent.append(this.card);
    this.kind = null; // "takeback" | "rematch" while an offer is shown
  }

  answer(yes) {
    const socket = this.page.socket;
    if (this.kind === "takeback") socket.send({ type: "takeback", accept: yes });
    else if (this.kind === "rematch") {
      socket.send(yes ? { type: "rematch", swap: !!this.swap } : { type: "rematch", decline: true });
    }
  }

  /** Show the offer in `msg` (a `state`), if any; `role` and `me` (token name) of this page. */
  update(msg, role, me) {
    const player = role === "mr_x" || role === "detectives" || role === "hotseat";
    const back = msg.takeback;
    const r = msg.rematch;
    let text = null;
    let theirs = false;
    let wait = "";
    this.kind = null;
    if (back && !msg.view.outcome && player) {
      this.kind = "takeback";
      // the other side answers (unless it has), and so does a team mate whose move it undoes
      const mate = back.side === role && (back.mates || []).some((p) => this.page.pieces.includes(p));
      theirs = (back.side !== role && back.opponent !== false) || mate;
      text = mate ? t("takeback.offer_mate")
        : back.side === "mr_x" ? t("takeback.offer_mr_x") : t("takeback.offer_detectives");
      if (!theirs) {
        text = t("offer.takeback_mine");
        wait = t("offer.waiting");
      }
      this.card.querySelector("#offer-accept").textContent = t("takeback.accept");
      this.card.querySelector("#offer-decline").textContent = t("takeback.decline");
    } else if (r && r.by && !r.game_id && player && (msg.view.outcome || msg.adjudication)) {
      this.kind = "rematch";
      this.swap = r.swap;
      theirs = !r.accepted.includes(me);
      const counts = { n: r.accepted.length, total: r.needed.length };
      const who = { who: this.who(r.by) };
      if (theirs) text = r.swap ? t("offer.rematch_swap", who) : t("offer.rematch", who);
      else text = r.swap ? t("rematch.waiting_swap", counts) : t("rematch.waiting", counts);
      if (!theirs) wait = t("offer.waiting");
      this.card.querySelector("#offer-accept").textContent = t("rematch.accept");
      this.card.querySelector("#offer-decline").textContent = t("offer.decline");
    }
    this.card.hidden = !text;
    this.card.dataset.kind = this.kind ?? "";
    this.card.dataset.theirs = theirs ? "1" : "0";
    if (!text) return;
    this.card.querySelector("#offer-text").textContent = text;
    this.card.querySelector("#offer-accept").hidden = !theirs;
    this.card.querySelector("#offer-decline").hidden = !theirs;
    this.card.querySelector("#offer-wait").textContent = wait;
    const key = `${this.kind}:${back?.to_ply ?? ""}:${back?.by ?? ""}:${r?.by ?? ""}:${r?.swap ?? ""}`;
    if (!this.heard.has(key)) { // a new offer: in sight, and heard by whoever must answer
      this.heard.add(key);
      this.card.scrollIntoView({ block: "nearest" });
      if (theirs) playSound("offer");
    }
  }

  /** Who offered, by token name, in words. */
  who(name) {
    if (name === "X") return t("role.mr_x");
    if (name === "detectives") return t("role.detectives");
    return /^[DP]\d$/.test(name) ? pieceName(name) : name;
  }
}
