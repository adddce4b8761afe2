// The problem mode on the page (docs/coach.md): the problem set up on the board, its
// stated result, the hint, the verdict, and the player's level, streak and record by
// difficulty. Everything goes through the link's commands (`problem next|ID|off`, the
// `problems` question, `press hint`) and its `problem` events. Kept apart from app.js:
// it hears every line ("crownhead:line") and uses the page's `send` and `request`.
"use strict";

(function () {
  const page = window.crownhead;
  const $ = (sel) => document.querySelector(sel);
  const text = (el, value) => { if (el) el.textContent = value == null ? "" : String(value); };

  function show(state) {
    if (!state) return;
    const section = $("#problems");
    const active = !!state.active;
    section.setAttribute("data-active", active ? "true" : "false");
    section.setAttribute("data-id", state.id || "");
    section.setAttribute("data-status", state.status || "");
    // The problem on the board (or the last one, once the mode is left: its verdict stands).
    $("#problem-current").hidden = !state.id;
    text($("#problem-title"), state.title);
    text($("#problem-collection"), state.id ? `(${state.collection}, ${state.id}, difficulty ${state.difficulty})` : "");
    text($("#problem-task"), state.task);
    let verdict = "";
    // Solved with the engine's hints: said so, as the record counts it (not solved).
    if (state.status === "solved" && state.hints > 0) {
      verdict = `Solved with ${state.hints} hint${state.hints > 1 ? "s" : ""}: ${state.reason}. ` +
        "Solved with the engine's help: not counted as solved, and the streak stays.";
    } else if (state.status === "solved") verdict = `Solved: ${state.reason}.`;
    else if (state.status === "failed") verdict = `Not solved: ${state.reason}.`;
    else if (state.status === "playing" && active) verdict = `You play ${state.side === "black" ? "Black" : "White"}: the engine defends.`;
    text($("#problem-verdict"), verdict);
    const hints = Number(state.hints) || 0;
    text($("#problem-hint"), state.hint ? `Hint: ${state.hint}` : hints ? `Hints asked: ${hints}` : "");
    const best = Number(state.best_streak) || 0;
    text($("#problem-record"), `Your level ${state.level}, streak ${state.streak} (best ${best}).`);
    for (let d = 1; d <= 5; d++) {
      const solved = (state.solved || [])[d - 1] || 0;
      const tried = (state.tried || [])[d - 1] || 0;
      text($(`#problem-table [data-difficulty="${d}"]`), `${solved}/${tried}`);
    }
    // Out of the mode, only the way in: the next problem at the player's level, or one chosen.
    $("#problem-hint-button").hidden = !active;
    $("#problem-hint-button").disabled = state.status !== "playing";
    $("#problem-off").hidden = !active;
    text($("#problem-next"), active ? "Next problem at my level" : "Start the problems at my level");
  }

  window.addEventListener("crownhead:line", (ev) => {
    const msg = ev.detail;
    if (!msg) return;
    if (msg.event === "hello" || (msg.event === "reply" && msg.cmd === "hello")) {
      page.send("problems");  // a page opened mid-problem is told where it stands
    } else if (msg.event === "reply" && (msg.cmd === "problems" || msg.cmd === "problem")) {
      show(msg);
    } else if (msg.event === "problem") {
      // An event is the state at that moment: the mode is on but when it was left.
      show({ ...msg, active: msg.cause !== "stopped" });
    }
  });

  async function ask(command) {
    const status = $("#problem-message");
    text(status, "");
    const answer = await page.request(command);
    if (answer.event === "error") { text(status, answer.message || "The board refused."); return false; }
    return true;
  }

  $("#problem-next").addEventListener("click", async () => {
    if (await ask("problem next")) text($("#problem-message"), "Set it up on the board: its lights show the pieces to place, a rank at a time.");
  });
  $("#problem-off").addEventListener("click", () => ask("problem off"));
  $("#problem-hint-button").addEventListener("click", () => page.send("press hint"));
  $("#problem-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const input = $("#problem-id");
    const id = input.value.trim().toLowerCase();
    if (!id) return;
    if (await ask(`problem ${id}`)) {
      input.value = "";
      text($("#problem-message"), "Set it up on the board: its lights show the pieces to place, a rank at a time.");
    }
  });
})();
