// The phone's page: the other side of a game far apart, played without a board
// (docs/remote.md). It speaks the host link's protocol (docs/protocol.md) over the board's
// WebSocket, as the board's page does: `moves` gives the rules' legal moves, `hands MOVE`
// makes one on the board of no hardware, which sends it to the board far away. Every text
// from the board goes in with textContent: names and comments stay text.
"use strict";

(function () {
  const $ = (sel) => document.querySelector(sel);
  const text = (el, value) => { if (el) el.textContent = value == null ? "" : String(value); };
  const plays = document.body.getAttribute("data-plays");
  const far = plays === "black" ? "white" : "black";
  const sideName = (side) => (side === "black" ? "Black" : "White");

  const page = {
    socket: null, retry: 500, control: false, view: null, ply: -1, turn: null, legal: [],
    selected: null, targets: new Set(), moves: [], start: null, clock: null, clockAt: 0, ticker: null,
    offer: null, over: false,
  };
  window.crownheadPhone = page;  // for tests and people poking at it in the console

  const board = new CrownheadBoard($("#board"), { onSquare: tap });
  board.setFlipped(plays === "black");  // the player's own men at the bottom (Black's begin at the top)

  function connect() {
    if (page.socket && page.socket.readyState <= WebSocket.OPEN) return;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}/ws`);
    page.socket = socket;
    setConnection("connecting");
    socket.onopen = () => { page.retry = 500; setConnection("live"); send("hello"); };
    socket.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg && typeof msg === "object") handle(msg);
    };
    socket.onclose = () => {
      if (page.socket !== socket) return;  // let go for a new one (see reconnect)
      page.socket = null;
      setConnection("offline");
      setTimeout(() => access().then(connect), page.retry);
      page.retry = Math.min(page.retry * 2, 5000);
    };
  }

  // A new socket at once, the old one let go (a login: the session's right to play comes
  // with the socket). The page is not live again until the new one is open: a closing
  // socket still reads as live until its close event, and a move sent on it is lost.
  function reconnect() {
    const old = page.socket;
    page.socket = null;
    if (old) old.close();
    connect();
  }

  function setConnection(state) {
    const el = $("#connection");
    el.setAttribute("data-state", state);
    text(el, { live: "live", offline: "offline: reconnecting", login: "log in to play" }[state] || "connecting");
  }

  const OFFLINE = "not connected: the page reconnects by itself";
  const live = () => !!page.socket && page.socket.readyState === WebSocket.OPEN;

  function send(command) {
    if (live()) { page.socket.send(command); return true; }
    say(OFFLINE);
    return false;
  }

  function handle(msg) {
    const kind = msg.event;
    if (kind === "view") {
      showView(msg);
    } else if (kind === "hello" || (kind === "reply" && msg.cmd === "hello")) {
      if (msg.state) {
        page.start = msg.state.start;
        const why = CrownheadBoard.reasonWords(msg.state.result, msg.state.reason, msg.state.fen);
        showResult(msg.state.result ? `${msg.state.result} (${why})` : null);
      }
      send("history");
    } else if (kind === "reply" && msg.cmd === "moves") {
      page.turn = msg.turn;
      page.legal = (msg.moves || []).map((t) => ({ text: t, squares: String(t).split(/[-x]/).map(Number) }));
      showTurn();
    } else if (kind === "reply" && msg.cmd === "history") {
      if (msg.from === 0) page.moves = [];
      page.moves = page.moves.slice(0, msg.from).concat(msg.moves);
      page.start = msg.start;
      CrownheadBoard.fillMoves($("#moves"), page.moves, /^W/i.test(String(page.start || "")));
      if (msg.next != null) send(`history ${msg.next}`);
    } else if (kind === "error") {
      say(`${msg.cmd ? msg.cmd + ": " : ""}${msg.message}`);
    } else if (kind === "draw-offer") {
      page.offer = { side: msg.side, ply: msg.ply };
      showOffers();
    } else if (kind === "move" || kind === "takeback" || kind === "new-game") {
      page.offer = null;
      showOffers();
      send("history");
      if (kind === "new-game") showResult(null);
    } else if (kind === "game-over") {
      showResult(`${msg.result} (${CrownheadBoard.reasonWords(msg.result, msg.reason, null)})`);
    } else if (kind === "notice" || kind === "warning" || kind === "claim") {
      text($("#notice"), msg.message);  // a claim refused says why
    }
  }

  function showView(v) {
    page.view = v;
    board.show({ board: v.board, roles: v.roles, target: v.target, blink: v.blink });
    text($("#warning"), v.warning);
    text($("#away"), v.away);  // the broker or the other board out of reach: the grace left
    if (v.names) {
      const [black, white] = v.names;
      const known = (name) => (name && name !== "?" ? name : "");
      text($("#my-name"), `${sideName(plays)} ${known(plays === "black" ? black : white)} (you)`);
      text($("#far-name"), `${sideName(far)} ${known(far === "black" ? black : white)}`);
    }
    page.clock = v.clock;
    page.clockAt = performance.now();
    tick();
    const running = !!(v.clock && v.clock.running);
    if (running && !page.ticker) page.ticker = setInterval(tick, 200);
    if (!running && page.ticker) { clearInterval(page.ticker); page.ticker = null; }
    if (v.ply !== page.ply) {
      page.ply = v.ply;
      showOffers();
      choose(null);
      page.legal = [];
      page.turn = null;
      send("moves");
      if (v.ply !== page.moves.length && !v.target) send("history");
    }
    showTurn();
  }

  function tick() {
    for (const [side, el] of [[plays, $("#my-clock")], [far, $("#far-clock")]]) {
      if (!page.clock) { text(el, ""); continue; }
      let ms = page.clock[side];
      const running = page.clock.running === side;
      if (running) ms -= performance.now() - page.clockAt;
      text(el, CrownheadBoard.formatClock(ms));
      el.classList.toggle("running", running);
    }
  }

  function showTurn() {
    let words;
    if (page.over) words = "The game is over.";
    else if (page.view && page.view.target) words = "The board far away is being set up for the game.";
    else if (page.turn === plays) words = page.legal.length ? "Your move: tap a piece, then where it goes." : "Your move.";
    else if (page.turn === far) words = `${sideName(far)} to move, on the board far away.`;
    else words = "";
    text($("#turn"), words);
  }

  // A draw offer stands until the next move (the board's own rule); a takeback asked for
  // is said by the board (a notice): the same button asks, or agrees when asked.
  function showOffers() {
    const offer = page.offer && page.offer.ply === page.ply ? page.offer : null;
    let words = "";
    if (offer && offer.side === far) words = `${sideName(far)} offers a draw: tap Accept the draw, or play on to decline.`;
    if (offer && offer.side === plays) words = "You offered a draw: it stands until the next move.";
    text($("#offer"), words);
    text($("#draw"), offer && offer.side === far ? "Accept the draw" : "Offer a draw");
  }

  function showResult(result) {
    page.over = !!result;
    const el = $("#result");
    el.hidden = !result;
    text(el, result ? `Result: ${result}` : "");
    showTurn();
  }

  function say(message) { text($("#page-message"), message); }

  // Tap a piece of your side, then where it goes: only the rules' legal moves are offered.
  function tap(square) {
    if (!page.control) { say("Log in with the PIN (at the top) to play."); return; }
    if (!live()) { say(OFFLINE); return; }  // the choice stands: tap again once live
    if (page.turn !== plays || page.over) { say("It is not your move."); return; }
    const from = page.selected;
    if (from != null && page.targets.has(square)) {
      const moves = page.legal.filter((m) => m.squares[0] === from && m.squares[m.squares.length - 1] === square);
      choose(null);
      if (moves.length === 1) { say(""); send(`hands ${moves[0].text}`); }
      else say(`There are ${moves.length} ways to jump from ${from} to ${square}: ${moves.map((m) => m.text).join(" or ")}. ` +
        "Tap the piece again and choose by the first landing square.");
      return;
    }
    if (from === square) { choose(null); return; }
    const moves = page.legal.filter((m) => m.squares[0] === square);
    if (!moves.length) { choose(null); say(`No move from ${square} now.`); return; }
    say("");
    choose(square, moves.map((m) => m.squares[m.squares.length - 1]));
  }

  function choose(square, targets = []) {
    page.selected = square;
    page.targets = new Set(targets);
    board.mark(square == null ? {} : { chosen: [square], "may-go": targets });
  }

  $("#draw").addEventListener("click", () => send(`draw ${plays}`));
  $("#takeback").addEventListener("click", () => send("press takeback"));
  $("#claim").addEventListener("click", () => send("press claim"));
  $("#resign").addEventListener("click", () => {
    if (window.confirm("Resign the game?")) send(`resign ${plays}`);
  });

  async function access() {
    try {
      const me = await (await fetch("/api/me", { cache: "no-store" })).json();
      page.control = !!me.control;
      $("#login").hidden = me.control || !me.login;
    } catch (e) { /* offline: the socket says so */ }
  }

  $("#login").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const response = await fetch("/api/login", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ pin: $("#pin").value }),
    });
    const data = await response.json().catch(() => ({}));
    text($("#login-message"), response.ok ? "logged in" : data.message || "refused");
    $("#pin").value = "";
    if (response.ok) {
      await access();
      reconnect();  // back as one that may play
    }
  });

  access().then(connect);
})();
