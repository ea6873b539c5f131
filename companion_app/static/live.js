/* mtrain: the live page. Server-sent events keep the table drawing and the alerts
   current without reloading; a new alert fills the screen with a beep until tapped. */
"use strict";

(() => {
  const state = JSON.parse(document.getElementById("state").textContent);
  const svg = document.getElementById("table");
  const log = document.getElementById("alert-log");
  const banner = document.getElementById("alert-banner");
  const soundButton = document.getElementById("sound");
  let audio = null;
  let soundOn = localStorage.getItem("mtrain-sound") !== "off";
  const queue = []; // unacknowledged alerts, oldest first

  const CODE_TITLES = {
    "mismatch": "Tile does not match", "closed-train": "Closed train",
    "unsatisfied-double": "Open double first", "double-order": "Doubles out of order",
    "extra-tile": "Too many tiles", "first-turn": "First-turn rule", "duplicate-tile": "Same tile twice",
    "not-in-set": "Not in the set", "tile-removed": "Tile removed", "marker-missing": "Marker missing",
    "marker-stale": "Marker should go", "open-double": "Open double",
  };

  function who(alert) {
    const parts = [];
    if (alert.seat !== null && alert.seat !== undefined) parts.push(TableView.ownerName(Number(alert.seat), state.players));
    if (alert.train !== null && alert.train !== undefined) {
      const train = alert.train === "mexican" ? "mexican" : Number(alert.train);
      const name = train === "mexican" ? "the Mexican train" :
        (train === Number(alert.seat) ? "their own train" : `${TableView.ownerName(train, state.players)}'s train`);
      parts.push("on " + name);
    }
    return parts.join(" ");
  }

  function beep() {
    if (!soundOn) return;
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      if (audio.state === "suspended") audio.resume();
      const now = audio.currentTime;
      [0, 0.22].forEach((offset, i) => {
        const osc = audio.createOscillator();
        const gain = audio.createGain();
        osc.type = "square";
        osc.frequency.value = i ? 660 : 880;
        gain.gain.setValueAtTime(0.0001, now + offset);
        gain.gain.exponentialRampToValueAtTime(0.25, now + offset + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + offset + 0.18);
        osc.connect(gain).connect(audio.destination);
        osc.start(now + offset);
        osc.stop(now + offset + 0.2);
      });
    } catch (err) { /* no audio on this device: the banner still shows */ }
  }

  function showSound() {
    soundButton.textContent = soundOn ? "Sound: on" : "Sound: off";
    soundButton.setAttribute("aria-pressed", String(soundOn));
  }
  soundButton.addEventListener("click", () => {
    soundOn = !soundOn;
    localStorage.setItem("mtrain-sound", soundOn ? "on" : "off");
    showSound();
    if (soundOn) beep();
  });
  // Browsers start audio only after a tap: prime it on the first one.
  document.addEventListener("pointerdown", () => {
    if (soundOn && !audio) {
      try { audio = new (window.AudioContext || window.webkitAudioContext)(); } catch (err) { /* none */ }
    }
  }, { once: true });

  function logItem(alert) {
    const li = document.createElement("li");
    li.className = "alert-item" + (alert.acked ? " acked" : "") + (alert.code === "open-double" ? " notice" : "");
    li.dataset.id = alert.id;
    const title = document.createElement("strong");
    title.textContent = CODE_TITLES[alert.code] || alert.code;
    const whoEl = document.createElement("span");
    whoEl.className = "who";
    whoEl.textContent = who(alert);
    const msg = document.createElement("span");
    msg.className = "msg";
    msg.textContent = alert.message;
    li.append(title, " ", whoEl, msg);
    if (!alert.acked && alert.id) {
      const b = document.createElement("button");
      b.className = "chip ack-small";
      b.textContent = "OK";
      b.addEventListener("click", () => ack(alert.id));
      li.append(b);
    }
    return li;
  }

  function renderLog() {
    log.replaceChildren(...state.alerts.slice().reverse().map(logItem));
    document.getElementById("no-alerts").hidden = state.alerts.length > 0;
  }

  function renderBanner() {
    const alert = queue[0];
    if (!alert) { banner.hidden = true; return; }
    banner.hidden = false;
    banner.classList.toggle("notice", alert.code === "open-double");
    document.getElementById("alert-code").textContent = CODE_TITLES[alert.code] || alert.code;
    document.getElementById("alert-who").textContent = who(alert);
    document.getElementById("alert-msg").textContent = alert.message;
    document.getElementById("alert-more").textContent =
      queue.length > 1 ? `${queue.length - 1} more waiting` : "";
  }

  async function ack(id) {
    if (!id) { queue.shift(); renderBanner(); return; }
    const response = await mtrain.post(`/alerts/${id}/ack`);
    if (response && response.ok) {
      const data = await response.json();
      applyAck(data.alert);
    }
  }

  function applyAck(alert) {
    const i = queue.findIndex((a) => a.id === alert.id);
    if (i >= 0) queue.splice(i, 1);
    const j = state.alerts.findIndex((a) => a.id === alert.id);
    if (j >= 0) state.alerts[j] = alert;
    renderBanner();
    renderLog();
  }

  document.getElementById("alert-ack").addEventListener("click", () => queue[0] && ack(queue[0].id));

  function renderHead() {
    const turn = document.getElementById("turn");
    if (state.table && state.turn !== null && state.turn !== undefined) {
      turn.textContent = `▶ ${TableView.ownerName(state.turn, state.players)} to play`;
    } else {
      turn.textContent = "";
    }
    const camera = document.getElementById("camera");
    if (state.status) {
      camera.textContent = (state.status.ok ? "● " : "⚠ ") + state.status.message;
      camera.classList.toggle("lost", !state.status.ok);
    }
  }

  function render() {
    TableView.draw(svg, state);
    renderHead();
  }

  function applySnapshot(snap) {
    const sameGame = (snap.game && snap.game.id) === (state.game && state.game.id) &&
      (snap.game && snap.game.round) === (state.game && state.game.round);
    if (!sameGame) { window.location.reload(); return; }
    Object.assign(state, snap);
    queue.splice(0, queue.length, ...state.alerts.filter((a) => !a.acked && a.code !== "open-double"));
    render(); renderLog(); renderBanner();
  }

  function connect() {
    const source = new EventSource("/stream");
    source.addEventListener("snapshot", (e) => applySnapshot(JSON.parse(e.data)));
    source.addEventListener("table", (e) => {
      const m = JSON.parse(e.data);
      if ((state.game ? state.game.id : null) !== m.game_id) return;
      state.table = m.table;
      state.turn = m.turn;
      render();
    });
    source.addEventListener("alert", (e) => {
      const alert = JSON.parse(e.data).alert;
      if ((state.game ? state.game.id : null) !== alert.game_id) return;
      state.alerts.push(alert);
      if (state.alerts.length > 50) state.alerts.shift();
      renderLog();
      if (alert.code !== "open-double") {
        queue.push(alert);
        renderBanner();
        beep();
      }
    });
    source.addEventListener("ack", (e) => applyAck(JSON.parse(e.data).alert));
    source.addEventListener("status", (e) => {
      const m = JSON.parse(e.data);
      state.status = { ok: m.ok, message: m.message };
      renderHead();
    });
    source.addEventListener("round-over", (e) => {
      const toast = document.getElementById("round-over");
      toast.textContent = JSON.parse(e.data).message;
      toast.hidden = false;
      setTimeout(() => { toast.hidden = true; }, 8000);
    });
    source.onerror = () => {
      const camera = document.getElementById("camera");
      camera.textContent = "⚠ Connection to the table lost — reconnecting…";
      camera.classList.add("lost");
    };
    source.onopen = () => document.body.classList.add("connected");
  }

  let lastWidth = 0;
  window.addEventListener("resize", () => {
    const width = svg.getBoundingClientRect().width;
    if (Math.abs(width - lastWidth) > 40) { lastWidth = width; render(); }
  });

  showSound();
  applySnapshot(state);
  connect();
})();
