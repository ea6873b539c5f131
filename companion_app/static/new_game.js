/* mtrain: the new-game form shows each rule's value in the chosen preset. */
"use strict";

(() => {
  const values = JSON.parse(document.getElementById("preset-values").textContent);
  const select = document.getElementById("preset");
  const show = () => {
    const v = values[select.value] || {};
    document.querySelectorAll(".preset-value").forEach((el) => {
      const x = v[el.dataset.key];
      el.textContent = "preset: " + (x === true ? "yes" : x === false ? "no" : x);
    });
  };
  select.addEventListener("change", show);
  show();
})();
