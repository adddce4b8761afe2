// A game far apart from the board's page (docs/remote.md): invite another board (its code,
// a link and the link's QR code), join a game by its code or link, leave the game. Asks
// /api/far, which the board answers in its main loop; a `far` line on the socket says
// when the state changed. Every text from the board goes in with textContent.
//
// Joining shows the invitation's terms first: a link opened (#join=CODE, on whatever
// host and port the page is) or a code or link given looks the game up ({look: CODE})
// and shows it in the card at the top of the page (a phone's first screen), with Join
// and Cancel.
"use strict";

(function () {
  const $ = (sel) => document.querySelector(sel);
  const $$ = (sel) => Array.from(document.querySelectorAll(sel));
  const text = (el, value) => { if (el) el.textContent = value == null ? "" : String(value); };
  const page = window.crownhead;
  // `card`: the code the people want to join (the card shown), until joined or cancelled;
  // `looked`: the code asked for ({look}) on this page.
  // `greeted`: the board greeted this page (its requests are taken from then on).
  const far = { status: null, asked: 0, card: null, looked: null, greeted: false };
  if (page) page.far = far;  // for tests and people poking at it in the console

  // The code in what was given: a code (k7q-m2x), or an invitation's link, whatever host
  // and port it names (http://crownhead.local:8080/#join=k7q-m2x): the code is what counts.
  function codeOf(given) {
    const value = String(given || "").trim();
    const link = /#join=([0-9A-Za-z -]{6,16})$/.exec(value);
    return (link ? link[1] : value).replace(/[\s-]/g, "").toLowerCase();
  }

  // A link that names a code (#join=k7q-m2x) fills the join form and looks the game up;
  // #join alone (the header's "Join a game") opens the card for a code or link.
  function codeFromLink() {
    if (location.hash === "#join") {
      openCard("");
      return;
    }
    const found = /^#join=([0-9A-Za-z-]{6,12})$/.exec(location.hash || "");
    if (!found) return;
    $("#far-join-code").value = found[1];
    openCard(codeOf(found[1]));
  }

  // The card at the top: the game of `code` looked up, its terms shown before joining
  // (no code yet, "": the card asks for one).
  function openCard(code) {
    far.card = code;
    far.looked = null;
    $("#far-card").hidden = false;
    $("#far-card").removeAttribute("data-state");
    $("#far-card-form").hidden = Boolean(code);
    $("#far-card-join").disabled = true;
    text($("#far-card-terms"), "");
    text($("#far-card-status"), code ? `Looking up game ${code.slice(0, 3)}-${code.slice(3)}...` : "");
    if (!code) $("#far-card-code").focus();
    look();
  }

  function look() {
    if (!far.card || far.looked === far.card || !far.greeted) return;
    far.looked = far.card;
    ask({ look: far.card }, $("#far-card-status"));
  }

  function closeCard() {
    far.card = null;
    far.looked = null;
    $("#far-card").hidden = true;
    $("#far-card").removeAttribute("data-state");
    if (/^#join/.test(location.hash || "")) history.replaceState(null, "", location.pathname + location.search);
  }

  async function load() {
    const asked = ++far.asked;
    let status;
    try {
      const response = await fetch("/api/far", { credentials: "same-origin", cache: "no-store" });
      if (!response.ok) return;  // not logged in, or no games far apart here
      status = await response.json();
    } catch (e) { return; }
    if (asked === far.asked) show(status);
  }

  function show(status) {
    far.status = status;
    const state = status.state || "idle";
    $("#far").setAttribute("data-state", state);
    const broker = status.broker ? ` (through ${status.broker})` : "";
    text($("#far-status"), status.message || (state === "idle" ? `No game far apart${broker}.` : state));
    const invitation = state === "inviting" || state === "waiting";
    $("#far-invitation").hidden = !(status.code && (invitation || state === "agreed"));
    $("#far-cancel").hidden = !invitation;
    text($("#far-code"), status.shown);
    const link = $("#far-link");
    $("#far-link-line").hidden = !status.link;
    if (status.link) { link.href = status.link; text(link, status.link); }
    const qr = $("#far-qr");
    if (status.link && invitation) {
      const src = `/api/far/qr.svg?code=${encodeURIComponent(status.code)}`;
      if (qr.getAttribute("src") !== src) qr.setAttribute("src", src);
      qr.hidden = false;
    } else {
      qr.hidden = true;
      qr.removeAttribute("src");
    }
    const note = $("#far-link-note");
    note.hidden = !status.link_note;
    text(note, status.link_note);
    text($("#far-game"), status.game ? describe(status.game) : "");
    const busy = ["inviting", "waiting", "looking", "found", "joining", "agreed"].includes(state);
    const playing = state === "playing";
    showCard(status, state);
    $("#far-invite-form").hidden = busy || playing;
    $("#far-join-form").hidden = busy || playing;
    $("#far-leave").hidden = !playing;
    if (busy || playing) $("#far").open = true;
  }

  function showCard(status, state) {
    const joining = ["looking", "found", "joining"].includes(state);
    if (state === "playing" || (state === "agreed" && !far.card)) far.card = null;
    $("#far-join-nav").hidden = !["idle", "failed"].includes(state);
    const card = $("#far-card");
    card.hidden = !(far.card !== null || joining);
    if (card.hidden) return;
    $("#far-card-form").hidden = Boolean(far.card) || joining;
    card.setAttribute("data-state", state);
    if (status.message || joining) text($("#far-card-status"), status.message);
    const terms = status.game && state !== "idle" ? joiningTerms(status.game) : "";
    text($("#far-card-terms"), terms);
    $("#far-card-join").disabled = state !== "found";
    $("#far-card-join").hidden = state === "agreed";
    $("#far-card-cancel").hidden = state === "agreed";
  }

  // The terms as the board joining sees them: who plays which side, names, the game, the
  // clock, the ballot, a board away, public or private.
  function joiningTerms(game) {
    const sideName = (side) => (side === "black" ? "Black" : "White");
    const mine = game.host_plays === "black" ? "white" : "black";
    const parts = [`${game.host} plays ${sideName(game.host_plays)}, this board ${sideName(mine)}`,
      `Black ${game.black || "(no name)"}, White ${game.white || "(no name)"}`, game.rules,
      game.clock ? `clock ${game.clock}` : "no clock",
      game.ballot != null ? `ballot ${game.ballot}` : "no ballot",
      `a board away: ${game.grace_s} s of grace, the clock ${game.away === "run" ? "runs" : "stops"}`,
      game.private ? "private (to this board only)" : "public (any board of the broker may join it)"];
    return parts.join("; ");
  }

  function describe(game) {
    const sideName = (side) => (side === "black" ? "Black" : "White");
    const names = `Black ${game.black || "(no name)"}, White ${game.white || "(no name)"}`;
    const parts = [`${game.host} plays ${sideName(game.host_plays)}`, names, game.rules,
      game.clock ? `clock ${game.clock}` : "no clock"];
    if (game.ballot != null) parts.push(`ballot ${game.ballot}`);
    parts.push(`a board away: ${game.grace_s} s of grace, the clock ${game.away === "run" ? "runs" : "stops"}`);
    parts.push(game.private ? `private (${game.peer})` : "public");
    return parts.join("; ");
  }

  async function ask(body, where) {
    const said = where || $("#far-message");
    text(said, "");
    let answer = {};
    try {
      const response = await fetch("/api/far", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      answer = await response.json();
    } catch (e) {
      text(said, "The board did not answer.");
      if (body.look) far.looked = null;  // (asked again when the board greets the page)
      return;
    }
    const status = answer.error ? answer.status : answer;
    if (status && status.state) { far.asked++; show(status); }
    if (answer.error) {
      if (body.look) far.looked = null;
      text(said, answer.message || answer.error);
    }
  }

  function ballot() {
    const value = $("#far-ballot").value.trim().toLowerCase();
    if (!value || value === "none") return null;
    if (value === "draw") return "draw";
    return /^[0-9]+$/.test(value) ? Number(value) : value;
  }

  $("#far-invite-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    ask({
      invite: {
        plays: $("#far-plays").value,
        black: $("#far-black").value.trim(),
        white: $("#far-white").value.trim(),
        variant: $("#far-variant").value,
        rules: $$("#far-rules [data-far-rule]").filter((box) => box.checked).map((box) => box.getAttribute("data-far-rule")),
        clock: $("#far-clock").value.replace(/\s+/g, ""),
        ballot: ballot(),
        grace_s: Number($("#far-grace").value) || 300,
        away: $("#far-away").value,
        guest: $("#far-guest").value.trim(),
      },
    });
  });
  $("#far-join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    openCard(codeOf($("#far-join-code").value));
    window.scrollTo(0, 0);
  });
  $("#far-card-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    openCard(codeOf($("#far-card-code").value));
  });
  $("#far-card-join").addEventListener("click", () => {
    if (far.card) ask({ join: far.card }, $("#far-card-status"));
  });
  $("#far-card-cancel").addEventListener("click", () => {
    const state = far.status && far.status.state;
    closeCard();
    if (["looking", "found", "joining"].includes(state)) ask({ cancel: true });
  });
  $("#far-cancel").addEventListener("click", () => ask({ cancel: true }));
  $("#far-leave").addEventListener("click", () => {
    if (window.confirm("Leave the game far apart? The board then plays on its own.")) ask({ leave: true });
  });

  // The board greets the page (a login makes a new socket) and says when the state changed.
  window.addEventListener("crownhead:line", (ev) => {
    const kind = ev.detail && ev.detail.event;
    if (kind === "hello") {  // (a look waits for it; one refused before the PIN was given is asked again)
      far.greeted = true;
      look();
    }
    if (kind === "hello" || kind === "far") load();
  });
  window.addEventListener("hashchange", codeFromLink);
  codeFromLink();
})();
