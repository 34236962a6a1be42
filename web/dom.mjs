// The page's elements: lookup, escaping, and number fields read at the
// boundary (each within its own min, max and step, or refused with a message).

export const $ = (id) => document.getElementById(id);
export const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

/**
 * The values of number fields, each within its own `min` and `max` (and a
 * whole number where its `step` is whole), or null when one is not: that
 * field is marked invalid and `errorId` says which and why. Nothing is
 * clamped or replaced.
 */
export function checkedNumbers(ids, errorId) {
  const problems = [];
  const values = {};
  for (const id of ids) {
    const el = $(id);
    const v = el.valueAsNumber;
    const whole = !el.step || (Number.isInteger(Number(el.step)) && Number(el.step) >= 1);
    const min = el.min === "" ? -Infinity : Number(el.min);
    const max = el.max === "" ? Infinity : Number(el.max);
    const ok = Number.isFinite(v) && v >= min && v <= max && (!whole || Number.isInteger(v));
    el.setAttribute("aria-invalid", String(!ok));
    if (ok) values[id] = v;
    else {
      const name = el.closest("label")?.firstChild?.textContent.trim() || id;
      const shown = el.validity.badInput || el.value === "" ? "not a number" : el.value;
      const range = el.max === "" ? `from ${el.min} up` : `from ${el.min} to ${el.max}`;
      problems.push(`${name} must be ${whole ? "a whole number" : "a number"} ${range} (got ${shown})`);
    }
  }
  $(errorId).textContent = problems.length ? `${problems.join("; ")}. Nothing changed.` : "";
  return problems.length ? null : values;
}
