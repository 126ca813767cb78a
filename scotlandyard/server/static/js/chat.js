// The game page's chat: the table chat (every player; spectators read it) and the detectives'
// team chat (only detective tokens ever receive it: the server decides, docs/protocol.md).
// Messages are drawn with textContent, never as HTML.

import { t } from "./i18n.js";
import { h } from "./dom.js";
import { pieceName } from "./board.js";

export class ChatPanel {
  constructor(page, parent) {
    this.page = page;
    this.messages = new Map(); // n -> message
    this.card = h("section", { class: "card chat", id: "chat", "aria-labelledby": "chat-title" },
      h("h2", { id: "chat-title", text: t("chat.title") }),
      h("ol", { id: "chat-log", class: "chat-log", "aria-live": "polite" }));
    this.form = h("form", { id: "chat-form", class: "chat-form", autocomplete: "off" });
    this.channel = h("select", { id: "chat-channel", "aria-label": t("chat.channel") });
    this.input = h("input", { id: "chat-input", type: "text", maxlength: "300", "aria-label": t("chat.message"),
      placeholder: t("chat.placeholder") });
    this.send = h("button", { id: "chat-send", type: "submit", class: "btn btn-small", text: t("chat.send") });
    this.form.append(this.channel, this.input, this.send);
    this.agree = h("label", { class: "toggle chat-agree" },
      h("input", { type: "checkbox", id: "chat-agree" }), h("span", { text: t("chat.record") }));
    this.card.append(this.form, this.agree);
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = this.input.value.trim();
      if (!text) return;
      if (this.page.socket.send({ type: "chat", channel: this.channel.value || "table", text })) this.input.value = "";
    });
    this.agree.querySelector("input").addEventListener("change", (e) => {
      this.page.socket.send({ type: "chat_record", agree: e.target.checked });
    });
    parent.append(this.card);
  }

  setRole(role) {
    const team = role === "detectives";
    this.channel.replaceChildren(h("option", { value: "table", text: t("chat.table") }),
      ...(team ? [h("option", { value: "team", text: t("chat.team") })] : []));
    this.channel.hidden = !team;
    const writes = role !== "spectator";
    this.form.hidden = !writes;
    this.agree.hidden = !writes;
    this.card.dataset.role = role;
  }

  add(list) {
    for (const m of list) this.messages.set(m.n, m);
    this.render();
  }

  render() {
    const log = this.card.querySelector("#chat-log");
    log.replaceChildren(...[...this.messages.values()].sort((a, b) => a.n - b.n).map((m) => {
      const who = /^(X|[DP]\d)$/.test(m.from) ? pieceName(m.from) : m.from === "detectives" ? t("role.detectives") : m.from;
      return h("li", { class: `chat-msg chat-${m.channel}`, dataset: { channel: m.channel, from: m.from, n: m.n } },
        m.channel === "team" ? h("span", { class: "chat-tag", text: t("chat.team") }) : null,
        h("strong", { class: "chat-from", text: `${who}: ` }),
        h("span", { class: "chat-text", text: m.text }));
    }));
    log.scrollTop = log.scrollHeight;
  }

  setAgreement(chatRecord, role) {
    const side = role === "mr_x" ? "mr_x" : role === "detectives" ? "detectives" : null;
    const box = this.agree.querySelector("input");
    if (side && chatRecord && side in chatRecord) box.checked = !!chatRecord[side];
  }
}
