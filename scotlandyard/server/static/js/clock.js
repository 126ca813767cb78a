// The game clocks (docs/protocol.md "Clocks"): each side's time left, ticking on the page from
// the server's figures in every `state` (the server alone decides when time is up).

import { t } from "./i18n.js";
import { h } from "./dom.js";

export function formatSeconds(s) {
  if (s === null || s === undefined) return "–";
  const total = Math.max(0, Math.ceil(s));
  const m = Math.floor(total / 60);
  return `${m}:${String(total % 60).padStart(2, "0")}`;
}

export class ClockPanel {
  constructor(parent) {
    this.card = h("section", { class: "card clock", id: "clock", hidden: true, "aria-labelledby": "clock-title" },
      h("h2", { id: "clock-title", text: t("clock.title") }),
      h("p", { class: "clock-row", dataset: { side: "mr_x" } },
        h("span", { class: "clock-name", text: t("clock.mr_x") }), h("strong", { class: "clock-time" })),
      h("p", { class: "clock-row", dataset: { side: "detectives" } },
        h("span", { class: "clock-name", text: t("clock.detectives") }), h("strong", { class: "clock-time" })),
      h("p", { class: "clock-move hint" }),
      h("p", { class: "clock-rule hint" }));
    parent.append(this.card);
    this.clock = null;
    this.received = 0;
    this.timer = null;
  }

  update(clock) {
    this.clock = clock;
    this.received = performance.now();
    this.card.hidden = !clock;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (!clock) return;
    const rules = [];
    if (clock.per_move) rules.push(t("clock.per_move", { s: clock.per_move }));
    if (clock.initial) rules.push(t("clock.fischer", { m: formatSeconds(clock.initial), s: clock.increment }));
    rules.push(clock.on_timeout === "lose" ? t("clock.on_timeout_lose") : t("clock.on_timeout_ai"));
    this.card.querySelector(".clock-rule").textContent = rules.join(" · ");
    this.tick();
    if (clock.running) this.timer = setInterval(() => this.tick(), 250);
  }

  tick() {
    const c = this.clock;
    if (!c) return;
    const spent = c.running ? (performance.now() - this.received) / 1000 : 0;
    for (const side of ["mr_x", "detectives"]) {
      const row = this.card.querySelector(`.clock-row[data-side='${side}']`);
      let left = c.remaining?.[side];
      if (left !== null && left !== undefined && side === c.turn) left -= spent;
      row.querySelector(".clock-time").textContent = left === null || left === undefined ? "–" : formatSeconds(left);
      row.classList.toggle("running", c.running && side === c.turn);
    }
    const move = this.card.querySelector(".clock-move");
    const left = c.move_left === null || c.move_left === undefined ? null : c.move_left - spent;
    this.card.dataset.left = left === null ? "" : String(Math.max(0, Math.ceil(left)));
    move.textContent = c.running && left !== null ? t("clock.move_left", { time: formatSeconds(left) }) : "";
  }
}
