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

  // Whose move it is in a PDN FEN ("W:W21:B1" -> "white"), or null.
  static sideToMove(fen) {
    const c = String(fen || "")[0];
    return c === "B" ? "black" : c === "W" ? "white" : null;
  }

  // Whether White made the game's first move, from the position after `ply` plies.
  static whiteBegan(fen, ply) {
    const side = CrownheadBoard.sideToMove(fen);
    if (!side) return false;
    return (side === "white") === (Number(ply) % 2 === 0);
  }

  // The move number of ply `ply` (1: the first), as PDN and the score sheets number
  // moves: Black's move and White's reply share one ("1. 11-15 23-19").
  static moveNumber(ply, whiteBegan) {
    return Math.floor((ply - 1 + (whiteBegan ? 1 : 0)) / 2) + 1;
  }

  // One line per move in `list` (a <ul>), as PDN and the sheets number them ("1. 11-15
  // 23-19"; a game White begins: "1. ... 22-18"), each ply a <span data-ply> of its own;
  // `onPly(ply)` called when one is clicked. Lines already right are left as they are.
  static fillMoves(list, moves, whiteStarts, onPly) {
    const rows = [];
    let ply = 1;
    let number = 1;
    if (whiteStarts && moves.length) { rows.push([number, [null, 1]]); ply = 2; number = 2; }
    for (; ply <= moves.length; ply += 2, number += 1) rows.push([number, ply + 1 <= moves.length ? [ply, ply + 1] : [ply]]);
    const key = rows.map(([n, plies]) => `${n}:${plies.map((p) => (p == null ? "..." : moves[p - 1])).join(" ")}`);
    const items = list.children;
    for (let i = 0; i < rows.length; i++) {
      const li = items[i];
      if (li && li.getAttribute("data-key") === key[i]) continue;
      const fresh = document.createElement("li");
      const [n, plies] = rows[i];
      fresh.setAttribute("data-move", String(n));
      fresh.setAttribute("data-key", key[i]);
      const label = document.createElement("span");
      label.className = "n";
      label.textContent = `${n}.`;
      fresh.append(label);
      for (const p of plies) {
        fresh.append(" ");
        const span = document.createElement("span");
        if (p == null) { span.textContent = "..."; } else {
          span.setAttribute("data-ply", String(p));
          span.textContent = moves[p - 1];
          if (onPly) span.addEventListener("click", () => onPly(p));
        }
        fresh.append(span);
      }
      if (li) li.replaceWith(fresh); else list.appendChild(fresh);
    }
    while (list.children.length > rows.length) list.lastElementChild.remove();
  }

  static boardFromFen(fen) {
    const pieces = CrownheadBoard.fenPieces(fen);
    let out = "";
    for (let s = 1; s <= 32; s++) out += pieces[s] || ".";
    return out;
  }
}

window.CrownheadBoard = CrownheadBoard;
