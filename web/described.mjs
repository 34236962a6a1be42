// A chart's words for screen readers: a summary sentence and the data drawn,
// as a table, both hidden from the eye beside the canvas, which names them in
// aria-describedby.
import { $, esc } from "./dom.mjs";

/** The element `id` after `anchor`, made (hidden from the eye) when absent. */
function beside(anchor, id, tag) {
  let el = $(id);
  if (!el) {
    el = document.createElement(tag);
    el.id = id;
    el.className = "visually-hidden";
    anchor.after(el);
  }
  return el;
}

/**
 * Describes canvas `id`: `summary` (a sentence), and `rows` (arrays of cell
 * texts) under the column names `head`, captioned `caption`. With a null
 * summary the description is emptied (the canvas shows nothing).
 */
export function describeChart(id, summary, head = [], rows = [], caption = summary) {
  const canvas = $(id);
  const p = beside(canvas, `${id}-summary`, "p");
  const table = beside(p, `${id}-data`, "table");
  p.textContent = summary ?? "";
  table.innerHTML = summary === null ? "" :
    `<caption>${esc(caption)}</caption><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join("")}</tr>` +
    rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("");
  canvas.setAttribute("aria-describedby", `${id}-summary ${id}-data`);
}
