// The move lists as a way into the game (docs/coach.md): a click on a move of the game in
// progress shows the position after it on the board (until "Back to the game"), and a
// kept game's replay sets its position up on the board again, as a new game against the
// computer or a friend (the link's `again GAME PLY computer|play`). Kept apart from
// app.js: it hears its events ("crownhead:move", "crownhead:replay") and uses the page's
// board, its replay and its `request` (window.crownhead).
"use strict";

(function () {
  const page = window.crownhead;
  const $ = (sel) => document.querySelector(sel);
  const text = (el, value) => { if (el) el.textContent = value == null ? "" : String(value); };
  let current = null;  // the game in progress as /api/current gave it

  // -- the game in progress: a move clicked shows its position ----------------------------

  async function showPly(ply) {
    let game = current;
    if (!game || game.moves.length < ply || game.moves[ply - 1] !== page.moves[ply - 1]) {
      try {
        const response = await fetch("/api/current");
        if (!response.ok) return;
        game = current = await response.json();
      } catch (e) { return; }
    }
    if (!game.fens || ply >= game.fens.length) return;
    page.preview = ply;
    page.board.show({ board: CrownheadBoard.boardFromFen(game.fens[ply]) });
    const whiteBegan = /^W/i.test(String(game.fens[0]));
    const n = CrownheadBoard.moveNumber(ply, whiteBegan);
    const black = (ply % 2 === 1) !== whiteBegan;
    text($("#preview-text"), `The board here shows the position after ${n}${black ? "." : "..."} ${game.moves[ply - 1]}. `);
    $("#preview").hidden = false;
    for (const el of document.querySelectorAll("#moves [data-ply]")) {
      el.classList.toggle("current", Number(el.getAttribute("data-ply")) === ply);
    }
  }

  function backToGame() {
    page.preview = null;
    $("#preview").hidden = true;
    for (const el of document.querySelectorAll("#moves [data-ply].current")) el.classList.remove("current");
    const v = page.view;
    if (v) page.board.show({ board: v.board, roles: v.roles, target: v.target, blink: v.blink });
  }

  document.addEventListener("crownhead:move", (ev) => showPly(Number(ev.detail.ply)));
  $("#preview-back").addEventListener("click", backToGame);
  // A new move on the board: the board shows the game again.
  window.addEventListener("crownhead:line", (ev) => {
    const msg = ev.detail;
    if (page.preview != null && msg && (msg.event === "move" || msg.event === "new-game" || msg.event === "takeback")) backToGame();
  });

  // -- a kept game tried again from its replay --------------------------------------------

  function showAgain() {
    const r = page.replay;
    const ready = !!(r && r.game);
    $("#again-before").disabled = !ready || r.ply < 1;
    // At the end too: a game resigned may be played on (the board refuses a position with no move).
    $("#again-here").disabled = !ready;
  }

  async function tryAgain(ply) {
    const r = page.replay;
    if (!r || !r.game) return;
    const opponent = $("#again-opponent").value === "play" ? "play" : "computer";
    const status = $("#again-status");
    text(status, "Asking the board...");
    const answer = await page.request(`again ${r.game.id} ${ply} ${opponent}`);
    if (answer.event === "error") { text(status, answer.message || "The board refused."); return; }
    text(status, "Set up on the board: its lights show the pieces to place, a rank at a time. The game is kept as a new one.");
    location.hash = "#board";
  }

  document.addEventListener("crownhead:replay", showAgain);
  $("#again-before").addEventListener("click", () => { if (page.replay) tryAgain(page.replay.ply - 1); });
  $("#again-here").addEventListener("click", () => { if (page.replay) tryAgain(page.replay.ply); });
  showAgain();
})();
