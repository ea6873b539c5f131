/* mtrain: draws the table (CONTRACTS.md TABLE JSON) as SVG: the hub with the engine,
   one lane per train with its tiles, open doubles, markers and whose turn it is. */
"use strict";

const TableView = (() => {
  const NS = "http://www.w3.org/2000/svg";
  // One colour per value, as on colour-coded double-12+ sets.
  const COLOURS = ["#6b7280", "#2563eb", "#16a34a", "#dc2626", "#7c3aed", "#ea580c", "#0891b2",
    "#ca8a04", "#db2777", "#4d7c0f", "#9333ea", "#0f766e", "#b91c1c", "#1d4ed8", "#15803d",
    "#a16207", "#be185d", "#4338ca", "#c2410c"];
  // Two layouts: wide (the hub on the left, lanes to its right) and narrow (phones: the
  // hub on top, lanes below across the whole width). T is half a tile's long side.
  const T = 36;
  let W = 1000, HUB_X = 95, LANE_X = 210, RIGHT = 990, narrow = false;

  function setLayout(width) {
    narrow = width < 640;
    if (narrow) { W = 560; LANE_X = 14; RIGHT = 546; HUB_X = 280; }
    else { W = 1000; LANE_X = 210; RIGHT = 990; HUB_X = 95; }
  }

  function el(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  function text(parent, x, y, value, cls, attrs) {
    const t = el("text", Object.assign({ x, y, class: cls }, attrs || {}), parent);
    t.textContent = value;
    return t;
  }

  /* One tile, centred at (cx, cy); a double stands crosswise (upright). */
  function tile(parent, cx, cy, near, far, opts) {
    const upright = near === far;
    const g = el("g", { class: "tile" + (opts.openDouble ? " open-double" : "") +
                                (opts.fresh ? " fresh" : ""),
                        transform: `translate(${cx},${cy})` }, parent);
    const w = upright ? T : 2 * T, h = upright ? 2 * T : T;
    el("rect", { x: -w / 2, y: -h / 2, width: w, height: h, rx: 5, class: "tile-body" }, g);
    if (upright) el("line", { x1: -w / 2 + 4, y1: 0, x2: w / 2 - 4, y2: 0, class: "tile-mid" }, g);
    else el("line", { x1: 0, y1: -h / 2 + 4, x2: 0, y2: h / 2 - 4, class: "tile-mid" }, g);
    const halves = upright ? [[0, -T / 2, near], [0, T / 2, far]] : [[-T / 2, 0, near], [T / 2, 0, far]];
    for (const [x, y, v] of halves) {
      text(g, x, y + 9, String(v), "pip-num", { fill: COLOURS[v % COLOURS.length] });
    }
    const title = el("title", {}, g);
    title.textContent = `${near}-${far}`;
    return g;
  }

  function ownerName(owner, players) {
    if (owner === "mexican") return "Mexican train";
    return players[owner] || `Seat ${owner + 1}`;
  }

  /* Tiles per row of a lane, and the x-step of each tile. */
  function laneRows(tiles) {
    const rows = [[]];
    let x = LANE_X + 18;
    for (const [near, far] of tiles) {
      const width = near === far ? T + 8 : 2 * T + 8;
      if (x + width > RIGHT) { rows.push([]); x = LANE_X + 18; }
      rows[rows.length - 1].push([near, far, x + width / 2 - 4]);
      x += width;
    }
    return rows;
  }

  function draw(svg, state) {
    setLayout(svg.getBoundingClientRect().width || 1000);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const table = state.table;
    const players = state.players || [];
    if (!table) {
      svg.setAttribute("viewBox", "0 0 1000 300");
      text(svg, 500, 150, "Waiting for the table…", "waiting", { "text-anchor": "middle" });
      return;
    }
    const trains = table.trains.slice().sort((a, b) =>
      (a.owner === "mexican") - (b.owner === "mexican") ||
      (a.owner === "mexican" ? 0 : a.owner - b.owner));
    const lanes = trains.map((train) => ({ train, rows: laneRows(train.tiles) }));
    const LABEL = 28, ROW = 2 * T + 14, GAP = 12, HUB_ROW = narrow ? 120 : 0;
    let y = 12 + HUB_ROW;
    for (const lane of lanes) {
      lane.top = y;
      lane.height = LABEL + lane.rows.length * ROW;
      y += lane.height + GAP;
    }
    const height = Math.max(y, narrow ? 0 : 300);
    svg.setAttribute("viewBox", `0 0 ${W} ${height}`);
    el("rect", { x: 0, y: 0, width: W, height, rx: 18, class: "felt" }, svg);

    // The hub with the engine, and a line from the hub to each lane.
    const hubY = narrow ? 66 : height / 2;
    const hubR = narrow ? 56 : 78;
    const links = el("g", { class: "links" }, svg);
    for (const lane of narrow ? [] : lanes) {
      const ly = lane.top + LABEL + ROW / 2;
      const d = `M ${HUB_X + 70} ${hubY} C ${LANE_X - 40} ${hubY}, ${LANE_X - 60} ${ly}, ${LANE_X} ${ly}`;
      el("path", { d, class: "link" + (lane.train.owner === "mexican" ? " mexican" : "") }, links);
    }
    el("circle", { cx: HUB_X, cy: hubY, r: hubR, class: "hub" }, svg);
    if (!narrow) text(svg, HUB_X, hubY - 50, "ENGINE", "hub-label", { "text-anchor": "middle" });
    else text(svg, HUB_X - hubR - 14, hubY + 6, "ENGINE", "hub-label", { "text-anchor": "end" });
    const scale = narrow ? 0.95 : 1.1;
    const engine = el("g", { class: "engine", transform: `translate(${HUB_X},${hubY + (narrow ? 0 : 8)}) scale(${scale})` }, svg);
    tile(engine, 0, 0, table.engine, table.engine, {});

    lanes.forEach((lane) => {
      const { train } = lane;
      const owner = train.owner;
      const isTurn = owner !== "mexican" && owner === state.turn;
      const ends = train.tiles.length ? train.tiles[train.tiles.length - 1] : null;
      const openDouble = ends && ends[0] === ends[1];
      const g = el("g", { class: "lane" + (isTurn ? " turn" : "") + (owner === "mexican" ? " mexican" : ""),
                          "data-owner": String(owner) }, svg);
      el("rect", { x: LANE_X - 6, y: lane.top, width: RIGHT - LANE_X + 12, height: lane.height,
                   rx: 12, class: "lane-bg" }, g);
      let label = ownerName(owner, players);
      if (isTurn) label = "▶ " + label + " — to play";
      text(g, LANE_X + 10, lane.top + 23, label, "lane-label");
      const badges = [];
      if (train.marker) badges.push(["marker", owner === "mexican" ? "marker" : "marker · open"]);
      if (openDouble) badges.push(["open-double", `open double ${ends[0]}-${ends[1]}`]);
      badges.push(["count", `${train.tiles.length} tile${train.tiles.length === 1 ? "" : "s"}`]);
      let bx = RIGHT - 8;
      for (const [cls, word] of badges.reverse()) {
        const width = word.length * 9.2 + 18;
        el("rect", { x: bx - width + 8, y: lane.top + 5, width, height: 24, rx: 12, class: "badge " + cls }, g);
        text(g, bx - 1, lane.top + 22, word, "badge-text " + cls, { "text-anchor": "end" });
        bx -= width + 6;
      }
      if (train.marker) {
        // The marker: a little round token at the start of the lane.
        el("circle", { cx: LANE_X + 4, cy: lane.top + LABEL + ROW / 2, r: 12, class: "marker-token" }, g);
      }
      const last = train.tiles.length - 1;
      // With the table before it (a replay), the tiles laid since are marked.
      const earlier = state.before ? state.before.trains.find((t) => t.owner === owner) : null;
      const laidBefore = (k) => !state.before || (earlier && k < earlier.tiles.length &&
        earlier.tiles[k][0] === train.tiles[k][0] && earlier.tiles[k][1] === train.tiles[k][1]);
      let index = 0;
      lane.rows.forEach((row, r) => {
        const cy = lane.top + LABEL + r * ROW + ROW / 2;
        for (const [near, far, cx] of row) {
          tile(g, cx, cy, near, far, { openDouble: openDouble && index === last,
                                       fresh: !laidBefore(index) });
          index++;
        }
      });
      if (!train.tiles.length) {
        text(g, LANE_X + 30, lane.top + LABEL + ROW / 2 + 6, owner === "mexican" ? "not started" : "no tiles yet",
             "empty-lane");
      }
    });
  }

  /* -- a round's replay: shared by the live page and a past round's page ------------ */

  /** A replay frame's alerts as list items (notices marked), titled by ``titleOf``. */
  function replayAlertItems(alerts, titleOf) {
    return alerts.map((alert) => {
      const li = document.createElement("li");
      li.className = "replay-alert" + (alert.notice ? " notice" : "");
      const strong = document.createElement("strong");
      strong.textContent = titleOf(alert);
      li.append(strong, " ", alert.text || alert.message);
      return li;
    });
  }

  /** One button on the timeline per frame that raised alerts; ``pick(i)`` shows frame i. */
  function replayMarks(frames, titleOf, pick) {
    const last = Math.max(1, frames.length - 1);
    return frames.flatMap((frame, i) => {
      if (!frame.alerts.length) return [];
      const b = document.createElement("button");
      b.type = "button";
      b.className = "mark" + (frame.alerts.every((a) => a.notice) ? " notice" : "");
      b.dataset.index = String(i);
      b.style.left = `${(100 * i) / last}%`;
      b.title = frame.alerts.map((a) => `${titleOf(a)}: ${a.text || a.message}`).join("\n");
      b.setAttribute("aria-label", `Table ${i + 1}: ${frame.alerts.map(titleOf).join(", ")}`);
      b.addEventListener("click", () => pick(i));
      return [b];
    });
  }

  return { draw, ownerName, COLOURS, replayAlertItems, replayMarks };
})();
