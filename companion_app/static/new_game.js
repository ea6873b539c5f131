/* mtrain: the new-game form shows what the chosen preset is and each rule's value in it. */
"use strict";

(() => {
  const values = JSON.parse(document.getElementById("preset-values").textContent);
  const select = document.getElementById("preset");
  const show = () => {
    const v = values[select.value] || {};
    const chosen = select.options[select.selectedIndex];
    document.getElementById("preset-about").textContent = chosen ? chosen.dataset.about : "";
    document.querySelectorAll(".preset-value").forEach((el) => {
      const x = v[el.dataset.key];
      el.textContent = "preset: " + (x === true ? "yes" : x === false ? "no" : x);
    });
  };
  select.addEventListener("change", show);
  show();
})();
