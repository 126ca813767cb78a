// The computer analysis on the game page (after the end): "Request a computer analysis" asks
// the server (POST /api/games/ID/analysis), the progress is shown while its low-priority job
// runs, then a chart of Mr X's chance to stay free at every move (his own estimate from the
// truth, the detectives' from their view), each inaccuracy / mistake / blunder marked on it;
// a click on the chart or on a listed move goes to that move in the replay, where the board
// draws the move played and the computer's move as arrows. Data: scotlandyard.ai.review.

import { pieceName } from "./board.js";
import { h, svg as s } from "./dom.js";
import { t } from "./i18n.js";
import { tp } from "./plural.js";

function labelText(label) {
  if (label === "blunder") return t("review.label_blunder");
  if (label === "mistake") return t("review.label_mistake");
  return t("review.label_inaccuracy");
}

function countText(mine) {
  const n = (label) => mine.filter((p) => p.label === label).length;
  return [tp("review.inaccuracies", n("inaccuracy")), tp("review.mistakes", n("mistake")),
    tp("review.blunders", n("blunder"))].join(", ");
}

function pct(v) {
  return `${Math.round(v * 100)}%`;
}

export class ComputerAnalysis {
  /**
   * box: the element to fill; gameId, token: the game; onPly(step): show the replay at `step`
   * (the position after that many moves).
   */
  constructor(box, { gameId, token, onPly }) {
    this.box = box;
    this.gameId = gameId;
    this.token = token;
    this.onPly = onPly;
    this.state = { status: "none" };
    this.timer = null;
    this.started = false;
  }

  url() {
    return `/api/games/${encodeURIComponent(this.gameId)}/analysis`;
  }

  async fetchState(method = "GET") {
    const res = await fetch(this.url(), { method, headers: { Authorization: `Bearer ${this.token}` }, cache: "no-store" });
    let body = null;
    try { body = await res.json(); } catch (_) { /* not JSON */ }
    if (!res.ok) throw new Error((body && body.detail) || `HTTP ${res.status}`);
    return body;
  }

  /** Ask the server (GET: where it stands; POST: start it), show the answer, and poll on
   * while the job waits or runs. */
  async refresh(method = "GET") {
    try {
      this.state = await this.fetchState(method);
    } catch (e) {
      this.state = { status: "error", error: e.message };
    }
    this.render();
    if (this.state.status === "queued" || this.state.status === "running") {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.refresh(), 800);
    }
  }

  /** Look once whether an analysis exists (shown at once if so). */
  start() {
    if (this.started) return;
    this.started = true;
    this.refresh();
  }

  request() {
    this.refresh("POST");
  }

  /** The arrows for the replay at `step` (the position before move `step + 1` is shown with
   * the move played there and the computer's). */
  arrowsFor(step) {
    const r = this.state.result;
    if (!r || this.selected == null) return [];
    const p = r.plies[this.selected - 1];
    if (!p || step !== p.ply - 1) return [];
    const out = [];
    if (p.to != null) out.push({ from: p.start, to: p.to, kind: "played" });
    if (p.best_to != null) out.push({ from: p.start, to: p.best_to, kind: "best" });
    return out;
  }

  select(ply) {
    this.selected = ply;
    this.render();
    this.onPly(ply - 1);
  }

  render() {
    const st = this.state;
    const parts = [h("h3", { text: t("review.title") })];
    if (st.status === "none") {
      parts.push(h("p", { class: "muted", text: t("review.intro") }));
      parts.push(h("button", { type: "button", class: "btn btn-primary", id: "review-request",
        text: t("review.request"), onclick: () => this.request() }));
    } else if (st.status === "queued" || st.status === "running") {
      const bar = h("progress", { id: "review-progress", max: String(st.total || 1), value: String(st.done || 0) });
      parts.push(h("p", { role: "status", text: st.status === "queued" ? t("review.queued") : t("review.running", { done: st.done, total: st.total }) }), bar);
    } else if (st.status === "error" || st.status === "failed") {
      parts.push(h("p", { class: "error", role: "alert", text: st.error || t("review.failed") }));
    } else if (st.status === "done") {
      parts.push(...this.renderResult(st.result));
    }
    this.box.replaceChildren(...parts);
  }

  renderResult(r) {
    const n = r.plies.length;
    const W = 320;
    const H = 130;
    const L = 26;
    const R = 8;
    const T = 8;
    const B = 18;
    const x = (k) => L + (W - L - R) * (n ? k / n : 0);
    const y = (v) => T + (H - T - B) * (1 - v);
    const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart review-chart", role: "img",
      "aria-label": t("review.chart_label") });
    s("line", { x1: L, y1: y(0), x2: W - R, y2: y(0), class: "axis" }, svg);
    s("line", { x1: L, y1: y(0.5), x2: W - R, y2: y(0.5), class: "axis half" }, svg);
    s("text", { x: L - 3, y: y(1) + 8, class: "tick end" }, svg, "100%");
    s("text", { x: L - 3, y: y(0), class: "tick end" }, svg, "0%");
    const line = (vals, cls) => s("polyline", { class: cls, points: vals.map((v, k) => `${x(k).toFixed(1)},${y(v).toFixed(1)}`).join(" ") }, svg);
    line(r.detectives, "est-line est-detectives");
    line(r.mr_x, "est-line est-mr-x");
    // a wide invisible band per move: a click goes to that move
    r.plies.forEach((p) => {
      const band = s("rect", { x: x(p.ply - 1), y: T, width: Math.max(2, x(p.ply) - x(p.ply - 1)), height: H - T - B,
        class: "ply-band", "data-ply": p.ply }, svg);
      band.addEventListener("click", () => this.select(p.ply));
      if (p.label) {
        const v = p.piece === "X" ? p.mr_x_after : p.detectives_after;
        s("circle", { cx: x(p.ply), cy: y(v), r: p.label === "blunder" ? 4 : 3, class: `mark mark-${p.label}`, "data-ply": p.ply }, svg);
      }
    });
    if (this.selected != null) s("line", { x1: x(this.selected), y1: T, x2: x(this.selected), y2: y(0), class: "cursor" }, svg);
    const legend = h("p", { class: "chart-legend" },
      h("span", { class: "key key-mr-x" }), ` ${t("review.key_mr_x")} `,
      h("span", { class: "key key-detectives" }), ` ${t("review.key_detectives")}`);
    const counts = h("p", { class: "review-counts" });
    for (const side of ["X", "D"]) {
      const mine = r.plies.filter((p) => (side === "X" ? p.piece === "X" : p.piece !== "X"));
      counts.append(h("span", { class: "review-side", text: `${side === "X" ? t("piece.mr_x") : t("review.detectives")}: ${countText(mine)}` }));
    }
    const list = h("ol", { class: "review-moments", id: "review-moments" });
    for (const ply of r.moments) {
      const p = r.plies[ply - 1];
      const item = h("li", { class: `moment moment-${p.label}${this.selected === ply ? " current" : ""}`, "data-ply": ply },
        h("button", { type: "button", class: "btn-link", onclick: () => this.select(ply),
          text: t("review.moment", { round: p.round, piece: pieceName(p.piece), move: p.move, label: labelText(p.label),
            loss: Math.round(p.loss * 100), best: p.best ?? "–" }) }));
      list.append(item);
    }
    const out = [svg, legend, counts];
    if (r.moments.length) out.push(list);
    else out.push(h("p", { class: "muted", text: t("review.no_moments") }));
    out.push(h("p", { class: "muted small", text: t("review.method", { playouts: r.playouts, start: pct(r.mr_x[0]) }) }));
    return out;
  }
}
