// A game far apart from the board's page (docs/remote.md): invite another board (its code,
// a link and the link's QR code), join a game by its code, leave the game. Asks
// /api/far, which the board answers in its main loop; a `far` line on the socket says
// when the state changed. Every text from the board goes in with textContent.
"use strict";

(function () {
  const $ = (sel) => document.querySelector(sel);
  const $$ = (sel) => Array.from(document.querySelectorAll(sel));
  const text = (el, value) => { if (el) el.textContent = value == null ? "" : String(value); };
  const page = window.crownhead;
  const far = { status: null, asked: 0 };
  if (page) page.far = far;  // for tests and people poking at it in the console

  // A link that names a code (#join=k7q-m2x) fills the join form and opens the section.
  function codeFromLink() {
    const found = /^#join=([0-9A-Za-z-]{6,12})$/.exec(location.hash || "");
    if (!found) return;
    $("#far-join-code").value = found[1];
    $("#far").open = true;
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
    text($("#far-game"), status.game ? describe(status.game) : "");
    const busy = ["inviting", "waiting", "joining", "agreed"].includes(state);
    const playing = state === "playing";
    $("#far-invite-form").hidden = busy || playing;
    $("#far-join-form").hidden = busy || playing;
    $("#far-leave").hidden = !playing;
    if (busy || playing) $("#far").open = true;
  }

  function describe(game) {
    const sideName = (side) => (side === "black" ? "Black" : "White");
    const names = `Black ${game.black || "(no name)"}, White ${game.white || "(no name)"}`;
    const parts = [`${game.host} plays ${sideName(game.host_plays)}`, names, game.rules,
      game.clock ? `clock ${game.clock}` : "no clock"];
    if (game.ballot != null) parts.push(`ballot ${game.ballot}`);
    parts.push(`a board away: ${game.grace_s} s of grace, the clock ${game.away === "run" ? "runs" : "stops"}`);
    if (game.private) parts.push(`private (${game.peer})`);
    return parts.join("; ");
  }

  async function ask(body) {
    text($("#far-message"), "");
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
      text($("#far-message"), "The board did not answer.");
      return;
    }
    if (answer.error) text($("#far-message"), answer.message || answer.error);
    const status = answer.error ? answer.status : answer;
    if (status && status.state) { far.asked++; show(status); }
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
    ask({ join: $("#far-join-code").value.trim() });
  });
  $("#far-cancel").addEventListener("click", () => ask({ cancel: true }));
  $("#far-leave").addEventListener("click", () => {
    if (window.confirm("Leave the game far apart? The board then plays on its own.")) ask({ leave: true });
  });

  // The board greets the page (a login makes a new socket) and says when the state changed.
  window.addEventListener("crownhead:line", (ev) => {
    const kind = ev.detail && ev.detail.event;
    if (kind === "hello" || kind === "far") load();
  });
  window.addEventListener("hashchange", codeFromLink);
  codeFromLink();
})();
