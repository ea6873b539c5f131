// A hand's photo full size (templates/_hand_viewer.html): opens on a tap on the photo,
// zooms with the buttons, a pinch or ctrl+wheel, scrolls to pan; a tap on a reading opens
// a form that corrects it ("Use these counts", "Right as read", "Not a tile").
(() => {
  "use strict";
  const MIN = 0.1, MAX = 8;

  function setUp(dialog) {
    const width = Number(dialog.dataset.width) || 1, height = Number(dialog.dataset.height) || 1;
    const scroll = dialog.querySelector(".viewer-scroll");
    const canvas = dialog.querySelector(".viewer-canvas");
    const img = canvas.querySelector("img");
    const form = dialog.querySelector(".reading-form");
    let zoom = 1;

    function fit() {
      const w = scroll.clientWidth || window.innerWidth, h = scroll.clientHeight || window.innerHeight;
      return Math.min(w / width, h / height);
    }
    function setZoom(z) {
      zoom = Math.min(MAX, Math.max(MIN, z));
      canvas.style.width = `${Math.round(width * zoom)}px`;
      canvas.style.height = `${Math.round(height * zoom)}px`;
      dialog.dataset.zoom = zoom.toFixed(3);
    }
    function open() {
      if (!img.getAttribute("src")) img.src = img.dataset.src;
      if (!dialog.open) dialog.showModal();
      setZoom(fit());  // the whole photo, as large as the screen allows
    }
    dialog.open_viewer = open;

    dialog.querySelector("[data-close]").addEventListener("click", () => dialog.close());
    dialog.querySelectorAll("[data-zoom]").forEach((button) => {
      button.addEventListener("click", () => {
        const how = button.dataset.zoom;
        setZoom(how === "in" ? zoom * 1.5 : how === "out" ? zoom / 1.5 : how === "full" ? 1 : fit());
      });
    });
    scroll.addEventListener("wheel", (event) => {
      if (!event.ctrlKey) return;
      event.preventDefault();
      setZoom(zoom * (event.deltaY < 0 ? 1.15 : 1 / 1.15));
    }, { passive: false });
    let pinch = null;
    scroll.addEventListener("touchstart", (event) => {
      if (event.touches.length === 2) {
        const [a, b] = event.touches;
        pinch = { d: Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY), z: zoom };
      }
    }, { passive: true });
    scroll.addEventListener("touchmove", (event) => {
      if (!pinch || event.touches.length !== 2) return;
      event.preventDefault();
      const [a, b] = event.touches;
      setZoom(pinch.z * Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY) / pinch.d);
    }, { passive: false });
    scroll.addEventListener("touchend", () => { pinch = null; });

    function choose(group) {
      dialog.querySelectorAll("g.reading.selected").forEach((g) => g.classList.remove("selected"));
      group.classList.add("selected");
      form.action = form.dataset.url.replace(/\/0$/, `/${group.dataset.index}`);
      const [a, b] = (group.dataset.text || "0-0").split("-");
      form.elements.a.value = a;
      form.elements.b.value = b;
      const why = group.dataset.why;
      form.querySelector(".reading-what").textContent =
        `Reading ${group.dataset.text}${why ? ` — ${why}` : ""}. Correct it, or confirm it:`;
      const leftOut = group.classList.contains("left-out");
      form.querySelector(".right-as-read").textContent = leftOut ? "A tile, as read" : "Right as read";
      form.querySelector(".not-tile").textContent = leftOut ? "Not a tile: leave it out" : "Not a tile";
      form.hidden = false;
    }
    dialog.querySelectorAll("g.reading").forEach((group) => {
      group.addEventListener("click", () => choose(group));
      group.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); choose(group); }
      });
    });
    form.querySelector("[data-cancel]").addEventListener("click", () => { form.hidden = true; });
  }

  document.querySelectorAll("dialog.hand-viewer").forEach(setUp);
  document.querySelectorAll("[data-viewer]").forEach((opener) => {
    opener.addEventListener("click", () => {
      const dialog = document.getElementById(opener.dataset.viewer);
      if (dialog && dialog.open_viewer) dialog.open_viewer();
    });
  });
  const seat = new URLSearchParams(window.location.search).get("view");
  if (seat !== null && /^\d+$/.test(seat)) {
    const dialog = document.getElementById(`viewer-${seat}`);
    if (dialog && dialog.open_viewer) dialog.open_viewer();
  }
})();
