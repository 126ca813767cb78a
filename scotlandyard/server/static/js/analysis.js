// The post-game analysis card: a chart of how many stations Mr X could be on after each
// slot of his log (bars; black tickets in black, reveals marked) and the probability the
// detectives' map gave his true station (the line), then the moments he came closest to
// capture, his black tickets and double moves. Data: state.analysis (scotlandyard.analysis).

import { t } from "./i18n.js";
import { tp } from "./plural.js";
import { pieceName } from "./board.js";
import { h, svg as s } from "./dom.js";

/** Fill `box` (the #analysis card's body) from `data`; `onSlot(round)` jumps the replay. */
export function renderAnalysis(box, data, onRound = () => {}) {
  box.replaceChildren();
  if (!data || !data.slots?.length) return;
  const W = 320;
  const H = 150;
  const L = 26;
  const R = 24;
  const T = 8;
  const B = 20;
  const n = data.slots.length;
  const maxPoss = Math.max(1, ...data.slots.map((x) => x.possible || 0));
  const bw = (W - L - R) / n;
  const y = (v) => T + (H - T - B) * (1 - v / maxPoss);
  const yp = (p) => T + (H - T - B) * (1 - p);
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img",
    "aria-label": t("analysis.chart_label") });
  s("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis" }, svg);
  s("text", { x: L - 3, y: T + 8, class: "tick end" }, svg, String(maxPoss));
  s("text", { x: L - 3, y: H - B, class: "tick end" }, svg, "0");
  s("text", { x: W - R + 3, y: T + 8, class: "tick p" }, svg, "100%");
  s("text", { x: W - R + 3, y: H - B, class: "tick p" }, svg, "0%");
  data.slots.forEach((x, i) => {
    const bx = L + i * bw;
    if (x.reveal) s("rect", { x: bx, y: T, width: bw, height: H - T - B, class: "reveal-band" }, svg);
    const v = x.possible || 0;
    const bar = s("rect", { x: bx + 1, y: y(v), width: Math.max(1, bw - 2), height: H - B - y(v),
      class: `bar bar-${x.ticket}`, "data-slot": x.slot, "data-possible": v }, svg);
    s("title", {}, bar, tp("analysis.bar", v, { slot: x.slot, round: x.round, n: v,
      p: x.p_true == null ? "–" : `${Math.round(x.p_true * 100)}%` }));
    if ((i + 1) % 4 === 0 || i === 0) s("text", { x: bx + bw / 2, y: H - 6, class: "tick mid" }, svg, String(x.slot));
  });
  const pts = data.slots.map((x, i) => [L + i * bw + bw / 2, x.p_true]).filter((p) => p[1] != null);
  if (pts.length) {
    s("polyline", { points: pts.map(([px, p]) => `${px.toFixed(1)},${yp(p).toFixed(1)}`).join(" "), class: "p-line" }, svg);
    for (const [px, p] of pts) s("circle", { cx: px, cy: yp(p), r: 2.2, class: "p-dot", "data-p": p.toFixed(3) }, svg);
  }
  const legend = h("p", { class: "chart-legend" },
    h("span", { class: "key key-bar" }), ` ${t("analysis.key_possible")} `,
    h("span", { class: "key key-line" }), ` ${t("analysis.key_p")}`);
  const facts = h("ul", { class: "facts" });
  const close = data.closest || [];
  if (close.length) {
    const li = h("li", {}, h("strong", { text: `${t("analysis.closest")}: ` }));
    close.forEach((c, i) => {
      if (i) li.append(", ");
      li.append(h("button", { type: "button", class: "btn-link", dataset: { round: c.round },
        text: tp("analysis.close_item", c.distance, { round: c.round, piece: pieceName(c.piece) }),
        onclick: () => onRound(c.round) }));
    });
    facts.append(li);
  }
  facts.append(h("li", {}, h("strong", { text: `${t("ticket.black")}: ` }),
    data.black.length ? t("analysis.black_slots", { slots: data.black.join(", ") }) : t("analysis.none")));
  facts.append(h("li", {}, h("strong", { text: `${t("ticket.double")}: ` }),
    data.doubles.length ? t("analysis.double_rounds", { rounds: data.doubles.join(", ") }) : t("analysis.none")));
  box.append(svg, legend, facts);
}
