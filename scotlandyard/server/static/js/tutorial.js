// The tutorial page (/tutorial, /tutorial/LESSON): three scripted lessons on the London board,
// one instruction at a time. The player chooses a ticket and taps a station; the server judges
// the move with the rules engine (Game.why_illegal) and the page shows its verdict: passed, a
// hint (legal but not what the step asks), or refused with the rule's reason in the player's
// language (the engine's rule id and situation mapped to a translated sentence).

import { getBoard } from "./api.js";
import { BoardView, pieceName } from "./board.js";
import { h } from "./dom.js";
import { applyI18n, onLanguageChange, t } from "./i18n.js";
import { tp } from "./plural.js";

const LESSONS = ["detective", "mr_x", "team"];
const LETTER = { taxi: "T", bus: "B", underground: "U", black: "K" };

// every instruction's text (literal keys, so the translation files' checks see them)
const TEXT = {
  detective: {
    taxi: () => t("tutorial.detective.taxi"),
    no_line: () => t("tutorial.detective.no_line"),
    occupied: () => t("tutorial.detective.occupied"),
    bus: () => t("tutorial.detective.bus"),
    no_ticket: () => t("tutorial.detective.no_ticket"),
    underground: () => t("tutorial.detective.underground"),
  },
  mr_x: {
    log: () => t("tutorial.mr_x.log"),
    blocked: () => t("tutorial.mr_x.blocked"),
    hidden: () => t("tutorial.mr_x.hidden"),
    reveal: () => t("tutorial.mr_x.reveal"),
    black: () => t("tutorial.mr_x.black"),
    double: () => t("tutorial.mr_x.double"),
  },
  team: {
    seen: () => t("tutorial.team.seen"),
    close: () => t("tutorial.team.close"),
    shade: () => t("tutorial.team.shade"),
    catch: () => t("tutorial.team.catch"),
  },
};
const TITLE = {
  detective: () => t("tutorial.lesson.detective"),
  mr_x: () => t("tutorial.lesson.mr_x"),
  team: () => t("tutorial.lesson.team"),
};
const DONE = {
  detective: () => t("tutorial.done.detective"),
  mr_x: () => t("tutorial.done.mr_x"),
  team: () => t("tutorial.done.team"),
};

/** The engine's refusal as a sentence in the page's language (its own text if unknown). */
function why(v) {
  const p = { ...v.params };
  if (p.ticket) p.ticket = t(`ticket.${p.ticket}`);
  if (p.piece) p.piece = pieceName(p.piece);
  switch (v.code) {
    case "no_line": return t("tutorial.why.no_line", p);
    case "no_line_any": return t("tutorial.why.no_line_any", p);
    case "no_ticket": return t("tutorial.why.no_ticket", p);
    case "occupied": return t("tutorial.why.occupied", p);
    case "onto_detective": return t("tutorial.why.onto_detective", p);
    case "black_only": return t("tutorial.why.black_only");
    case "double_only": return t("tutorial.why.double_only");
    case "no_double": return t("tutorial.why.no_double");
    case "not_turn": return t("tutorial.why.not_turn", p);
    default: return v.reason || "";
  }
}

async function call(url, body = null) {
  const res = await fetch(url, body === null ? { cache: "no-store" } : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), cache: "no-store" });
  let data = null;
  try { data = await res.json(); } catch (_) { /* not JSON */ }
  if (!res.ok) throw new Error((data && data.detail) || `HTTP ${res.status}`);
  return data;
}

export class TutorialPage {
  constructor(root, lessonId = null) {
    this.root = root;
    this.page = h("section", { class: "tutorial-page", "data-state": "loading" });
    root.replaceChildren(this.page);
    this.unlisten = onLanguageChange(() => this.render());
    this.start(LESSONS.includes(lessonId) ? lessonId : "detective").catch((e) => this.fail(e));
  }

  fail(e) {
    console.error(e);
    this.page.dataset.state = "error";
    this.page.replaceChildren(h("div", { class: "card narrow" }, h("p", { class: "error", text: e.message })));
  }

  async start(lessonId) {
    this.data = await getBoard("classic");
    const boardBox = h("div", { class: "tutorial-board board", id: "tutorial-board" });
    this.panel = h("aside", { class: "card tutorial-panel" });
    this.page.replaceChildren(h("div", { class: "tutorial-layout" }, boardBox, this.panel));
    this.board = new BoardView(boardBox, this.data, { onStation: (s) => this.tap(s) });
    await this.open(lessonId);
  }

  async open(lessonId) {
    this.lesson = lessonId;
    this.root.ownerDocument.defaultView.history.replaceState(null, "", `/tutorial/${lessonId}`);
    this.show(await call(`/api/tutorial/${lessonId}/0`), null);
  }

  /** Show a step's state; `verdict` is the last move's judgement (null on a fresh step). */
  show(state, verdict) {
    this.state = state;
    this.verdict = verdict;
    this.first = null; // a double move's first step
    const tk = this.state.tickets?.[this.state.piece] || {};
    const wanted = this.state.key === "black" ? "black" : this.state.key === "bus" ? "bus" : "taxi";
    if (!this.ticket || !(this.ticket in tk) || verdict?.ok) this.ticket = wanted in tk ? wanted : "taxi";
    this.double = false;
    this.zoomed = false;
    this.render();
  }

  tap(station) {
    if (!this.state || this.busy || this.state.key === "done") return;
    const step = `${LETTER[this.ticket]}${station}`;
    if (this.double && this.first === null) {
      this.first = step;
      this.render();
      return;
    }
    this.send(this.first ? `${this.first}+${step}` : step, station);
  }

  async send(move, station) {
    this.busy = true;
    this.page.dataset.busy = "1";
    try {
      const res = await call(`/api/tutorial/${this.lesson}/${this.state.step}`, { move });
      this.lastStation = station;
      if (res.verdict.ok) this.show(res.next, res.verdict);
      else { this.verdict = res.verdict; this.first = null; this.render(); }
    } catch (e) {
      this.verdict = { ok: false, kind: "error", reason: e.message };
      this.render();
    } finally {
      this.busy = false;
      delete this.page.dataset.busy;
    }
  }

  render() {
    if (!this.state || !this.board) return;
    const s = this.state;
    const done = s.key === "done";
    this.page.dataset.state = done ? "done" : "playing";
    this.page.dataset.lesson = this.lesson;
    this.page.dataset.step = String(s.step);
    this.page.dataset.verdict = this.verdict ? this.verdict.kind : "";
    this.board.setPieces(s.stations, { active: s.piece, lastSeen: s.last_seen });
    // the possible-stations map belongs to the lesson about it (lesson 3)
    const shade = this.lesson === "team" && s.log.length > 0;
    this.board.setShading(shade ? s.possible : null, null);
    const targets = done ? [] : (this.first ? s.target.slice(1) : s.target);
    this.board.setTargets(targets, "move", null);
    if (!this.zoomed) {
      this.board.zoomTo([...Object.values(s.stations), ...s.target, ...(shade && s.possible.length < 12 ? s.possible : []),
        ...(s.last_seen ? [s.last_seen.station] : [])], 0, 1.5);
      this.zoomed = true;
    }
    const tabs = h("nav", { class: "tutorial-lessons", "aria-label": t("tutorial.title") });
    LESSONS.forEach((id, i) => tabs.append(h("button", {
      class: `btn tutorial-tab${id === this.lesson ? " current" : ""}`, type: "button", "data-lesson": id,
      "aria-current": id === this.lesson ? "page" : null,
      text: `${i + 1}. ${TITLE[id]()}`, onclick: () => this.open(id).catch((e) => this.fail(e)) })));
    const parts = [tabs];
    const head = h("p", { class: "tutorial-progress muted" },
      done ? t("tutorial.finished") : t("tutorial.step", { n: s.step + 1, total: s.steps }),
      " · ", t("tutorial.round", { round: s.round }));
    if (shade) head.append(" · ", h("strong", { class: "tutorial-possible", text: tp("tutorial.possible", s.possible.length) }));
    parts.push(head);
    if (this.verdict) {
      const v = this.verdict;
      const cls = v.kind === "ok" ? "ok" : v.kind === "hint" ? "hint" : "bad";
      const box = h("div", { class: `tutorial-feedback ${cls}`, id: "tutorial-feedback", role: "status" });
      if (v.rule) box.append(h("span", { class: "tutorial-rule", text: v.rule }));
      const msg = v.kind === "hint" ? t("tutorial.hint") : v.kind === "ok" && !v.rule ? t("tutorial.good")
        : v.kind === "ok" ? `${t("tutorial.right")} ${why(v)}` : why(v);
      box.append(h("span", { class: "tutorial-why", text: msg }));
      parts.push(box);
    }
    if (done) {
      parts.push(h("p", { class: "tutorial-task", id: "tutorial-task", text: DONE[this.lesson]() }));
      const next = LESSONS[LESSONS.indexOf(this.lesson) + 1];
      const row = h("div", { class: "actions-row" });
      if (next) row.append(h("button", { class: "btn btn-primary", type: "button", id: "tutorial-next",
        text: t("tutorial.next"), onclick: () => this.open(next).catch((e) => this.fail(e)) }));
      row.append(h("a", { class: "btn", href: "/", text: t("tutorial.play") }));
      parts.push(row);
    } else {
      parts.push(h("p", { class: "tutorial-task", id: "tutorial-task", "data-key": s.key, text: TEXT[this.lesson][s.key]() }));
      const tickets = s.tickets[s.piece] || {};
      const row = h("div", { class: "tutorial-tickets", role: "group", "aria-label": t("puzzle.which_ticket") },
        h("span", { class: "dot-piece", text: pieceName(s.piece) }));
      for (const tk of ["taxi", "bus", "underground", "black"]) {
        if (!(tk in tickets)) continue;
        row.append(h("button", { class: `btn ticket-btn ticket-${tk}${this.ticket === tk ? " chosen" : ""}`, type: "button",
          "data-ticket": tk, "aria-pressed": String(this.ticket === tk),
          text: `${t(`ticket.${tk}`)} ${tickets[tk] ?? "∞"}`, onclick: () => { this.ticket = tk; this.render(); } }));
      }
      if ("double" in tickets) {
        row.append(h("button", { class: `btn ticket-btn ticket-double${this.double ? " chosen" : ""}`, type: "button",
          "data-ticket": "double", "aria-pressed": String(this.double),
          text: `${t("ticket.double")} ${tickets.double}`,
          onclick: () => { this.double = !this.double; this.first = null; this.render(); } }));
      }
      parts.push(row);
      if (this.first) parts.push(h("p", { class: "tutorial-first muted", text: t("tutorial.first_step", { move: this.first }) }));
    }
    if (s.log.length) {
      const log = h("ol", { class: "tutorial-log", "aria-label": t("log.title") });
      for (const e of s.log) {
        log.append(h("li", { class: `log-${e.ticket}${e.reveal ? " reveal" : ""}`, "data-slot": e.slot, "data-ticket": e.ticket },
          h("span", { text: t(`ticket_short.${e.ticket}`) }),
          h("span", { text: e.station != null ? String(e.station) : e.reveal ? "?" : "" })));
      }
      parts.push(h("div", { class: "tutorial-logbox" }, h("span", { class: "muted", text: t("log.title") }), log));
    }
    this.panel.replaceChildren(...parts);
    applyI18n(this.panel);
  }
}
