/* mtrain: helpers shared by every page (CSRF header, the PIN dialog), and the score pad
   scrolled to the round being played. No external code. */
"use strict";

const mtrain = (() => {
  const csrf = () => document.querySelector('meta[name="csrf-token"]').content;

  /* The PIN dialog. It stays open until the change goes through or is cancelled, and
     always says what happened: a wrong PIN (with the tries left), a wait after wrong
     PINs (counted down; a PIN typed meanwhile is kept and sent when it is over, with
     the change it is for). */
  const pinDialog = (() => {
    const dialog = document.getElementById("pin-dialog");
    const form = document.getElementById("pin-form");
    const input = document.getElementById("pin-input");
    const error = document.getElementById("pin-error");
    const wait = document.getElementById("pin-wait");
    const ok = document.getElementById("pin-ok");
    let pending = null; // { resolve, waiting }: what the dialog is asked for now
    let kept = null; // a PIN typed during a wait, sent when the wait is over
    let timer = null;

    function say(text) {
      error.hidden = !text;
      error.textContent = text || "";
    }

    function finish(value) {
      const p = pending;
      pending = null;
      if (p) p.resolve(value);
    }

    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const pin = input.value.trim();
      if (!pin) { say("Type the table's PIN first."); input.focus(); return; }
      if (pending && pending.waiting) {
        kept = pin;
        input.value = "";
        showWait(pending.left);
        return;
      }
      finish(pin);
    });
    document.getElementById("pin-cancel").addEventListener("click", () => {
      close();
      finish(null);
    });
    dialog.addEventListener("cancel", (event) => { // Esc: the same as Cancel
      event.preventDefault();
      close();
      finish(null);
    });

    function open() {
      if (!dialog.open) dialog.showModal();
      input.focus();
    }

    function close() {
      clearInterval(timer);
      timer = null;
      kept = null;
      wait.hidden = true;
      ok.textContent = "Unlock";
      if (dialog.open) dialog.close();
    }

    /* Ask for a PIN: resolves with it, or null when cancelled. */
    function ask(message) {
      clearInterval(timer);
      wait.hidden = true;
      ok.textContent = "Unlock";
      say(message);
      input.value = "";
      open();
      return new Promise((resolve) => { pending = { resolve, waiting: false }; });
    }

    function showWait(left) {
      wait.hidden = false;
      wait.dataset.seconds = String(left);
      wait.textContent = kept
        ? `PIN kept: it is sent in ${left} s, with your change. It cannot be checked ` +
          "sooner, not even when it is right."
        : `Wait ${left} s: after wrong PINs this device may not try again sooner. ` +
          "You may type the PIN now: it is kept and sent when the wait is over.";
    }

    /* Count ``seconds`` down; resolves with the PIN to send then (``sending``, or one
       typed meanwhile), or asks for one when there is none; null when cancelled. */
    function waitOut(seconds, message, sending) {
      clearInterval(timer);
      kept = sending || null;
      say(message);
      input.value = "";
      ok.textContent = "Keep the PIN";
      open();
      return new Promise((resolve) => {
        pending = { resolve, waiting: true, left: Math.max(1, Math.ceil(seconds)) };
        showWait(pending.left);
        timer = setInterval(() => {
          if (!pending) { clearInterval(timer); return; }
          pending.left -= 1;
          if (pending.left > 0) { showWait(pending.left); return; }
          clearInterval(timer);
          timer = null;
          const pin = kept;
          kept = null;
          wait.hidden = true;
          ok.textContent = "Unlock";
          if (pin) { say("Sending the PIN…"); finish(pin); return; }
          pending.waiting = false;
          say("The wait is over: type the PIN.");
          input.focus();
        }, 1000);
      });
    }

    return { ask, waitOut, close, say };
  })();

  function askPin(message) {
    return pinDialog.ask(message).then((pin) => { pinDialog.close(); return pin; });
  }

  function send(url, body, pin) {
    const headers = { "X-CSRF-Token": csrf(), "Accept": "application/json" };
    if (pin) headers["X-Table-PIN"] = pin;
    return fetch(url, { method: "POST", headers, body: body || null, credentials: "same-origin" });
  }

  /* POST with the CSRF token. When the PIN is what is missing, the dialog asks for it
     and the change is sent again with it, as often as needed: after a wrong PIN, and
     after a wait (the change is kept meanwhile, never dropped). Resolves with the last
     response (the one refused, when the dialog was cancelled). */
  async function post(url, body) {
    let pin = null;
    for (;;) {
      let response;
      try {
        response = await send(url, body, pin);
      } catch (err) {
        if (!pin) throw err;
        pinDialog.say("The table could not be reached; trying again…");
        await new Promise((resolve) => setTimeout(resolve, 3000));
        continue;
      }
      const data = (response.status === 403 || response.status === 429)
        ? await response.clone().json().catch(() => ({})) : {};
      if (!data.pin) { pinDialog.close(); return response; }
      const state = data.pin;
      if (state.wait > 0) {
        // 429: the PIN sent was not checked (it may be right): keep it for later.
        const sending = response.status === 429 ? pin : null;
        const why = state.wrong ? "Wrong PIN." : response.status === 429
          ? "Not checked yet: this device sent wrong PINs before, so no PIN is taken until the wait is over."
          : "After wrong PINs this device must wait before a PIN is checked.";
        pin = await pinDialog.waitOut(state.wait, why, sending);
      } else {
        const left = state.tries === 1 ? "1 try left before a wait." : `${state.tries} tries left before a wait.`;
        pin = await pinDialog.ask(state.wrong ? `Wrong PIN: ${left}` : null);
      }
      if (!pin) { pinDialog.close(); return response; }
    }
  }

  return { csrf, post, askPin };
})();

/* On a narrow screen the pad scrolls sideways: show the round being played. */
(() => {
  const wrap = document.querySelector(".pad-wrap");
  const current = wrap && wrap.querySelector("th.current");
  if (current && wrap.scrollWidth > wrap.clientWidth) {
    wrap.scrollLeft = Math.max(0, current.offsetLeft - wrap.clientWidth / 2);
  }
})();

/* Times come as UTC instants (<time datetime="…Z" data-local>): shown in this device's
   zone and language. */
(() => {
  const styles = {
    datetime: { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" },
    date: { year: "numeric", month: "short", day: "numeric" },
    time: { hour: "2-digit", minute: "2-digit" },
  };
  document.querySelectorAll("time[data-local]").forEach((el) => {
    const when = new Date(el.getAttribute("datetime"));
    if (Number.isNaN(when.getTime())) return;
    el.textContent = when.toLocaleString([], styles[el.dataset.local] || styles.datetime);
    el.title = `${when.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  });
})();
