// The page's non-visual mode (docs/voice.md): every sentence the board's voice says, read
// out by the screen reader from an ARIA live region; every square reachable by keyboard
// and named by what stands on it; the voice's requests as buttons. Moves are typed into
// the move field ("11-15"). Kept apart from app.js: it hears the page's lines through the
// "crownhead:line" event app.js dispatches, and acts only through the page's own controls.
"use strict";

(function () {
  const LIMIT = 60;  // sentences kept in the region (a screen reader reads each once)
  const NAMES = { b: "black man", w: "white man", B: "black king", W: "white king" };

  function addSentence(msg) {
    const region = document.getElementById("speech");
    if (!region || typeof msg.text !== "string") return;
    const item = document.createElement("li");
    item.textContent = msg.text;  // text, never markup
    if (typeof msg.lang === "string" && /^[a-z]{2}$/.test(msg.lang)) item.lang = msg.lang;
    if (typeof msg.about === "string") item.dataset.kind = msg.about;
    region.appendChild(item);
    region.dataset.count = String(Number(region.dataset.count || 0) + 1);
    while (region.children.length > LIMIT) region.firstElementChild.remove();
    if (msg.about === "warning" || msg.about === "ruling" || msg.about === "clock") {
      const urgent = document.getElementById("speech-alert");
      if (urgent) urgent.textContent = msg.text;
    }
  }

  window.addEventListener("crownhead:line", (ev) => {
    const msg = ev.detail;
    if (msg && msg.event === "spoken") addSentence(msg);
  });

  // -- the squares ----------------------------------------------------------------------

  function nameSquare(g) {
    const square = g.getAttribute("data-square");
    const piece = g.querySelector(":scope > [data-piece]");
    const what = piece ? NAMES[piece.getAttribute("data-piece")] || "a piece" : "empty";
    const label = `Square ${square}: ${what}`;
    if (g.getAttribute("aria-label") !== label) g.setAttribute("aria-label", label);
  }

  // The board is one Tab stop (a roving focus, as ARIA's grid pattern has it): one square
  // at a time has tabindex 0, the one last focused (square 1 at first); the arrows walk the
  // squares, Home and End go to 1 and 32. 32 Tab stops stood between the page's top and
  // the move field.
  let current = "1";

  function rove(square) {
    current = String(square);
    const board = document.getElementById("board");
    if (!board) return;
    for (const g of board.querySelectorAll("[data-square]")) {
      const stop = g.getAttribute("data-square") === current ? "0" : "-1";
      if (g.getAttribute("tabindex") !== stop) g.setAttribute("tabindex", stop);
    }
  }

  function onKey(ev) {
    const g = ev.currentTarget;
    if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      g.dispatchEvent(new MouseEvent("click", { bubbles: true }));  // as a click on it
      return;
    }
    // Arrows walk the dark squares by number: up and down a row (4), left and right one.
    const here = Number(g.getAttribute("data-square"));
    const step = { ArrowUp: -4, ArrowDown: 4, ArrowLeft: -1, ArrowRight: 1 }[ev.key];
    const next = ev.key === "Home" ? 1 : ev.key === "End" ? 32 : step ? here + step : null;
    if (next == null) return;
    const target = g.ownerSVGElement && g.ownerSVGElement.querySelector(`[data-square="${next}"]`);
    if (target) { ev.preventDefault(); rove(next); target.focus(); }
  }

  function bindSquares() {
    const board = document.getElementById("board");
    if (!board) return;
    for (const g of board.querySelectorAll("[data-square]")) {
      if (!g.hasAttribute("role")) {
        g.setAttribute("role", "button");
        g.addEventListener("keydown", onKey);
        g.addEventListener("focus", () => rove(g.getAttribute("data-square")));
      }
      const stop = g.getAttribute("data-square") === current ? "0" : "-1";
      if (g.getAttribute("tabindex") !== stop) g.setAttribute("tabindex", stop);
      nameSquare(g);
    }
  }

  function start() {
    const board = document.getElementById("board");
    if (board) {
      // The board redraws pieces (and the whole drawing when flipped): names follow it.
      new MutationObserver(bindSquares).observe(board, { childList: true, subtree: true });
    }
    bindSquares();
    // The voice's speak button, short and long, as the board's own (the answers come back
    // as sentences in the region).
    for (const button of document.querySelectorAll("[data-speak]")) {
      button.addEventListener("click", () => {
        const page = window.crownhead;
        if (page && typeof page.send === "function") page.send(`press ${button.getAttribute("data-speak")}`);
      });
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
