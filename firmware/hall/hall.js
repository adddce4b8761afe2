// The hall page: every board small and live, one board's full view, the round's results,
// the standings and the crosstable. Boards are drawn by the board's own page component
// (CrownheadBoard, /static/board.js) over the server's drawing, read-only: a spectator
// sends nothing. Every text from a board goes in with textContent: names stay text.
"use strict";

(function () {
  const $ = (sel) => document.querySelector(sel);
  const text = (el, value) => { if (el) el.textContent = value == null ? "" : String(value); };
  function make(tag, value, cls) {
    const el = document.createElement(tag);
    text(el, value);
    if (cls) el.className = cls;
    return el;
  }

  const cards = new Map();  // board name -> {el, board, fields}
  let chosen = null;
  let boards = [];
  let standingsTag = null;
  const full = new CrownheadBoard($("#board"));  // no onSquare: clicks do nothing

  // The last move's squares, lit as the board's own LEDs show it (last-from, last-to).
  function lastMoveRoles(moves) {
    if (!moves || !moves.length) return {};
    const squares = String(moves[moves.length - 1]).split(/[-x]/).map(Number).filter((s) => s >= 1 && s <= 32);
    if (squares.length < 2) return {};
    return { "last-from": [squares[0]], "last-to": [squares[squares.length - 1]] };
  }

  function alertText(a) {
    return `${a.event}: ${a.message || a.reason || a.offence || a.side || ""}`;
  }

  function card(b) {
    let c = cards.get(b.name);
    if (!c) {
      const el = document.createElement("div");
      el.className = "board";
      el.dataset.board = b.name;
      const title = make("div");
      const mini = make("div", null, "mini");
      const names = make("div", null, "names");
      const line = make("div", null, "turn");
      const clocks = make("div", null, "clocks");
      const clock = {};
      for (const side of ["black", "white"]) {
        clock[side] = make("span", null, "clock");
        clock[side].dataset.cardClock = side;
        clocks.append(clock[side]);
      }
      const alerts = make("div");
      el.append(title, mini, names, line, clocks, alerts);
      el.addEventListener("click", () => choose(b.name));
      c = { el, board: new CrownheadBoard(mini), title, names, line, clocks, clock, alerts, fen: null };
      cards.set(b.name, c);
    }
    c.el.classList.toggle("offline", !b.online);
    c.el.classList.toggle("chosen", b.name === chosen);
    text(c.title, b.name + (b.online ? "" : " (offline)"));
    if (b.fen !== c.fen) {
      c.board.show({ board: CrownheadBoard.boardFromFen(b.fen || "") });
      c.fen = b.fen;
    }
    text(c.names, (b.black || "?") + " – " + (b.white || "?"));
    c.line.className = b.result ? "turn result" : "turn";
    text(c.line, b.result ? `${b.result} (${b.reason || ""})` : turnText(b));
    // Both clocks as the board last sent them, the side to move's marked (it is the one
    // that runs while the game goes on).
    const toMove = b.result ? null : CrownheadBoard.sideToMove(b.fen);
    c.clocks.hidden = !b.clocks;
    for (const side of ["black", "white"]) {
      const ms = b.clocks ? b.clocks[side] : null;
      text(c.clock[side], b.clocks ? `${side === "black" ? "Black" : "White"} ${CrownheadBoard.formatClock(ms)}` : "");
      c.clock[side].className = side === toMove ? "clock to-move" : "clock";
    }
    c.alerts.replaceChildren(...b.alerts.slice(-2).map((a) => make("div", alertText(a), "alert")));
    return c.el;
  }

  // "Move 5, White to move": the move about to be made, numbered as PDN and the board's
  // own page number it (Black's move and White's reply are one move).
  function turnText(b) {
    const side = CrownheadBoard.sideToMove(b.fen);
    if (!side) return b.online ? "no game yet" : "";
    const ply = Number(b.ply) || 0;
    const n = CrownheadBoard.moveNumber(ply + 1, CrownheadBoard.whiteBegan(b.fen, ply));
    return `Move ${n}, ${side === "black" ? "Black" : "White"} to move`;
  }

  function showDetail(b) {
    const box = $("#detail");
    if (!b) { box.hidden = true; return; }
    box.hidden = false;
    box.dataset.shown = b.name;
    text($("#dname"), `${b.name}${b.round ? ", round " + b.round : ""}${b.online ? "" : " (offline)"}`);
    full.show({ board: CrownheadBoard.boardFromFen(b.fen || ""), roles: lastMoveRoles(b.moves) });
    text($('.name[data-side="black"]'), b.black || "?");
    text($('.name[data-side="white"]'), b.white || "?");
    text($('[data-clock="black"]'), b.clocks ? CrownheadBoard.formatClock(b.clocks.black) : "");
    text($('[data-clock="white"]'), b.clocks ? CrownheadBoard.formatClock(b.clocks.white) : "");
    text($("#status"), b.status || "");
    const result = $("#result");
    result.hidden = !b.result;
    text(result, b.result ? `Result: ${b.result} (${b.reason || ""})` : "");
    const m = b.match;
    text($("#match"), m && m.players ? `Match: ${m.players[0]} ${m.marks[0]}, ${m.players[1]} ${m.marks[1]}` : "");
    $("#alerts").replaceChildren(...b.alerts.map((a) => make("li", alertText(a))));
    // One line per move, as on the board's own page, in PDN and on the sheets; each
    // ply a <span data-ply> of its own. Whether White began follows from the position
    // and the game's plies, both of the board's state (a ballot may give White the first move).
    const list = $("#moves");
    if (list.dataset.board !== b.name) { list.replaceChildren(); list.dataset.board = b.name; }
    const plies = b.ply == null ? b.moves.length : Number(b.ply);
    CrownheadBoard.fillMoves(list, b.moves, CrownheadBoard.whiteBegan(b.fen, plies));
  }

  function choose(name) {
    chosen = name;
    render();
  }

  // One line of "This round": a board's game, finished or going on.
  function resultRow(b) {
    const tr = document.createElement("tr");
    const verdict = b.verdict === "disputed" ? `disputed: ${b.why || ""}` : (b.verdict || "");
    // Moves, not plies: numbered as the board's page, PDN and the sheets number them.
    const moves = b.ply == null ? null : Math.ceil(Number(b.ply) / 2);
    const cells = [["board", b.name], ["round", b.round], ["black", b.black], ["white", b.white],
      ["result", b.result], ["moves", moves], ["counted", verdict]];
    for (const [col, v] of cells) {
      const td = make("td", v);
      td.dataset.col = col;
      if (col === "moves" && v != null) td.dataset.n = String(v);
      tr.appendChild(td);
    }
    if (b.verdict === "disputed") tr.className = "disputed";
    return tr;
  }

  function render() {
    const box = $("#boards");
    const seen = new Set();
    const rows = [];
    boards.forEach((b, i) => {
      seen.add(b.name);
      const el = card(b);
      // In the API's order (by name); a card already in place is not touched.
      if (box.children[i] !== el) box.insertBefore(el, box.children[i] || null);
      // The board's earlier games of the round first (a pair's first game), then its game now.
      for (const g of [...(b.earlier || []), b]) rows.push(resultRow(g));
    });
    for (const [name, c] of cards) {
      if (!seen.has(name)) { c.el.remove(); cards.delete(name); }
    }
    $("#results tbody").replaceChildren(...rows);
    showDetail(boards.find((b) => b.name === chosen) || null);
  }

  // Results the hall did not count, for the arbiter; boards it does not know, apart.
  function renderDisputed(list) {
    $("#disputed-box").hidden = !list.length;
    $("#disputed tbody").replaceChildren(...list.map((d) => {
      const tr = document.createElement("tr");
      const cells = [["board", d.board], ["round", d.round], ["black", d.black], ["white", d.white],
        ["result", d.result], ["reason", d.reason], ["why", d.why]];
      for (const [col, v] of cells) {
        const td = make("td", v);
        td.dataset.col = col;
        tr.appendChild(td);
      }
      return tr;
    }));
  }

  function renderOthers(list) {
    $("#others-box").hidden = !list.length;
    $("#others").replaceChildren(...list.map((o) => make("li", `${o.name} (${o.messages} message${o.messages === 1 ? "" : "s"})`)));
  }

  function renderStandings(t) {
    renderDisputed(t.disputed || []);
    const body = $("#standings tbody");
    body.replaceChildren(...t.players.map((p) => {
      const tr = document.createElement("tr");
      tr.dataset.player = p.name;
      for (const v of [p.rank, p.name, p.points_text, p.games, p.wdl, p.sonneborn_berger]) tr.appendChild(make("td", v));
      return tr;
    }));
    const head = document.createElement("tr");
    for (const v of ["#", "Player", "Points"]) head.appendChild(make("th", v));
    t.players.forEach((p, i) => head.appendChild(make("th", i + 1)));
    $("#crosstable thead").replaceChildren(head);
    $("#crosstable tbody").replaceChildren(...t.players.map((p, i) => {
      const tr = document.createElement("tr");
      tr.dataset.player = p.name;
      tr.append(make("td", p.rank), make("td", p.name), make("td", p.points_text));
      // The row lists only the opponents met; the others are empty cells.
      const met = new Map(t.crosstable[i].map((m) => [m.opponent, m.games]));
      t.players.forEach((q, j) => {
        const games = met.get(j) || [];
        const td = make("td", games.map((g) => `R${g.round} ${g.colour[0].toUpperCase()} ${g.score}`).join("\n"),
          i === j ? "self" : "cell");
        td.dataset.opponent = q.name;
        tr.appendChild(td);
      });
      return tr;
    }));
  }

  // The games far apart this broker carries: each small, its names, moves and result.
  const farCards = new Map();  // code -> {el, board, title, names, line}
  function renderFar(games) {
    $("#far-box").hidden = !games.length;
    const seen = new Set();
    for (const g of games) {
      seen.add(g.code);
      let c = farCards.get(g.code);
      if (!c) {
        const el = make("div", null, "board");
        el.dataset.far = g.code;
        const title = make("div");
        const mini = make("div", null, "mini");
        const names = make("div", null, "names");
        const line = make("div", null, "turn");
        el.append(title, mini, names, line);
        c = { el, board: new CrownheadBoard(mini), title, names, line };
        farCards.set(g.code, c);
        $("#far").appendChild(el);
      }
      const boardsText = Object.entries(g.boards || {}).map(([b, side]) => `${b} (${side})`).join(" - ");
      text(c.title, `${g.code.slice(0, 3)}-${g.code.slice(3)}${boardsText ? ": " + boardsText : ""}`);
      text(c.names, `${g.black || "Black"} - ${g.white || "White"}`);
      const n = (g.moves || []).length;
      const last = n ? g.moves[n - 1] : "";
      text(c.line, g.result ? `${g.result} (${g.reason})` : `${n} move${n === 1 ? "" : "s"}${last ? ", last " + last : ""}`);
      if (g.fen) c.board.show({ board: CrownheadBoard.boardFromFen(g.fen), roles: lastMoveRoles(g.moves) });
    }
    for (const [code, c] of farCards) if (!seen.has(code)) { c.el.remove(); farCards.delete(code); }
  }

  $("#flip").addEventListener("click", () => {
    full.setFlipped(!full.flipped);
    $("#detail").classList.toggle("flipped", full.flipped);
  });
  $("#close").addEventListener("click", () => choose(null));

  async function refresh() {
    try {
      const r = await fetch("/api/boards", { cache: "no-store" });
      if (r.ok) { boards = await r.json(); render(); }
      const o = await fetch("/api/others", { cache: "no-store" });
      if (o.ok) renderOthers(await o.json());
      const f = await fetch("/api/far", { cache: "no-store" });
      if (f.ok) renderFar(await f.json());
      // The hall answers 304 while the standings are those of standingsTag.
      const s = await fetch("/api/standings", {
        cache: "no-store", headers: standingsTag ? { "If-None-Match": standingsTag } : {},
      });
      if (s.status === 200) {
        standingsTag = s.headers.get("ETag");
        const t = await s.json();
        renderStandings(t);
        text($("#hallname"), t.hall);
      }
    } catch (e) { /* the hall server restarting: try again */ }
    setTimeout(refresh, 1000);
  }
  refresh();
})();
