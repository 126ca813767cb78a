// Players who leave (docs/protocol.md "Absent players"): a banner for everyone at the table
// ("Detective 2 left - the computer takes over in 0:58", a live countdown), the confirmation
// before letting the computer play someone else's seat, and, for a player coming back, what the
// computer played for him with one button to take the seat back. Everything shown comes from
// the `absent` field of `state` and the player's own view (never anything hidden).

import { t, has } from "./i18n.js";
import { h } from "./dom.js";
import { pieceName } from "./board.js";
import { formatSeconds } from "./clock.js";

/** The level's name in the page's language. */
export function levelName(agent) {
  return agent && has(`level.${agent}`) ? t(`level.${agent}`) : (agent ?? "");
}

export class AbsentPanel {
  constructor(page, parent) {
    this.page = page;
    this.absent = null;
    this.received = 0;
    this.asking = null; // the piece whose hand-over waits for a "yes"
    this.timer = null;
    // (no live region: the countdown changes every second; the hand-over itself is a toast)
    this.card = h("section", { class: "card absent", id: "absent", hidden: true },
      h("ul", { class: "absent-list", id: "absent-list" }),
      h("div", { class: "absent-ask", id: "absent-ask", hidden: true },
        h("p", { class: "absent-question" }),
        h("button", { type: "button", class: "btn btn-small btn-primary", id: "absent-yes", text: t("absent.yes"),
          onclick: () => this.handOver() }), " ",
        h("button", { type: "button", class: "btn btn-small btn-plain", id: "absent-no", text: t("absent.no"),
          onclick: () => { this.asking = null; this.render(); } })));
    this.back = h("section", { class: "card absent-back", id: "absent-back", hidden: true, role: "status" },
      h("p", { class: "absent-back-text" }),
      h("p", { class: "absent-back-moves" }),
      h("button", { type: "button", class: "btn btn-primary", id: "absent-reclaim", text: t("absent.reclaim"),
        onclick: () => this.reclaim() }));
    parent.append(this.card, this.back);
  }

  /** The level the computer plays an absent seat at. */
  get agent() {
    return this.absent?.agent ?? "medium";
  }

  update(msg) {
    this.absent = msg.view.outcome || msg.adjudication ? null : (msg.absent ?? null);
    this.msg = msg;
    this.received = performance.now();
    if (this.asking && !this.page.extras.canHandOver(this.asking, msg.seats?.[this.asking] ?? {})) this.asking = null;
    this.render();
    if (this.timer) clearInterval(this.timer);
    this.timer = Object.keys(this.absent?.seats ?? {}).length ? setInterval(() => this.tick(), 250) : null;
  }

  /** Ask before letting the computer play `piece` (someone else's seat). */
  ask(piece) {
    this.asking = piece;
    this.render();
    this.card.querySelector("#absent-yes").focus();
  }

  handOver() {
    const piece = this.asking;
    this.asking = null;
    if (piece) this.page.socket.send({ type: "takeover", piece, agent: this.agent });
    this.render();
  }

  reclaim() {
    for (const piece of this.mineHanded()) this.page.socket.send({ type: "reclaim", piece });
  }

  /** This player's own seats that the computer plays for him since he left. */
  mineHanded() {
    const handed = this.absent?.handed ?? {};
    return Object.keys(handed).filter((p) => this.page.pieces.includes(p));
  }

  render() {
    const seats = this.absent?.seats ?? {};
    const list = this.card.querySelector("#absent-list");
    const seatInfo = this.msg?.seats ?? {};
    list.replaceChildren(...Object.keys(seats).filter((p) => !this.page.pieces.includes(p)).map((p) =>
      h("li", { class: "absent-seat", dataset: { piece: p } }, h("span", { class: "absent-text" }),
        this.page.extras.canHandOver(p, seatInfo[p] ?? {}) && this.asking !== p
          ? h("button", { type: "button", class: "btn btn-small", text: t("absent.hand_over"),
            dataset: { action: "absent-takeover", piece: p }, onclick: () => this.ask(p) }) : null)));
    const ask = this.card.querySelector("#absent-ask");
    ask.hidden = !this.asking;
    if (this.asking) {
      ask.querySelector(".absent-question").textContent = t("absent.confirm",
        { piece: pieceName(this.asking), level: levelName(this.agent) });
    }
    this.card.hidden = !list.children.length && !this.asking;
    this.tick();
    // the returning player: what the computer played for him, and his seat back in one click
    const mine = this.mineHanded();
    this.back.hidden = !mine.length;
    if (mine.length) {
      const view = this.msg.view;
      const from = Math.min(...mine.map((p) => this.absent.handed[p]));
      const moves = view.history.slice(from).filter((m) => mine.includes(m.piece)).map((m) => m.move);
      this.back.querySelector(".absent-back-text").textContent = t("absent.back",
        { pieces: mine.map(pieceName).join(", "), level: levelName(this.msg.seats?.[mine[0]]?.agent) });
      this.back.querySelector(".absent-back-moves").textContent = moves.length
        ? t("absent.back_moves", { moves: moves.join(", ") }) : t("absent.back_none");
    }
  }

  tick() {
    const seats = this.absent?.seats ?? {};
    const spent = (performance.now() - this.received) / 1000;
    for (const li of this.card.querySelectorAll(".absent-seat")) {
      const p = li.dataset.piece;
      const info = seats[p];
      if (!info) continue;
      const name = pieceName(p);
      let text;
      if (info.takeover_in === null || info.takeover_in === undefined) {
        text = t("absent.left_wait", { piece: name, time: formatSeconds(info.away + spent) });
      } else {
        const left = Math.max(0, info.takeover_in - spent);
        li.dataset.left = String(Math.ceil(left));
        text = left > 0 ? t("absent.left_ai", { piece: name, time: formatSeconds(left) })
          : t("absent.left_now", { piece: name });
      }
      li.querySelector(".absent-text").textContent = text;
    }
  }

  /** The toast for an `absent_ai` notice. */
  static noticeText(msg) {
    return t("notice.absent_ai", { piece: pieceName(msg.piece), level: levelName(msg.agent) });
  }
}
