// Entry point: translations, language picker, and the three pages of the app by path.

import { showGame } from "./game.js";
import { applyI18n, bindLanguagePicker, initI18n } from "./i18n.js";
import { Lobby } from "./lobby.js";
import { PuzzlePage } from "./puzzles.js";
import { TutorialPage } from "./tutorial.js";

function route() {
  const app = document.getElementById("app");
  const path = location.pathname.replace(/\/+$/, "") || "/";
  const game = /^\/game\/([A-Za-z0-9_-]{1,64})$/.exec(path);
  const puzzle = /^\/puzzles(?:\/([A-Za-z0-9_-]{1,64}))?$/.exec(path);
  const lesson = /^\/tutorial(?:\/([a-z_]{1,20}))?$/.exec(path);
  document.body.dataset.page = game ? "game" : puzzle ? "puzzles" : lesson ? "tutorial" : path === "/rules" ? "rules" : path === "/" ? "lobby" : "missing";
  if (game) return showGame(app, game[1]);
  if (puzzle) return new PuzzlePage(app, puzzle[1] || null);
  if (lesson) return new TutorialPage(app, lesson[1] || null);
  if (path === "/rules") {
    const page = document.getElementById("tpl-rules").content.firstElementChild.cloneNode(true);
    app.replaceChildren(page);
    applyI18n(page);
    return page;
  }
  if (path === "/") return new Lobby(app);
  const page = document.getElementById("tpl-missing").content.firstElementChild.cloneNode(true);
  page.querySelector("#missing-path").textContent = location.pathname; // drawn as text
  app.replaceChildren(page);
  applyI18n(page);
  return page;
}

async function start() {
  await initI18n();
  bindLanguagePicker(document.getElementById("lang-picker"));
  route();
  document.body.dataset.ready = "1";
}

start().catch((e) => {
  console.error(e);
  document.getElementById("app").textContent = `Scotland Yard could not start: ${e.message}`;
});
