/* mtrain: helpers shared by every page (CSRF header, the PIN dialog), and the score pad
   scrolled to the round being played. No external code. */
"use strict";

const mtrain = (() => {
  const csrf = () => document.querySelector('meta[name="csrf-token"]').content;

  function askPin(message) {
    const dialog = document.getElementById("pin-dialog");
    const input = document.getElementById("pin-input");
    const error = document.getElementById("pin-error");
    error.hidden = !message;
    error.textContent = message || "";
    input.value = "";
    return new Promise((resolve) => {
      dialog.addEventListener("close", () => {
        resolve(dialog.returnValue === "ok" ? input.value.trim() : null);
      }, { once: true });
      dialog.showModal();
      input.focus();
    });
  }

  /* POST with the CSRF token; on "PIN needed" ask for it once and retry. */
  async function post(url, body) {
    let pin = null;
    for (let attempt = 0; attempt < 4; attempt++) {
      const headers = { "X-CSRF-Token": csrf(), "Accept": "application/json" };
      if (pin) headers["X-Table-PIN"] = pin;
      const response = await fetch(url, { method: "POST", headers, body: body || null,
                                           credentials: "same-origin" });
      if (response.status !== 403) return response;
      const data = await response.json().catch(() => ({}));
      pin = await askPin(attempt ? data.error : null);
      if (!pin) return response;
    }
    return null;
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
