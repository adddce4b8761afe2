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
    // Drag and drop: onDrag(from, to) when a piece is dragged from one square to
    // another; canDrag(square) says whether the piece there may be (a page that may
    // only watch drags nothing).
    this.onDrag = options.onDrag || null;
    this.canDrag = options.canDrag || (() => true);
    this.drag = null;
    this.dragged = false;
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
    this.corners = {};
    for (const g of svg.querySelectorAll("[data-square]")) {
      const square = g.getAttribute("data-square");
      this.squares[square] = g;
      const at = /translate\(\s*([-\d.]+)[ ,]+([-\d.]+)\s*\)/.exec(g.getAttribute("transform") || "");
      this.corners[square] = at ? [Number(at[1]), Number(at[2])] : [0, 0];
      // The number above the piece, where a piece would hide it on a phone.
      const num = g.querySelector(":scope > .num");
      if (num) g.appendChild(num);
    }
    svg.addEventListener("click", (ev) => {
      // The click that ends a drag is not a click on a square.
      if (this.dragged) return;
      const g = ev.target.closest("[data-square]");
      if (g && this.onSquare) this.onSquare(Number(g.getAttribute("data-square")));
    });
    if (this.onDrag) {
      svg.addEventListener("pointerdown", (ev) => this._dragStart(ev));
      svg.addEventListener("pointermove", (ev) => this._dragMove(ev));
      svg.addEventListener("pointerup", (ev) => this._dragEnd(ev));
      svg.addEventListener("pointercancel", () => this._dragEnd(null));
    }
  }

  // The square under a point of the screen, from the drawing's geometry (the dragged
  // piece itself is under the pointer), or null off the dark squares.
  squareAt(clientX, clientY) {
    const rect = this.svg.getBoundingClientRect();
    const box = this.svg.viewBox.baseVal;
    if (!rect.width || !box || !box.width) return null;
    const x = box.x + (clientX - rect.left) * box.width / rect.width;
    const y = box.y + (clientY - rect.top) * box.height / rect.height;
    const cell = box.width / 8;
    for (const [square, [cx, cy]] of Object.entries(this.corners)) {
      if (x >= cx && x < cx + cell && y >= cy && y < cy + cell) return Number(square);
    }
    return null;
  }

  _dragStart(ev) {
    if (ev.button !== 0 || this.drag) return;
    const g = ev.target.closest("[data-square]");
    if (!g) return;
    const piece = g.querySelector(":scope > [data-piece]");
    const square = Number(g.getAttribute("data-square"));
    if (!piece || !this.canDrag(square)) return;
    this.drag = { from: square, g, piece, id: ev.pointerId, x: ev.clientX, y: ev.clientY, moving: false };
  }

  _dragMove(ev) {
    const d = this.drag;
    if (!d || ev.pointerId !== d.id) return;
    const dx = ev.clientX - d.x;
    const dy = ev.clientY - d.y;
    // A few pixels of a shaky tap are still a tap.
    if (!d.moving && Math.hypot(dx, dy) < 6) return;
    if (!d.moving) {
      d.moving = true;
      try { this.svg.setPointerCapture(d.id); } catch (e) { /* the pointer is gone */ }
      d.g.classList.add("dragging");
      this.svg.appendChild(d.g);  // drawn over the other squares while it moves
    }
    const rect = this.svg.getBoundingClientRect();
    const scale = this.svg.viewBox.baseVal.width / rect.width;
    d.piece.setAttribute("transform", `translate(${dx * scale},${dy * scale})`);
    ev.preventDefault();
  }

  _dragEnd(ev) {
    const d = this.drag;
    if (!d || (ev && ev.pointerId !== d.id)) return;
    this.drag = null;
    if (!d.moving) return;  // a tap: the click that follows is the square's
    d.piece.removeAttribute("transform");
    d.g.classList.remove("dragging");
    this.dragged = true;
    setTimeout(() => { this.dragged = false; }, 0);
    const to = ev ? this.squareAt(ev.clientX, ev.clientY) : null;
    if (to && to !== d.from) this.onDrag(d.from, to);
  }

  // Squares the page marks by itself (a piece chosen, where it may go): {class: [squares]}.
  mark(marks) {
    for (const cls of ["chosen", "may-go"]) {
      const on = new Set((marks && marks[cls]) || []);
      for (const [square, g] of Object.entries(this.squares)) g.classList.toggle(cls, on.has(Number(square)));
    }
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
        if (shown !== ".") g.insertBefore(this._clone("piece", shown), g.querySelector(":scope > .role, :scope > .num"));
      }
      // A piece the simulated hands put down that the game does not know.
      g.classList.toggle("unknown", piece === "?");
      const role = bySquare[s] || null;
      if ((g.getAttribute("data-role") || null) !== role) {
        const old = g.querySelector(":scope > .role");
        if (old) old.remove();
        if (role) {
          g.setAttribute("data-role", role);
          g.insertBefore(this._clone("role", role), g.querySelector(":scope > .num"));
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
          g.insertBefore(el, g.querySelector(":scope > .num"));
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
  // Why a game ended, in words, as rules/game.py's reason_words says it: a side that
  // cannot move is named, and said to have no pieces left when the final position (`fen`)
  // or, before it is known, the board (`boardText`, its 32 squares) shows none. The
  // board's codes ("no-moves", "forty-moves") are never shown as they are.
  static reasonWords(result, reason, fen, boardText = "") {
    if (reason === "no-moves") {
      let stuck = result === "1-0" ? "white" : result === "0-1" ? "black" : null;
      if (fen) stuck = String(fen).trim()[0].toUpperCase() === "W" ? "white" : "black";
      if (!stuck) return "no move left";
      const side = stuck === "white" ? "White" : "Black";
      const left = fen ? Object.values(CrownheadBoard.fenPieces(fen)).join("") : boardText || "";
      if (left && !left.toLowerCase().includes(stuck[0])) return `${side} has no pieces left`;
      return `${side} cannot move`;
    }
    return CrownheadBoard.REASONS[reason] || String(reason || "").replace(/-/g, " ");
  }

  static moveNumber(ply, whiteBegan) {
    return Math.floor((ply - 1 + (whiteBegan ? 1 : 0)) / 2) + 1;
  }

  // One line per move in `list` (a <ul>), as PDN and the sheets number them ("1. 11-15
  // 23-19"; a game White begins: "1. ... 22-18"), each ply a <span data-ply> of its own;
  // `onPly(ply)` called when one is clicked. Lines already right are left as they are.
  // `first`: the number of the game's first move (a game tried again from move 6: 6).
  static fillMoves(list, moves, whiteStarts, onPly, first = 1) {
    const rows = [];
    let ply = 1;
    let number = first;
    if (whiteStarts && moves.length) { rows.push([number, [null, 1]]); ply = 2; number = first + 1; }
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

CrownheadBoard.REASONS = {
  resign: "resignation",
  repetition: "repetition",
  "forty-moves": "forty-move rule",
  agreement: "agreement",
  problem: "the problem's verdict",
};

window.CrownheadBoard = CrownheadBoard;
