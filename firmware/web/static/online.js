// Games against people on PlayStrategy from the board's page (docs/online.md): seek a
// game, challenge a friend, accept or decline a challenge received, and the game under
// way: the players, their ratings, the server's clocks (counted down here between the
// server's messages) and the chat. Asks /api/online, which the board answers in its main
// loop; an `online` line on the socket says when the state changed. Every word from the
// server (names, chat) goes in with textContent, never as markup.
"use strict";

(function () {
  const $ = (sel) => document.querySelector(sel);
  const text = (el, value) => { if (el) el.textContent = value == null ? "" : String(value); };
  const page = window.crownhead;
  const online = { status: null, asked: 0, at: 0 };
  if (page) page.online = online;  // for tests and people poking at it in the console

  function clockFace(ms) {
    if (ms == null) return "";
    const s = Math.max(0, Math.floor(ms / 1000));
    const m = Math.floor(s / 60);
    return `${m}:${String(s % 60).padStart(2, "0")}`;
  }

  async function load() {
    const asked = ++online.asked;
    let status;
    try {
      const response = await fetch("/api/online", { credentials: "same-origin", cache: "no-store" });
      if (!response.ok) return;  // not logged in, or no online play on this board
      status = await response.json();
    } catch (e) { return; }
    if (asked === online.asked) show(status);
  }

  function show(status) {
    online.status = status;
    online.at = Date.now();
    const section = $("#online");
    section.hidden = false;
    const state = status.state || "idle";
    section.setAttribute("data-state", state);
    text($("#online-status"), status.message || state);
    const free = state === "idle";
    $("#online-seek-form").hidden = !free;
    $("#online-challenge-form").hidden = !free;
    $("#online-cancel").hidden = state !== "seeking" && state !== "challenging";
    if (!$("#online-clock").dataset.touched && status.clock) $("#online-clock").value = status.clock;
    showChallenges(status.challenges || [], free);
    showGame(status.game);
    // A game, a seek or a challenge waiting for an answer: the section opens by itself.
    if (state !== "idle" || (status.challenges || []).length) section.open = true;
  }

  function showChallenges(challenges, free) {
    const list = $("#online-challenges");
    list.replaceChildren();
    for (const ch of challenges) {
      const item = document.createElement("li");
      item.setAttribute("data-challenge", ch.id);
      const rating = ch.rating == null ? "" : ` (${ch.rating})`;
      const words = document.createElement("span");
      words.textContent = `${ch.name}${rating} challenges you: ${ch.variant} ${ch.clock}${ch.rated ? " rated" : ""} `;
      item.append(words);
      if (ch.refused) {
        const why = document.createElement("span");
        why.className = "note";
        why.textContent = ch.refused;
        item.append(why);
      } else if (free) {
        item.append(button("Accept", "accept", () => ask({ accept: ch.id })));
      }
      item.append(button("Decline", "decline", () => ask({ decline: ch.id })));
      list.append(item);
    }
  }

  function button(label, role, onClick) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.setAttribute("data-answer", role);
    b.addEventListener("click", onClick);
    return b;
  }

  function showGame(game) {
    $("#online-game").hidden = !game;
    if (!game) return;
    $("#online-abort").hidden = !(game.status === "started" || game.status === "created") || game.moves > 1;
    for (const side of ["black", "white"]) {
      const el = $(`#online-${side}`);
      const player = game[side] || {};
      const mine = game.mine === side ? " (you)" : "";
      text(el.querySelector(".online-name"), `${side === "black" ? "Black" : "White"}: ${player.name || "?"}${mine}`);
      text(el.querySelector(".online-rating"), player.rating == null ? "" : `(${player.rating})`);
      if (game.running === side) el.setAttribute("data-running", ""); else el.removeAttribute("data-running");
    }
    tick();
    const chat = $("#online-chat");
    chat.replaceChildren();
    for (const line of game.chat || []) {
      const item = document.createElement("li");
      item.textContent = `${line.user}: ${line.text}`;
      chat.append(item);
    }
    chat.scrollTop = chat.scrollHeight;
  }

  // The server's clocks as its last message gave them; the running side's counts down here.
  function tick() {
    const game = online.status && online.status.game;
    if (!game) return;
    for (const side of ["black", "white"]) {
      const player = game[side] || {};
      let ms = player.ms;
      if (ms != null && game.running === side) ms -= Date.now() - online.at;
      text($(`#online-${side} .online-clock`), clockFace(ms));
    }
  }
  setInterval(tick, 1000);

  async function ask(body) {
    text($("#online-message"), "");
    let answer = {};
    try {
      const response = await fetch("/api/online", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      answer = await response.json();
    } catch (e) {
      text($("#online-message"), "The board did not answer.");
      return false;
    }
    if (answer.error) text($("#online-message"), answer.message || answer.error);
    const status = answer.error ? answer.status : answer;
    if (status && status.state) { online.asked++; show(status); }
    return !answer.error;
  }

  $("#online-clock").addEventListener("input", () => { $("#online-clock").dataset.touched = "1"; });
  $("#online-seek-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    ask({ seek: { clock: $("#online-clock").value.replace(/\s+/g, ""), rated: $("#online-rated").checked } });
  });
  $("#online-cancel").addEventListener("click", () => ask({ cancel: true }));
  $("#online-abort").addEventListener("click", () => {
    if (window.confirm("Abort the game on PlayStrategy?")) ask({ abort: true });
  });
  $("#online-challenge-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    ask({ challenge: { user: $("#online-friend").value.trim(), clock: $("#online-clock").value.replace(/\s+/g, "") } });
  });
  $("#online-chat-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const line = $("#online-chat-text").value.trim();
    if (line && await ask({ chat: line })) $("#online-chat-text").value = "";
  });

  // The board greets the page (a login makes a new socket) and says when the state changed.
  window.addEventListener("crownhead:line", (ev) => {
    const kind = ev.detail && ev.detail.event;
    if (kind === "hello" || kind === "online") load();
  });
})();
