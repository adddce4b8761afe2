// The board's page: speaks the host link's protocol (docs/protocol.md) over a WebSocket.
// Every text from the board goes in with textContent: names and comments stay text.
"use strict";

(function () {
  const $ = (sel) => document.querySelector(sel);
  const $$ = (sel) => Array.from(document.querySelectorAll(sel));
  const text = (el, value) => { if (el) el.textContent = value == null ? "" : String(value); };

  const page = {
    socket: null,
    identity: {},
    view: null,
    moves: [],
    start: null,
    ply: 0,
    sim: false,
    control: false,
    selected: null,
    targets: new Set(),
    clock: null,
    clockAt: 0,
    ticker: null,
    retry: 500,
    mayWatch: true,
    wanted: [],
    commands: new Set(),
    // Commands sent with request(), by name, oldest first: each waits for its reply.
    asked: new Map(),
    // What of this game the log already says: its plies, and whether its end. A page
    // opened mid-game logs the rest from the history, and nothing is logged twice.
    logged: new Set(),
    loggedOver: false,
    loggedGame: null,
    resultText: null,
    analysis: null,
    // Analysis lines heard: an answer to GET /api/analysis older than one of them is dropped.
    analysisLines: 0,
  };
  window.crownhead = page;  // for people poking at it in the console, and for tests
  page.send = send;  // the page's other modules (speech.js) send through the same socket

  // Any piece may be dragged; a page that may only watch is told why nothing moves.
  const board = new CrownheadBoard($("#board"), { onSquare: clickSquare, onDrag: dragMove });
  page.board = board;  // review.js shows a position of the move list on it

  // -- the socket -------------------------------------------------------------------------

  function connect() {
    // A board on a network that lets only the logged-in watch refuses the socket: the page
    // says so and waits for the PIN instead of knocking again and again as if offline.
    if (!page.mayWatch) { setConnection("login"); return; }
    if (page.socket && page.socket.readyState <= WebSocket.OPEN) return;  // one socket at a time
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}/ws`);
    page.socket = socket;
    setConnection("connecting");
    socket.onopen = () => { page.retry = 500; setConnection("live"); };
    socket.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg && typeof msg === "object") {
        handle(msg);
        // The page's other modules (speech.js) hear every line too.
        window.dispatchEvent(new CustomEvent("crownhead:line", { detail: msg }));
      }
    };
    socket.onclose = () => {
      setConnection("offline");
      if (page.socket === socket) page.socket = null;
      // Asked again first: a session that ended leaves the page to log in again.
      setTimeout(() => checkAccess().then(connect), page.retry);
      page.retry = Math.min(page.retry * 2, 5000);
    };
  }

  function setConnection(state) {
    const el = $("#connection");
    el.setAttribute("data-state", state);
    const words = { live: "live", offline: "offline: reconnecting", login: "log in to watch" };
    text(el, words[state] || "connecting");
  }

  function send(command) {
    if (page.socket && page.socket.readyState === WebSocket.OPEN) {
      page.socket.send(command);
      return true;
    }
    addLog("error", "not connected: " + command);
    return false;
  }
  page.send = send;
  page.request = request;  // review.js waits for the answer to its `again`
  page.connect = connect;  // a test reconnects a page it took offline

  // Send a command and wait for its answer: the reply, or the error that refused it
  // (the board answers a page's lines in order; replies and errors name their command).
  function request(command) {
    return new Promise((resolve) => {
      const name = command.split(" ")[0];
      if (!send(command)) { resolve({ event: "error", cmd: name, message: "not connected" }); return; }
      if (!page.asked.has(name)) page.asked.set(name, []);
      const entry = { resolve };
      page.asked.get(name).push(entry);
      // A socket that closes meanwhile never answers: the page goes on after a while.
      entry.timer = setTimeout(() => settle({ event: "error", cmd: name, message: "no answer from the board" }, entry), 15000);
    });
  }
  function settle(msg, only) {
    const waiting = page.asked.get(msg.cmd);
    if (!waiting || !waiting.length) return;
    const entry = only || waiting[0];
    const i = waiting.indexOf(entry);
    if (i < 0) return;
    waiting.splice(i, 1);
    clearTimeout(entry.timer);
    entry.resolve(msg);
  }

  // -- what the board says ----------------------------------------------------------------

  function handle(msg) {
    const kind = msg.event;
    if (kind === "hello" || (kind === "reply" && msg.cmd === "hello")) {
      page.identity = msg;
      setState(msg.state);
      showNames(msg.black, msg.white);
      send("history");
      page.commands = new Set();
      send("help");
      loadAnalysis();
    } else if (kind === "state") {
      setState(msg);
      send("history");
    } else if (kind === "view") {
      showView(msg);
    } else if (kind === "move") {
      if (msg.ply === page.moves.length + 1) {
        page.moves.push(msg.move);
        showMoves();
      } else {
        send("history");
      }
      logMove(msg.ply, msg.side, msg.move);
    } else if (kind === "takeback" || kind === "new-game" || kind === "game-start") {
      send("history");
      if (kind === "takeback") {
        addLog("takeback", `${moveNumber(msg.ply)} ${sideName(plySide(msg.ply))}'s move taken back`);
        // The plies taken back may be played again: each is logged again then.
        for (const ply of Array.from(page.logged)) if (ply >= msg.ply) page.logged.delete(ply);
        page.loggedOver = false;
      } else {
        page.logged = new Set();
        page.loggedOver = false;
      }
      if (kind === "new-game") { addLog("new-game", "new game"); showResult(null); }
    } else if (kind === "reply") {
      onReply(msg);
      settle(msg);
    } else if (kind === "error") {
      addLog("error", `${msg.cmd ? msg.cmd + ": " : ""}${msg.message}`);
      settle(msg);
    } else if (kind === "analysis") {
      page.analysisLines += 1;
      showAnalysis(msg);
    } else if (kind === "clock" || kind === "spoken" || kind === "far") {
      // The clocks above and below the board show the time, "The board says" lists the
      // sentences (speech.js), "Game far apart" its state (far.js): the log would fill with them.
    } else if (kind === "game-over") {
      showResult(`${msg.result} (${reasonWords(msg.result, msg.reason, null)})`);
      logOver();
    } else if (kind === "caution") {
      addLog("caution", `caution for ${msg.side || ""}: ${msg.message || msg.offence || ""}`.trim());
    } else if (kind === "warning" || kind === "notice") {
      addLog(kind, msg.message);
    } else if (kind === "computer-move") {
      addLog("computer-move", `the computer plays ${msg.move}`);
    } else if (kind === "problem") {
      addLog("problem", problemWords(msg));  // the Problems section shows it (problems.js)
    } else if (kind === "game-saved") {
      addLog("game-saved", `game saved: ${msg.result}`);
    } else if (kind === "overrun") {
      addLog("notice", msg.message);
    } else if (kind === "setup-rank") {
      addLog(kind, `set up rank ${msg.rank}: squares ${msg.first} to ${msg.last}`);
    } else if (kind) {
      // An event the log has no words for: its kind in words, never the code itself.
      const detail = msg.message || msg.move || msg.result || "";
      const words = kind.replace(/-/g, " ");
      addLog(kind, `${words}${detail ? ": " + detail : ""}`);
    }
  }

  // Why a game ended, in words (board.js): a side without a move named, never "no-moves".
  function reasonWords(result, reason, fen) {
    return CrownheadBoard.reasonWords(result, reason, fen, page.view ? page.view.board : "");
  }

  // A problem event in the log's few words.
  function problemWords(msg) {
    if (msg.cause === "begin") return `problem ${msg.id}: ${msg.task}`;
    if (msg.cause === "hint") return `problem ${msg.id}: hint ${msg.hint}`;
    if (msg.cause === "verdict") return `problem ${msg.id} ${msg.status === "solved" ? "solved" : "not solved"}: ${msg.reason}`;
    return "the problems are left";
  }

  function onReply(msg) {
    if (msg.cmd === "help") {
      // The commands this board knows: per-side draw and resign where it has them.
      for (const line of msg.commands || []) page.commands.add(String(line).split(/[\s:]/)[0]);
      if (msg.next != null) send(`help ${msg.next}`);
    } else if (msg.cmd === "history") {
      if (msg.from === 0) page.moves = [];
      page.moves = page.moves.slice(0, msg.from).concat(msg.moves);
      page.start = msg.start;
      page.first = Number(msg.first) || 1;
      showMoves();
      if (msg.next != null) send(`history ${msg.next}`);
      else logHistory();
    } else if (msg.cmd === "play") {
      // Lit for the person at the board; the move is logged when it is made there.
      addLog("reply", `${msg.move} is lit: make it on the board`);
    } else if (msg.cmd === "new" && !msg.ready) {
      // A game that stands at once says "new game" by its event; this one waits.
      addLog("reply", "new game: set up the pieces");
    } else if (msg.cmd === "press") {
      addLog("reply", `pressed ${buttonWords(msg.button)}${msg.long ? " (held)" : ""}`);
    } else if (msg.cmd === "names") {
      showNames(msg.black, msg.white);
    }
  }

  // Move numbers as on a score sheet: "1." for Black's move, "1..." for White's reply.
  function whiteFirst() { return /^W/i.test(String(page.start || "")); }
  function plySide(ply) { return (ply % 2 === 1) !== whiteFirst() ? "black" : "white"; }
  function moveNumber(ply) {
    // Counted from the game's first move (a game tried again goes on from its move).
    const n = CrownheadBoard.moveNumber(ply, whiteFirst()) + (page.first || 1) - 1;
    return plySide(ply) === "black" ? `${n}.` : `${n}...`;
  }
  function sideName(side) { return side === "black" ? "Black" : side === "white" ? "White" : String(side || ""); }
  // The board's button names as people say them ("black_draw": Black's draw button).
  function buttonWords(name) {
    const [side, action] = String(name).split("_");
    if (side === "black" || side === "white") return `${sideName(side)}'s ${action ? action + " " : ""}button`;
    return `the ${name} button`;
  }

  function setState(state) {
    if (!state) return;
    // Another game than the one the log followed (begun while the page was away): its
    // moves are logged afresh from its history.
    if (state.game != null && state.game !== page.loggedGame) {
      page.loggedGame = state.game;
      page.logged = new Set();
      page.loggedOver = false;
    }
    page.ply = state.ply;
    page.start = state.start;
    showResult(state.result ? `${state.result} (${reasonWords(state.result, state.reason, state.fen)})` : null);
    if (!page.view) board.show({ board: CrownheadBoard.boardFromFen(state.fen) });
  }

  // Beside the side's word ("Black", "White"): a name the board does not know ("?" in PDN)
  // is left out rather than shown as a question mark.
  function showNames(black, white) {
    const known = (name) => (name === "?" ? "" : name);
    if (black != null) text($('.name[data-side="black"]'), known(black));
    if (white != null) text($('.name[data-side="white"]'), known(white));
  }

  function showResult(result) {
    page.over = !!result;
    page.resultText = result;
    const el = $("#result");
    el.hidden = !result;
    text(el, result ? `Result: ${result}` : "");
  }

  function showView(v) {
    // A piece chosen for tap-tap is forgotten once the game moves on.
    if (page.selected != null && page.view && page.view.ply !== v.ply) choose(null);
    page.view = v;
    page.sim = !!v.sim;
    document.body.classList.toggle("sim", page.sim);
    // While a move of the list is shown (review.js), the board stays on that position.
    if (!page.preview) board.show({ board: v.board, roles: v.roles, target: v.target, blink: v.blink });
    text($("#status"), v.status);
    text($("#prompt"), pageWords(v.prompt));
    text($("#warning"), v.warning);
    // A game far apart waiting for the broker or the other board: its grace period's time left.
    text($("#away"), v.away);
    text($("#message"), v.message);
    text($("#mode"), v.mode);
    text($("#match"), v.match || "");
    // The board's buttons that do something in this game (no hint under a referee...).
    const controls = new Set(v.controls || ["hint", "takeback", "adjust", "claim", "force", "clock"]);
    for (const button of $$("[data-press]")) button.hidden = !controls.has(button.getAttribute("data-press"));
    $("#hints-control").hidden = !controls.has("hint");
    text($("#hand"), v.hand ? `in hand: ${v.hand.split("").map(pieceName).join(", ")}` : "");
    if (v.names) showNames(v.names[0], v.names[1]);
    const setup = $("#setup");
    if (v.target) {
      setup.hidden = false;
      text(setup, setupText(v.board, v.target));
    } else {
      setup.hidden = true;
      text(setup, "");
    }
    for (const side of ["black", "white"]) {
      const n = v.cautions ? v.cautions[side] : 0;
      text($(`[data-cautions="${side}"]`), n ? `${n} caution${n > 1 ? "s" : ""}` : "");
    }
    page.clock = v.clock;
    page.clockAt = performance.now();
    tickClocks();
    // The page counts a running clock down by itself from the time it was sent with;
    // with no clock running nothing ticks (a phone left on the page sleeps).
    const running = !!(v.clock && v.clock.running);
    if (running && !page.ticker) page.ticker = setInterval(tickClocks, 200);
    if (!running && page.ticker) { clearInterval(page.ticker); page.ticker = null; }
    $("#hints").checked = !!v.hints;
    if (document.activeElement !== $("#brightness")) $("#brightness").value = v.brightness;
    if (v.ply !== page.moves.length && !v.target) send("history");
  }

  // The simulator's words name its keys; here the same things are buttons.
  function pageWords(prompt) {
    return String(prompt || "")
      .replace("(f does it)", "(Follow the lights does it)")
      .replace(", or n for a new game instead", ", or start a New game instead");
  }

  function pieceName(ch) {
    return { b: "black man", w: "white man", B: "black king", W: "white king", "?": "a piece" }[ch] || ch;
  }

  // Which colour and which king goes where, and what is still wrong.
  function setupText(boardText, target) {
    const want = CrownheadBoard.fenPieces(target);
    const groups = { b: [], w: [], B: [], W: [] };
    const wrong = [];
    for (let s = 1; s <= 32; s++) {
      const w = want[s] || ".";
      if (w !== ".") groups[w].push(s);
      const have = boardText[s - 1] || ".";
      if (have !== w && !(w === "." && have === ".")) wrong.push(s);
    }
    const parts = [];
    for (const [sym, label] of [["b", "Black men"], ["B", "Black kings"], ["w", "White men"], ["W", "White kings"]]) {
      if (groups[sym].length) parts.push(`${label}: ${groups[sym].join(", ")}`);
    }
    return `Set up: ${parts.join("; ")}.` + (wrong.length ? ` Still wrong: ${wrong.join(", ")}.` : " The board is right.");
  }

  function showMoves() {
    // As PDN and the sheets number them; the hall's page numbers its moves alike.
    CrownheadBoard.fillMoves($("#moves"), page.moves, whiteFirst(),
      (ply) => document.dispatchEvent(new CustomEvent("crownhead:move", { detail: { ply } })), page.first || 1);
  }

  // -- the engine's live analysis (docs/coach.md) -------------------------------------------

  async function loadAnalysis() {
    const heard = page.analysisLines;
    let state;
    try {
      const response = await fetch("/api/analysis", { credentials: "same-origin" });
      if (!response.ok) return;
      state = await response.json();
    } catch (e) { return; }
    if (page.analysisLines === heard) showAnalysis(state);
  }

  // The expected line numbered as a score sheet numbers it, from the move after the position.
  function numberedLine(ply, start, moves) {
    const whiteBegan = /^W/i.test(String(start || ""));
    return moves.map((move, i) => {
      const at = ply + i + 1;
      const black = (at % 2 === 1) !== whiteBegan;
      const n = CrownheadBoard.moveNumber(at, whiteBegan);
      if (black) return `${n}. ${move}`;
      return i === 0 ? `${n}... ${move}` : move;
    }).join(" ");
  }

  function showAnalysis(state) {
    if (!state) return;
    page.analysis = state;
    const section = $("#analysis");
    const on = !!state.on;
    section.setAttribute("data-on", on ? "true" : "false");
    $("#analysis-on").checked = on;
    text($("#analysis-why"), state.why || "");
    // Asked for but refused now (a problem being solved): the reason, not "Thinking...".
    $("#analysis-panel").hidden = !on || !!state.why;
    const a = state.analysis;
    section.setAttribute("data-fen", a ? a.fen : "");
    section.setAttribute("data-depth", a ? String(a.depth) : "");
    if (!on) return;
    if (!a) {
      text($("#analysis-words"), "Thinking...");
      text($("#analysis-depth"), "");
      text($("#analysis-line"), "");
      return;
    }
    const expects = Math.max(0, Math.min(1, Number(a.black_expects)));
    $("#eval-fill").style.width = `${(expects * 100).toFixed(1)}%`;
    const bar = $("#eval-bar");
    bar.setAttribute("aria-valuenow", String(Math.round(expects * 100)));
    bar.title = `Black's expected result ${expects.toFixed(2)}; score ${(a.black_score / 100).toFixed(2)} for Black`;
    text($("#analysis-words"), a.words);
    const positions = `${Number(a.nodes).toLocaleString("en")} positions`;
    const depth = a.depth ? `depth ${a.depth}, ${positions}` : a.tables ? "the endgame tables" : positions;
    text($("#analysis-depth"), `${depth}${a.done ? "" : ", searching deeper..."}`);
    const start = page.start || a.fen;
    text($("#analysis-line"), a.line.length ? `Best line: ${numberedLine(a.ply, start, a.line)}` : "");
  }

  $("#analysis-on").addEventListener("change", async (ev) => {
    const asked = ev.target.checked;
    try {
      const response = await fetch("/api/analysis", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ on: asked }),
      });
      const answer = await response.json();
      if (!response.ok) { text($("#analysis-why"), answer.message || "refused"); ev.target.checked = !asked; return; }
      showAnalysis(answer);
    } catch (e) {
      ev.target.checked = !asked;
      text($("#analysis-why"), "the board did not answer");
    }
  });

  function logMove(ply, side, move) {
    if (page.logged.has(ply)) return;
    page.logged.add(ply);
    addLog("move", `${moveNumber(ply)} ${sideName(side)} ${move}`);
  }

  function logOver() {
    if (page.loggedOver || !page.resultText) return;
    page.loggedOver = true;
    addLog("game-over", `game over: ${page.resultText}`);
  }

  // The game's moves the log does not have yet, oldest first (a page opened mid-game,
  // or moves made while it was away), then its end if it is over.
  function logHistory() {
    page.moves.forEach((move, i) => logMove(i + 1, plySide(i + 1), move));
    if (page.over) logOver();
  }

  function addLog(kind, message) {
    const list = $("#log");
    const li = document.createElement("li");
    li.setAttribute("data-kind", kind);
    li.textContent = message == null ? "" : String(message);
    list.prepend(li);
    while (list.children.length > 100) list.lastElementChild.remove();
  }

  function tickClocks() {
    for (const side of ["black", "white"]) {
      const el = $(`[data-clock="${side}"]`);
      if (!page.clock) { text(el, ""); el.classList.remove("running"); continue; }
      let ms = page.clock[side];
      const running = page.clock.running === side;
      if (running) ms -= performance.now() - page.clockAt;
      text(el, CrownheadBoard.formatClock(ms));
      el.classList.toggle("running", running);
      // Paused: the side whose clock stands still until the arbiter resumes it.
      el.classList.toggle("paused", !!page.clock.paused && page.clock.side === side);
    }
  }

  // -- the person at the page ----------------------------------------------------------

  function mayNotMove() {
    // Nothing is chosen or sent: the next click after logging in starts afresh.
    choose(null);
    say(document.querySelector("#login").hidden
      ? "This page may only watch the board."
      : "Log in with the board's PIN (at the top) to play from this page.");
  }

  function clickSquare(square) {
    if (!page.control) { mayNotMove(); return; }
    if (page.sim) {
      // The simulator's hands: a click lifts the piece there or puts the one in hand
      // down, as in the terminal simulator (tap a man, tap where it goes: the move).
      choose(null);
      send(`touch ${square}`);
      return;
    }
    // Real hardware, tap-tap: a piece, then where it goes; the move is lit for the board.
    const from = page.selected;
    if (from != null && page.targets.has(square)) {
      choose(null);
      playFromTo(from, square);
    } else if (from === square) {
      choose(null);
    } else {
      offer(square);
    }
  }

  // Tap-tap's first tap: the piece chosen and the squares it may go to, marked on the
  // board from the board's own legal moves; a square with no move chooses nothing.
  async function offer(square) {
    choose(null);
    const moves = (await legalMoves()).filter((m) => m.squares[0] === square);
    if (!moves.length) {
      say(`No move from ${square} now.`);
      return;
    }
    say("");
    choose(square, moves.map((m) => m.squares[m.squares.length - 1]));
  }

  function choose(square, targets = []) {
    page.selected = square;
    page.targets = new Set(targets);
    board.mark(square == null ? {} : { chosen: [square], "may-go": targets });
  }

  // A piece dragged from one square to another: the legal move between them, made by
  // the simulated hands or lit for the person at the board.
  function dragMove(from, to) {
    if (!page.control) { mayNotMove(); return; }
    choose(null);
    playFromTo(from, to);
  }

  async function playFromTo(from, to) {
    const moves = (await legalMoves()).filter((m) => m.squares[0] === from && m.squares[m.squares.length - 1] === to);
    if (moves.length === 1) {
      say("");
      send(`${page.sim ? "hands" : "play"} ${moves[0].text}`);
    } else if (moves.length > 1) {
      say(`There are ${moves.length} ways to jump from ${from} to ${to}: type the one you mean ` +
        `(${moves.map((m) => m.text).join(" or ")}).`);
    } else if (page.sim) {
      // No legal move: the hands do it all the same, and the board judges it, as it
      // judges a person's wrong move.
      send(`hands ${from}-${to}`);
    } else {
      say(`No move from ${from} to ${to} now.`);
    }
  }

  // The side to move's legal moves as the board gives them (the link's `moves`), each
  // with its squares; none on a board whose notation is not numbers.
  async function legalMoves() {
    const answer = await request("moves");
    if (answer.event === "error") return [];
    return (answer.moves || []).map((text) => ({ text, squares: String(text).split(/[-x]/).map(Number) }))
      .filter((m) => m.squares.length >= 2 && m.squares.every((n) => n >= 1 && n <= 32));
  }

  $("#move-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const input = $("#move-input");
    const move = input.value.trim();
    if (!move) return;
    send(`${page.sim ? "hands" : "play"} ${move}`);
    input.value = "";
  });

  // What the page itself has to say (not the board): shown until the next thing.
  function say(message) { text($("#page-message"), message); }

  for (const button of $$("[data-press]")) {
    button.addEventListener("click", () => send(`press ${button.getAttribute("data-press")}`));
  }
  $("#follow").addEventListener("click", () => send("follow"));
  for (const button of $$("[data-draw]")) {
    button.addEventListener("click", () => send(sideCommand("draw", button.getAttribute("data-draw"))));
  }
  for (const button of $$("[data-resign]")) {
    button.addEventListener("click", () => {
      const side = button.getAttribute("data-resign");
      if (window.confirm(`Resign for ${side}?`)) send(sideCommand("resign", side));
    });
  }
  // The side's own request where the board knows it (the link's `draw SIDE`/`resign SIDE`,
  // or a per-side button), else the shared button.
  function sideCommand(action, side) {
    if (page.commands && page.commands.has(action)) return `${action} ${side}`;
    const known = (page.identity.buttons || []);
    if (known.includes(`${side}_${action}`)) return `press ${side}_${action}${action === "resign" ? " long" : ""}`;
    return `press ${action}`;
  }
  $("#hints").addEventListener("change", (ev) => send(`hint ${ev.target.checked ? "on" : "off"}`));
  $("#brightness").addEventListener("change", (ev) => send(`brightness ${ev.target.value}`));
  $("#flip").addEventListener("click", () => {
    board.setFlipped(!board.flipped);
    document.body.classList.toggle("flipped", board.flipped);
  });

  function syncNewForm() {
    const mode = $("#new-mode").value;
    for (const set of $$("#new-form fieldset[data-for]")) set.hidden = set.getAttribute("data-for") !== mode;
  }
  $("#new-mode").addEventListener("change", syncNewForm);
  syncNewForm();

  $("#new-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const mode = $("#new-mode").value;
    const commands = [];
    const view = page.view || {};
    if (view.resuming) {
      // The board asks the same at the board: a saved game is waiting to be set up.
      const n = page.moves.length;
      const asked = `A saved game (${n} ${n === 1 ? "ply" : "plies"}) is waiting to be set up on the board. ` +
        "Put it away (it is kept under Games) and start this new game instead?";
      if (!window.confirm(asked)) return;
      commands.push("new");
    } else if (page.moves.length && !page.over) {
      // The mode changes only before the first move: a game under way is left first.
      commands.push("new");
    }
    if (mode === "computer") {
      commands.push(`mode computer ${$("#new-computer-side").value} ${$("#new-level").value || 3}`);
    } else {
      commands.push(`mode ${mode}`);
    }
    if (mode === "referee") {
      const clock = $("#new-clock").value.trim();
      const style = $("#new-style").value;
      const event = $("#new-event").value.trim();
      const round = $("#new-round").value.trim();
      if (clock || style || event || round) {
        const parts = [];
        if (style) parts.push(`style=${style}`);
        if (clock) parts.push(`clock=${clock.replace(/\s+/g, "")}`);
        if (round) parts.push(`round=${round.replace(/;/g, ",")}`);
        if (event) parts.push(`event=${event.replace(/;/g, ",")}`);
        commands.push(`referee ${parts.join(";")}`);
      }
    }
    // The game and house rules (a no-op when they are the ones in force).
    const houseRules = $$("#new-rules [data-rule]").filter((box) => box.checked).map((box) => box.getAttribute("data-rule"));
    commands.push(`rules ${$("#new-variant").value}${houseRules.length ? " " + houseRules.join(" ") : ""}`);
    const fen = $("#new-fen").value.trim();
    commands.push(fen ? `new ${fen}` : "new");
    // The names after the new game: a referee swaps colours between games.
    const black = $("#new-black").value.trim();
    const white = $("#new-white").value.trim();
    if (black || white) commands.push(`names ${black || "?"};${white || "?"}`);
    const ballot = $("#new-ballot").value.trim();
    if (mode === "referee" && ballot) commands.push(`ballot ${ballot}`);
    // One at a time: the first the board refuses stops the rest (nothing after it is
    // done, and the form says why), so a refused game never renames the one on the board.
    text($("#new-message"), "");
    const submit = $("#new-form button[type=submit]");
    submit.disabled = true;
    try {
      for (const c of commands) {
        const answer = await request(c);
        if (answer.event === "error") {
          text($("#new-message"), `Not started: ${answer.message}`);
          return;
        }
      }
      $("#new-game").open = false;
    } finally {
      submit.disabled = false;
    }
  });

  // -- logging in -----------------------------------------------------------------------

  async function checkAccess() {
    try {
      const me = await (await fetch("/api/me", { credentials: "same-origin" })).json();
      page.control = !!me.control;
      page.mayWatch = me.view !== false;
      text($("#pin-why"), page.mayWatch ? "To play from here" : "To watch the board and play from here");
      choose(null);
      $("#board").classList.toggle("movable", !!me.control);
      if (me.control) say("");
      document.body.classList.toggle("read-only", !me.control);
      $("#login").hidden = me.control || !me.login;
      return me;
    } catch (e) {
      return null;
    }
  }

  $("#login").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const pin = $("#pin").value;
    const response = await fetch("/api/login", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ pin }),
    });
    let data = {};
    try { data = await response.json(); } catch (e) { /* nothing */ }
    text($("#login-message"), response.ok ? "logged in" : data.message || "refused");
    $("#pin").value = "";
    if (response.ok) {
      await checkAccess();
      if (!page.socket) {
        connect();  // the page could not watch before
      } else {
        // Reconnect with the session; until the new socket is open the page is not live
        // (the old one is closing: what is sent on it now is lost).
        setConnection("connecting");
        page.socket.close();
      }
    }
  });

  // -- tabs, games and status ------------------------------------------------------------

  function showTab() {
    const name = (location.hash || "#board").slice(1);
    const tab = ["board", "games", "status-page"].includes(name) ? name : "board";
    for (const section of $$(".tab")) section.hidden = section.id !== `tab-${tab}`;
    // "#board" also names the board itself: the browser would scroll the header away.
    window.scrollTo(0, 0);
    for (const link of $$("nav a")) link.classList.toggle("active", link.getAttribute("data-tab") === tab);
    if (tab === "games") loadGames();
    if (tab === "status-page") loadStatus();
  }
  window.addEventListener("hashchange", showTab);

  async function loadGames() {
    const body = $("#games-table tbody");
    let data;
    try { data = await (await fetch("/api/games")).json(); } catch (e) { return; }
    body.replaceChildren();
    for (const g of (data.games || []).slice().reverse()) {
      const tr = document.createElement("tr");
      tr.setAttribute("data-game", g.id);
      const moves = Math.ceil((Number(g.plies) || 0) / 2);
      const cells = [["date", g.tags.Date || ""], ["black", g.tags.Black || ""], ["white", g.tags.White || ""],
        ["result", g.result], ["moves", moves]];
      for (const [col, value] of cells) {
        const td = document.createElement("td");
        td.setAttribute("data-col", col);
        td.textContent = String(value);
        tr.appendChild(td);
      }
      const td = document.createElement("td");
      const replay = document.createElement("button");
      replay.type = "button";
      replay.textContent = "Replay";
      replay.addEventListener("click", () => openReplay(g.id));
      const link = document.createElement("a");
      link.href = `/api/games/${encodeURIComponent(g.id)}.pdn`;
      link.textContent = "PDN";
      link.setAttribute("download", `${g.id}.pdn`);
      const sheet = document.createElement("a");
      sheet.href = `/api/games/${encodeURIComponent(g.id)}.pdf`;
      sheet.textContent = "Score sheet (PDF)";
      sheet.setAttribute("download", `${g.id}.pdf`);
      td.append(replay, " ", link, " ", sheet);
      tr.appendChild(td);
      body.appendChild(tr);
    }
  }

  const replay = { game: null, ply: 0, board: null, review: null };
  page.replay = replay;  // review.js tries a game again from where the replay stands
  async function openReplay(id) {
    const data = await (await fetch(`/api/games/${encodeURIComponent(id)}`)).json();
    replay.game = data;
    replay.review = null;
    text($("#replay-review-status"), "");
    replay.ply = data.moves.length;
    $("#replay").hidden = false;
    text($("#replay-title"), `${data.tags.Black || "?"} - ${data.tags.White || "?"}  ${data.result}`);
    if (!replay.board) replay.board = new CrownheadBoard($("#replay-board"));
    const list = $("#replay-moves");
    list.replaceChildren();
    const whiteStarts = /^W/i.test(String((data.fens || [""])[0]));
    replay.whiteStarts = whiteStarts;
    CrownheadBoard.fillMoves(list, data.moves, whiteStarts, (ply) => { replay.ply = ply; showReplay(); });
    showReplay();
  }
  function showReplay() {
    const g = replay.game;
    if (!g) return;
    replay.ply = Math.max(0, Math.min(replay.ply, g.moves.length));
    replay.board.show({ board: CrownheadBoard.boardFromFen(g.fens[replay.ply]) });
    // Where the replay stands, numbered by move as the list beside it: "after 2... 22-17".
    let where = "the start";
    if (replay.ply > 0) {
      const n = CrownheadBoard.moveNumber(replay.ply, replay.whiteStarts);
      const black = (replay.ply % 2 === 1) !== replay.whiteStarts;
      where = `after ${n}${black ? "." : "..."} ${g.moves[replay.ply - 1]}`;
    }
    text($("#replay-ply"), where);
    $$("#replay-moves [data-ply]").forEach((el) => el.classList.toggle("current", Number(el.getAttribute("data-ply")) === replay.ply));
    // The review's word on the move just made, under the board.
    const reviewed = replay.review && replay.review.plies.find((p) => p.ply === replay.ply);
    text($("#replay-comment"), reviewed && reviewed.comment ? `${where}${reviewed.mark || ""}: ${reviewed.comment}` : "");
    document.dispatchEvent(new CustomEvent("crownhead:replay"));
  }

  // A review (docs/coach.md): each marked move gets its mark (12-16??) and the review's
  // words as its title; a click on it steps the board there and says them.
  const MARK_CLASS = { "??": "blunder", "?": "mistake", "?!": "dubious", "!": "good" };
  async function reviewReplay() {
    const g = replay.game;
    if (!g) return;
    const status = $("#replay-review-status");
    text(status, "Reviewing the game: every move is searched, which takes a while...");
    let answer;
    try {
      const response = await fetch(`/api/games/${encodeURIComponent(g.id)}/review`, { method: "POST" });
      answer = await response.json();
      if (!response.ok) { text(status, answer.message || "The review failed."); return; }
    } catch (e) { text(status, "The review failed: the board did not answer."); return; }
    if (replay.game !== g) return;
    replay.review = answer;
    for (const p of answer.plies) {
      const el = document.querySelector(`#replay-moves [data-ply="${p.ply}"]`);
      if (!el || !p.mark) continue;
      el.textContent = g.moves[p.ply - 1] + p.mark;
      el.classList.add(`mark-${MARK_CLASS[p.mark] || "other"}`);
      el.title = p.comment || "";
    }
    const said = ["black", "white"].map((side) => {
      const c = answer.summary[side];
      return `${side === "black" ? "Black" : "White"}: ${c.blunder} ??, ${c.mistake} ?, ${c.dubious} ?!, ${c["good move"]} !`;
    });
    text(status, `Reviewed at ${answer.nodes.toLocaleString("en")} positions a move. ${said.join("; ")}.`);
    showReplay();
  }
  $("#replay-review").addEventListener("click", reviewReplay);
  $("#replay-first").addEventListener("click", () => { replay.ply = 0; showReplay(); });
  $("#replay-prev").addEventListener("click", () => { replay.ply -= 1; showReplay(); });
  $("#replay-next").addEventListener("click", () => { replay.ply += 1; showReplay(); });
  $("#replay-last").addEventListener("click", () => { replay.ply = 1e9; showReplay(); });

  async function loadStatus() {
    let data;
    try { data = await (await fetch("/api/status")).json(); } catch (e) { return; }
    const list = $("#status-list");
    list.replaceChildren();
    const rows = [
      ["Version", data.version], ["Backend", data.backend], ["Scan rate", data.scan_hz ? `${data.scan_hz} Hz` : "n/a"],
      ["Main loop", data.steps_per_s != null ? `${data.steps_per_s} steps/s` : "measuring"],
      ["Debounce", `${data.debounce_ms} ms`],
      ["Sensor faults", (data.faults || []).length ? data.faults.join("; ") : "none detected"],
      ["Pages connected", data.pages],
      ["Commands from pages and the link", `${data.commands} since the board started`],
      ["Commands refused", `${data.errors}: lines the board turned down (not logged in, not now, ` +
        "a mistyped command); each was answered with the reason, shown in that page's Events"],
    ];
    for (const [k, v] of rows) {
      const dt = document.createElement("dt"); dt.textContent = k;
      const dd = document.createElement("dd"); dd.textContent = v == null ? "" : String(v);
      list.append(dt, dd);
    }
    showSelftest(data.selftest || { state: "never run" });
    showSettingsFile(data.config_file);
  }

  // The file the settings were read from, or none: a board with no configuration file runs
  // on the built-in defaults, and the page must not name a file that does not exist.
  function showSettingsFile(path) {
    const el = $("#settings-file");
    el.setAttribute("data-file", path ? "read" : "none");
    text(el, path
      ? `Read from ${path}.`
      : "The built-in defaults: no configuration file was read. The board reads /etc/crownhead/config.toml " +
        "when it exists, or the file given by --config or $CROWNHEAD_CONFIG.");
  }

  // The last `crownhead selftest`: when, passed or failed, and what each check said.
  function showSelftest(st) {
    const el = $("#selftest");
    el.setAttribute("data-state", st.state);
    let summary = st.state;
    if (st.state === "passed" || st.state === "failed") {
      const when = String(st.time || "").replace("T", " ").replace("Z", " UTC");
      summary = `${st.state}, ${when} (${st.backend})`;
      if (st.state === "failed") summary += `: ${(st.faults || []).length} fault${(st.faults || []).length === 1 ? "" : "s"}`;
    } else if (st.state === "unreadable") {
      summary = "unreadable (the board's log says why)";
    }
    text(el, summary);
    const list = $("#selftest-lines");
    list.replaceChildren();
    for (const line of st.lines || []) {
      const li = document.createElement("li");
      li.textContent = line;
      list.appendChild(li);
    }
  }

  // The socket opens once every script of the page has run (DOMContentLoaded comes after
  // the deferred ones): a board's greeting that came while far.js or online.js was still
  // on its way was heard by none of them, and a slow board's page never showed its games
  // far apart (the page asks for them when greeted).
  // (A deferred script runs while readyState is already "interactive", before
  // DOMContentLoaded: only "complete" says it has passed; the load event is the backstop.)
  const scriptsRun = new Promise((resolve) => {
    if (document.readyState === "complete") { resolve(); return; }
    document.addEventListener("DOMContentLoaded", resolve, { once: true });
    window.addEventListener("load", resolve, { once: true });
  });
  Promise.all([checkAccess(), scriptsRun]).then(() => { connect(); showTab(); });
})();
