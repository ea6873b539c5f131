/* mtrain: the live page. Server-sent events keep the table drawing and the alerts
   current without reloading. A new alert fills the screen (with a beep) only on the
   device the table chose as its referee screen; every other device gets a banner it
   may dismiss, and nobody is ever asked for the PIN to get an alert out of the way.
   Alerts can be spoken (the browser's own voice), and the round can be replayed. */
"use strict";

(() => {
  const state = JSON.parse(document.getElementById("state").textContent);
  const svg = document.getElementById("table");
  const log = document.getElementById("alert-log");
  const banner = document.getElementById("alert-banner");
  const strip = document.getElementById("alert-strip");
  const unlocked = banner.dataset.unlocked === "yes";
  const titles = state.titles || {};
  let audio = null;

  /* Per-device choices, kept in this browser only. */
  const choice = (key, fallback) => {
    const value = localStorage.getItem(key);
    return value === null ? fallback : value === "on";
  };
  const device = {
    referee: choice("mtrain-referee", false),
    sound: choice("mtrain-sound", true),
    speak: choice("mtrain-speak", false),
  };

  const alarmQueue = []; // new alerts the referee screen shows full-screen, oldest first
  const stripQueue = []; // new alerts a watcher's banner shows, oldest first
  // Alerts up to this id were there when the page opened: listed, never alarmed.
  let seen = Math.max(0, ...state.alerts.map((a) => a.id || 0));

  const isNotice = (alert) => Boolean(alert.notice);
  const titleOf = (alert) => alert.title || titles[alert.code] || alert.code;

  function beep() {
    if (!device.sound) return;
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
    } catch (err) { /* no audio on this device: the alarm still shows */ }
  }

  /* Say an alert with the device's own (offline) voice. */
  function speak(alert) {
    if (!device.speak || !("speechSynthesis" in window)) return;
    const words = new SpeechSynthesisUtterance(`${titleOf(alert)}. ${alert.text || alert.message}`);
    const voices = window.speechSynthesis.getVoices();
    const local = voices.find((v) => v.localService && v.lang.startsWith("en")) ||
      voices.find((v) => v.localService);
    if (local) words.voice = local;
    window.speechSynthesis.speak(words);
  }

  function showSwitch(id, on, label) {
    const button = document.getElementById(id);
    button.textContent = `${label}: ${on ? "on" : "off"}`;
    button.setAttribute("aria-pressed", String(on));
  }

  function showSwitches() {
    showSwitch("referee", device.referee, "Referee screen");
    showSwitch("sound", device.sound, "Sound");
    showSwitch("speak", device.speak, "Speak");
    document.getElementById("sound").hidden = !device.referee;
  }

  function toggle(key, name) {
    device[name] = !device[name];
    localStorage.setItem(key, device[name] ? "on" : "off");
    showSwitches();
  }

  document.getElementById("referee").addEventListener("click", () => {
    toggle("mtrain-referee", "referee");
    // The alarm is this screen's from now on; the banner's alerts move to it and back.
    if (device.referee) { alarmQueue.push(...stripQueue.splice(0)); } else { stripQueue.push(...alarmQueue.splice(0)); }
    renderAlarm(); renderStrip();
  });
  document.getElementById("sound").addEventListener("click", () => {
    toggle("mtrain-sound", "sound");
    if (device.sound) beep();
  });
  document.getElementById("speak").addEventListener("click", () => {
    toggle("mtrain-speak", "speak");
    if (device.speak && "speechSynthesis" in window) {
      window.speechSynthesis.speak(new SpeechSynthesisUtterance("Alerts will be spoken."));
    }
  });
  // Browsers start audio only after a tap: prime it on the first one.
  document.addEventListener("pointerdown", () => {
    if (device.sound && !audio) {
      try { audio = new (window.AudioContext || window.webkitAudioContext)(); } catch (err) { /* none */ }
    }
  }, { once: true });

  function logItem(alert) {
    const li = document.createElement("li");
    li.className = "alert-item" + (alert.acked ? " acked" : "") + (isNotice(alert) ? " notice" : "")
      + (alert.doubtful ? " doubtful" : "");
    li.dataset.id = alert.id;
    const title = document.createElement("strong");
    title.textContent = titleOf(alert);
    const text = document.createElement("span");
    text.className = "who";
    text.textContent = alert.text || alert.message;
    li.append(title, text);
    if (alert.advice) {
      const advice = document.createElement("span");
      advice.className = "msg";
      advice.textContent = alert.advice;
      li.append(advice);
    }
    if (!alert.acked && alert.id && !isNotice(alert)) {
      const b = document.createElement("button");
      b.className = "chip ack-small";
      b.textContent = "OK";
      b.title = "Acknowledge for everyone (needs the table's PIN)";
      b.addEventListener("click", () => ack(alert.id));
      li.append(b);
    }
    return li;
  }

  function renderLog() {
    log.replaceChildren(...state.alerts.slice().reverse().map(logItem));
    document.getElementById("no-alerts").hidden = state.alerts.length > 0;
  }

  function renderAlarm() {
    const alert = alarmQueue[0];
    banner.dataset.ids = alarmQueue.map((a) => a.id).join(" ");
    if (!alert || !device.referee) { banner.hidden = true; return; }
    banner.hidden = false;
    banner.classList.toggle("doubtful", Boolean(alert.doubtful));
    document.getElementById("alert-code").textContent = titleOf(alert);
    document.getElementById("alert-who").textContent = alert.text || alert.message;
    document.getElementById("alert-msg").textContent = alert.advice || "";
    document.getElementById("alert-more").textContent =
      alarmQueue.length > 1 ? `${alarmQueue.length - 1} more after this one` : "";
  }

  function renderStrip() {
    const alert = stripQueue[stripQueue.length - 1];
    strip.dataset.ids = stripQueue.map((a) => a.id).join(" ");
    if (!alert || device.referee) { strip.hidden = true; return; }
    strip.hidden = false;
    document.getElementById("strip-title").textContent = titleOf(alert);
    document.getElementById("strip-text").textContent = alert.text || alert.message;
    document.getElementById("strip-more").textContent =
      stripQueue.length > 1 ? `(+${stripQueue.length - 1} more in the list)` : "";
  }

  document.getElementById("strip-dismiss").addEventListener("click", () => {
    stripQueue.splice(0);
    renderStrip();
  });

  function toast(text) {
    const box = document.getElementById("round-over");
    box.textContent = text;
    box.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { box.hidden = true; }, 8000);
  }

  async function ack(id) {
    let response;
    try {
      response = await mtrain.post(`/alerts/${id}/ack`);
    } catch (err) {
      toast("Not acknowledged: the table could not be reached. Try again.");
      return;
    }
    if (response.ok) {
      const data = await response.json();
      applyAck(data.alert);
      return;
    }
    const data = await response.json().catch(() => ({}));
    toast(data.pin ? "Not acknowledged: the PIN was not given. The alert stays open."
      : `Not acknowledged: ${data.error || response.statusText}`);
  }

  function applyAck(alert) {
    for (const q of [alarmQueue, stripQueue]) {
      const i = q.findIndex((a) => a.id === alert.id);
      if (i >= 0) q.splice(i, 1);
    }
    const j = state.alerts.findIndex((a) => a.id === alert.id);
    if (j >= 0) state.alerts[j] = Object.assign({}, state.alerts[j], { acked: alert.acked });
    renderAlarm(); renderStrip(); renderLog();
  }

  /* "Got it": the referee screen acknowledges for everyone when it holds the PIN;
     without it the alarm closes here and the alert stays open in the list. */
  document.getElementById("alert-ack").addEventListener("click", () => {
    const alert = alarmQueue.shift();
    renderAlarm();
    if (alert && alert.id && unlocked) ack(alert.id);
  });

  /* A new alert: listed everywhere; it alarms the referee screen, and shows in the
     banner of every other device. Notices (an open double) are only listed. */
  function arrive(alert) {
    if (alert.id) {
      if (alert.id <= seen) return; // told already (the stream's snapshot and event overlap)
      seen = alert.id;
    }
    if (isNotice(alert)) return;
    if (device.referee) {
      alarmQueue.push(alert);
      renderAlarm();
      beep();
    } else {
      stripQueue.push(alert);
      renderStrip();
    }
    speak(alert);
  }

  function renderHead() {
    const turn = document.getElementById("turn");
    const shown = replay.open ? replay.frames[replay.index] : state;
    if (shown && shown.table && shown.turn !== null && shown.turn !== undefined) {
      turn.textContent = `▶ ${TableView.ownerName(shown.turn, state.players)} to play`;
    } else {
      turn.textContent = "";
    }
    const camera = document.getElementById("camera");
    if (state.status) {
      camera.textContent = (state.status.ok ? "● " : "⚠ ") + state.status.message;
      camera.classList.toggle("lost", !state.status.ok);
    }
    // The engine drawn is the table's: say so when it is not this round's.
    const engineNo = document.getElementById("engine-no");
    if (engineNo && state.game) {
      const engine = shown && shown.table ? shown.table.engine : state.game.engine;
      engineNo.textContent = `${engine}-${engine}`;
      document.getElementById("engine-note").hidden = engine === state.game.engine;
    }
  }

  function render() {
    if (replay.open) return; // the replay holds the drawing
    TableView.draw(svg, state);
    renderHead();
  }

  function applySnapshot(snap) {
    const sameGame = (snap.game && snap.game.id) === (state.game && state.game.id) &&
      (snap.game && snap.game.round) === (state.game && state.game.round);
    if (!sameGame) { window.location.reload(); return; }
    const fresh = snap.alerts.filter((a) => a.id && a.id > seen && !a.acked);
    Object.assign(state, snap);
    render(); renderLog();
    fresh.forEach(arrive); // those that came while the stream was away
  }

  /* -- the round's replay ------------------------------------------------------- */

  const replay = { open: false, frames: [], index: 0 };
  const range = document.getElementById("replay-range");

  function clock(seconds) {
    return new Date(seconds * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }

  function showFrame(i) {
    const frames = replay.frames;
    if (!frames.length) {
      document.getElementById("replay-where").textContent = "No table has settled this round yet.";
      return;
    }
    replay.index = Math.max(0, Math.min(frames.length - 1, i));
    const frame = frames[replay.index];
    const before = replay.index > 0 ? frames[replay.index - 1].table : null;
    range.value = String(replay.index);
    TableView.draw(svg, { table: frame.table, turn: frame.turn, players: state.players, before });
    const where = `Table ${replay.index + 1} of ${frames.length} · ${clock(frame.at)}`;
    document.getElementById("replay-where").textContent = where;
    document.getElementById("replay-flag-text").textContent = where;
    document.getElementById("replay-alerts").replaceChildren(
      ...TableView.replayAlertItems(frame.alerts, titleOf));
    document.querySelectorAll("#replay-marks button").forEach((b) => {
      b.classList.toggle("here", Number(b.dataset.index) === replay.index);
    });
    renderHead();
  }

  function drawMarks() {
    document.getElementById("replay-marks").replaceChildren(
      ...TableView.replayMarks(replay.frames, titleOf, showFrame));
  }

  async function loadReplay() {
    const url = state.game ? `/api/games/${state.game.id}/rounds/${state.game.round}/replay` : "/api/replay";
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    if (!response.ok) return;
    const data = await response.json();
    const atEnd = replay.index >= replay.frames.length - 1;
    replay.frames = data.frames;
    range.max = String(Math.max(0, replay.frames.length - 1));
    drawMarks();
    showFrame(atEnd ? replay.frames.length - 1 : replay.index);
  }

  function openReplay(open) {
    replay.open = open;
    document.getElementById("replay-body").hidden = !open;
    document.getElementById("replay-flag").hidden = !open;
    document.getElementById("replay-open").textContent = open ? "Close the replay" : "Replay the round";
    document.body.classList.toggle("replaying", open);
    if (open) { replay.index = Number.MAX_SAFE_INTEGER; loadReplay(); } else { render(); }
  }

  document.getElementById("replay-open").addEventListener("click", () => openReplay(!replay.open));
  document.getElementById("replay-live").addEventListener("click", () => openReplay(false));
  range.addEventListener("input", () => showFrame(Number(range.value)));
  document.getElementById("replay-prev").addEventListener("click", () => showFrame(replay.index - 1));
  document.getElementById("replay-next").addEventListener("click", () => showFrame(replay.index + 1));

  /* -- the stream ---------------------------------------------------------------- */

  /* A stream the server refused (too many screens on this device, or at the table):
     say so, with the numbers, and try again in a while or when asked. */
  const streamNote = document.getElementById("stream-note");
  let retryTimer = null;

  async function refused() {
    let text = "Live updates stopped: the table refused this screen.";
    try {
      const room = await (await fetch("/api/streams", { headers: { Accept: "application/json" } })).json();
      if (room.device >= room.device_limit) {
        text = `Too many screens: this device already has ${room.device} live pages open ` +
          `(at most ${room.device_limit}). Close one; this page tries again by itself.`;
      } else if (room.all >= room.all_limit) {
        text = `Too many screens: ${room.all} live pages are open at this table (at most ` +
          `${room.all_limit}). Close one on another device; this page tries again by itself.`;
      }
    } catch (err) { /* the table cannot be reached: the general words stay */ }
    document.getElementById("stream-text").textContent = text;
    streamNote.hidden = false;
    clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, 10000);
  }

  document.getElementById("stream-retry").addEventListener("click", () => {
    clearTimeout(retryTimer);
    connect();
  });

  let live = null;
  // a page put away gives its stream's place back at once; brought back, it reconnects
  window.addEventListener("pagehide", () => { if (live) live.close(); });
  window.addEventListener("pageshow", (event) => { if (event.persisted) connect(); });

  function connect() {
    const source = new EventSource("/stream");
    live = source;
    source.addEventListener("snapshot", (e) => applySnapshot(JSON.parse(e.data)));
    source.addEventListener("table", (e) => {
      const m = JSON.parse(e.data);
      if ((state.game ? state.game.id : null) !== m.game_id) return;
      state.table = m.table;
      state.turn = m.turn;
      if (replay.open) loadReplay(); else render();
    });
    source.addEventListener("alert", (e) => {
      const alert = JSON.parse(e.data).alert;
      if ((state.game ? state.game.id : null) !== alert.game_id) return;
      if (alert.id && state.alerts.some((a) => a.id === alert.id)) return;
      state.alerts.push(alert);
      if (state.alerts.length > 50) state.alerts.shift();
      renderLog();
      arrive(alert);
    });
    source.addEventListener("ack", (e) => applyAck(JSON.parse(e.data).alert));
    source.addEventListener("status", (e) => {
      const m = JSON.parse(e.data);
      state.status = { ok: m.ok, reason: m.reason, message: m.message };
      renderHead();
    });
    source.addEventListener("round-over", (e) => toast(JSON.parse(e.data).message));
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) { refused(); return; }
      const camera = document.getElementById("camera");
      camera.textContent = "⚠ Connection to the table lost — reconnecting…";
      camera.classList.add("lost");
    };
    source.onopen = () => {
      streamNote.hidden = true;
      document.body.classList.add("connected");
    };
  }

  let lastWidth = 0;
  window.addEventListener("resize", () => {
    const width = svg.getBoundingClientRect().width;
    if (Math.abs(width - lastWidth) > 40) {
      lastWidth = width;
      if (replay.open) showFrame(replay.index); else render();
    }
  });

  showSwitches();
  applySnapshot(state);
  connect();
})();
