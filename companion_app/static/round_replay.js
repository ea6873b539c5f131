/* mtrain: a past round's replay: scrub through its settled tables; the alerts raised on
   each are marked on the timeline and listed under the table. Times are the device's. */
"use strict";

(() => {
  const card = document.getElementById("round-replay");
  const svg = document.getElementById("table");
  const range = document.getElementById("replay-range");
  const where = document.getElementById("replay-where");
  const view = { frames: [], players: [], index: 0 };
  const titleOf = (alert) => alert.title || alert.code;

  function clock(seconds) {
    return new Date(seconds * 1000).toLocaleString([], {
      month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }

  function show(i) {
    const frames = view.frames;
    if (!frames.length) { where.textContent = "No table was kept for this round."; return; }
    view.index = Math.max(0, Math.min(frames.length - 1, i));
    const frame = frames[view.index];
    const before = view.index > 0 ? frames[view.index - 1].table : null;
    range.value = String(view.index);
    TableView.draw(svg, { table: frame.table, turn: frame.turn, players: view.players, before });
    where.textContent = `Table ${view.index + 1} of ${frames.length} · ${clock(frame.at)}`;
    document.getElementById("replay-alerts").replaceChildren(
      ...TableView.replayAlertItems(frame.alerts, titleOf));
    document.querySelectorAll("#replay-marks button").forEach((b) => {
      b.classList.toggle("here", Number(b.dataset.index) === view.index);
    });
  }

  function marks() {
    document.getElementById("replay-marks").replaceChildren(
      ...TableView.replayMarks(view.frames, titleOf, show));
  }

  range.addEventListener("input", () => show(Number(range.value)));
  document.getElementById("replay-prev").addEventListener("click", () => show(view.index - 1));
  document.getElementById("replay-next").addEventListener("click", () => show(view.index + 1));

  fetch(card.dataset.url, { headers: { Accept: "application/json" } })
    .then((response) => (response.ok ? response.json() : Promise.reject(response.statusText)))
    .then((data) => {
      view.frames = data.frames;
      view.players = data.players;
      range.max = String(Math.max(0, view.frames.length - 1));
      marks();
      show(0);
    })
    .catch(() => { where.textContent = "The replay could not be loaded; reload the page."; });
})();
