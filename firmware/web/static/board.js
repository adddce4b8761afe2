// The board view: the SVG board drawn by the server (firmware/diagram.py), kept up to date
// here by cloning the server's own drawings of pieces and role marks from <template>s.
// A reusable component: new CrownheadBoard(container) and then .show({...}).
"use strict";

class CrownheadBoard {
  // container: an element holding the server's <svg class="crownhead-board">.
  constructor(container, options = {}) {
    this.container = container;
    this.templates = document.getElementById("templates").content;
    this.flippedTemplate = document.getElementById("board-flipped");
    this.flipped = false;
    this.state = { board: "................................", roles: {}, target: null, blink: [] };
    this.onSquare = options.onSquare || null;
    if (!container.querySelector("svg")) {
      this._install(this._fresh(false));
    } else {
      this._bind(container.querySelector("svg"));
    }
  }

  _fresh(flipped) {
    const src = flipped
      ? this.flippedTemplate.content.querySelector("svg")
      : (CrownheadBoard._plain || (CrownheadBoard._plain = document.querySelector("#board svg").cloneNode(true)));
    const svg = src.cloneNode(true);
    for (const el of svg.querySelectorAll("[data-piece], .role, .ghost")) el.remove();
    for (const el of svg.querySelectorAll("[data-role]")) el.removeAttribute("data-role");
    return svg;
  }

  _install(svg) {
    this.container.replaceChildren(svg);
    this._bind(svg);
  }

  _bind(svg) {
    this.svg = svg;
    this.squares = {};
    for (const g of svg.querySelectorAll("[data-square]")) {
      this.squares[g.getAttribute("data-square")] = g;
    }
    svg.addEventListener("click", (ev) => {
      const g = ev.target.closest("[data-square]");
      if (g && this.onSquare) this.onSquare(Number(g.getAttribute("data-square")));
    });
  }

  setFlipped(flipped) {
    if (flipped === this.flipped) return;
    if (!CrownheadBoard._plain) CrownheadBoard._plain = this._fresh(false);
    this.flipped = flipped;
    const state = this.state;
    this.state = { board: "................................", roles: {}, target: null, blink: [] };
    this._install(this._fresh(flipped));
    this.show(state);
  }

  // board: 32 characters (b w B W . ?), roles: {role: [squares]}, target: FEN to set up or null.
  show({ board = this.state.board, roles = {}, target = null, blink = [] } = {}) {
    const bySquare = {};
    for (const [role, squares] of Object.entries(roles || {})) {
      for (const s of squares) bySquare[s] = role;
    }
    const want = target ? CrownheadBoard.fenPieces(target) : null;
    for (let s = 1; s <= 32; s++) {
      const g = this.squares[s];
      const piece = board[s - 1] || ".";
      const current = g.querySelector(":scope > [data-piece]");
      const have = current ? current.getAttribute("data-piece") : ".";
      const shown = "bwBW".includes(piece) ? piece : ".";
      if (have !== shown) {
        if (current) current.remove();
        if (shown !== ".") g.insertBefore(this._clone("piece", shown), g.querySelector(":scope > .role"));
      }
      // A piece the simulated hands put down that the game does not know.
      g.classList.toggle("unknown", piece === "?");
      const role = bySquare[s] || null;
      if ((g.getAttribute("data-role") || null) !== role) {
        const old = g.querySelector(":scope > .role");
        if (old) old.remove();
        if (role) {
          g.setAttribute("data-role", role);
          g.appendChild(this._clone("role", role));
        } else {
          g.removeAttribute("data-role");
        }
      }
      g.classList.toggle("blink", blink.includes(s));
      // Setting up: the piece that belongs here, ghosted, where the board is not right yet.
      const ghost = g.querySelector(":scope > .ghost");
      const wanted = want ? (want[s] || ".") : null;
      const ghostSymbol = wanted && wanted !== shown ? wanted : null;
      if ((ghost ? ghost.getAttribute("data-want") : null) !== ghostSymbol) {
        if (ghost) ghost.remove();
        if (ghostSymbol) {
          const el = ghostSymbol === "." ? this._emptyMark() : this._clone("piece", ghostSymbol);
          el.removeAttribute("data-piece");
          el.setAttribute("class", "ghost");
          el.setAttribute("data-want", ghostSymbol);
          g.appendChild(el);
        }
      }
    }
    this.state = { board, roles, target, blink };
  }

  _clone(kind, name) {
    const holder = this.templates.querySelector(`[data-template-${kind}="${CSS.escape(name)}"]`);
    if (!holder) {
      const g = document.createElementNS("http://www.w3.org/2000/svg", "g");
      g.setAttribute("class", kind);
      return g;
    }
    return holder.firstElementChild.cloneNode(true);
  }

  _emptyMark() {
    const g = document.createElementNS("http://www.w3.org/2000/svg", "g");
    const c = document.createElementNS("http://www.w3.org/2000/svg", "circle");
    c.setAttribute("cx", "50"); c.setAttribute("cy", "50"); c.setAttribute("r", "30");
    c.setAttribute("fill", "none"); c.setAttribute("stroke", "#fff");
    c.setAttribute("stroke-width", "4"); c.setAttribute("stroke-dasharray", "6 6");
    g.appendChild(c);
    return g;
  }

  // {square: symbol} of a PDN FEN such as "B:W21,22,K23:B1-12".
  static fenPieces(fen) {
    const out = {};
    const fields = String(fen).split(":").slice(1);
    for (const field of fields) {
      const colour = field[0] === "B" ? "b" : field[0] === "W" ? "w" : null;
      if (!colour) continue;
      for (let item of field.slice(1).split(",")) {
        item = item.trim().replace(/\.$/, "");
        if (!item) continue;
        let king = false;
        if (item[0] === "K") { king = true; item = item.slice(1); }
        const range = item.split("-").map(Number);
        const [a, b] = range.length === 2 ? range : [range[0], range[0]];
        for (let s = a; s <= b; s++) if (s >= 1 && s <= 32) out[s] = king ? colour.toUpperCase() : colour;
      }
    }
    return out;
  }

  // A clock's time left as the board's pages show it: "4:05", "1:02:03", "-0:07" past the
  // flag; "" for no time at all (a board that sent none).
  static formatClock(ms) {
    if (typeof ms !== "number" || !Number.isFinite(ms)) return "";
    const neg = ms < 0;
    let s = Math.floor(Math.abs(ms) / 1000);
    const h = Math.floor(s / 3600); s -= h * 3600;
    const m = Math.floor(s / 60); s -= m * 60;
    const mm = h ? String(m).padStart(2, "0") : String(m);
    return (neg ? "-" : "") + (h ? `${h}:` : "") + `${mm}:${String(s).padStart(2, "0")}`;
  }

  static boardFromFen(fen) {
    const pieces = CrownheadBoard.fenPieces(fen);
    let out = "";
    for (let s = 1; s <= 32; s++) out += pieces[s] || ".";
    return out;
  }
}

window.CrownheadBoard = CrownheadBoard;
