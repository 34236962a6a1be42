// The number line of a flip: the representable values around two tokens'
// scores at one precision, each found by the core (inspectFloat's next up and
// next down, step by step), the distance in ulps between the scores from the
// core, and a canvas drawing of one line per precision.
import { ex } from "./core.mjs";
import { PRECISION_COLOR } from "./chart.mjs";
import { redrawOnResize, sharpContext } from "./resized.mjs";

/** Representable values drawn on each side of a score. */
const SIDE = 2;
/** Gaps up to this many ulps are drawn whole; wider ones are broken in the middle. */
const WHOLE = 12;

/** The representable values `count` steps up (or down) from `bits` at `precision`, from the core. */
function steps(bits, precision, count, up) {
  const out = [];
  for (let k = 0; k < count; k++) {
    const next = ex.inspectFloat(bits)[precision][up ? "nextUp" : "nextDown"];
    out.push(next);
    bits = next.bits;
  }
  return out;
}

/**
 * One precision's line: `scores` are two [token, {score, bits}] with bits in
 * `precision`; returns { precision, low, high, ulps, exact, lowAt, highAt,
 * ticks: [{ offset, value, bits }] } with offsets in ulps from the lower
 * score, `lowAt` and `highAt` the two scores' ticks, and `exact` false when
 * the core's count of ulps is past 2^53 (a number rounds it, and the high
 * side's offsets with it), or { precision, refused } when a score is NaN or
 * infinite.
 */
export function ulpLine(precision, scores) {
  const [x, y] = scores;
  if (![x, y].every(([, s]) => Number.isFinite(s.score))) {
    return { precision, refused: "a score is infinite or NaN, so no representable neighbours frame it" };
  }
  // Lower score first; on a tie the smaller token id, which a tie elects.
  const [low, high] = x[1].score < y[1].score || (x[1].score === y[1].score && x[0] < y[0]) ? [x, y] : [y, x];
  const ulps = ex.inspectFloat(low[1].bits, high[1].bits)[precision].ulpsToOther;
  const span = Math.abs(ulps);
  const around = (bits, offset) => [
    ...steps(bits, precision, SIDE, false).reverse().map((v, k) => ({ offset: offset - SIDE + k, ...v })),
    { offset, value: ex.inspectFloat(bits)[precision].value, bits },
  ];
  let ticks, highAt;
  if (span <= WHOLE) {
    ticks = around(low[1].bits, 0).concat(steps(low[1].bits, precision, span + SIDE, true).map((v, k) => ({ offset: k + 1, ...v })));
    highAt = SIDE + span;
  } else {
    const up = (bits, offset) => steps(bits, precision, SIDE, true).map((v, k) => ({ offset: offset + k + 1, ...v }));
    ticks = [...around(low[1].bits, 0), ...up(low[1].bits, 0), ...around(high[1].bits, span), ...up(high[1].bits, span)];
    highAt = 3 * SIDE + 1;
  }
  const exact = Number.isSafeInteger(span);
  return { precision, low: { ...low[1], token: low[0] }, high: { ...high[1], token: high[0] }, ulps: span, exact, lowAt: SIDE, highAt, ticks };
}

const rgb = (c) => `rgb(${c.join(",")})`;

/**
 * Draws `lines` (one per precision, from ulpLine) on `canvas` at its CSS size:
 * the representable values as ticks numbered in ulps from the lower score, a
 * broken axis over a wide gap, each token's score as a dot in its
 * precision's colour, the precision's winner filled and the exact winner
 * starred. `names` label each line; `winners` give each line's winning token.
 */
export function drawUlpLines(canvas, lines, { names, winners, exactWinner }) {
  const sized = sharpContext(canvas);
  if (!sized) return;
  const { g, width, height } = sized;
  redrawOnResize(canvas, () => drawUlpLines(canvas, lines, { names, winners, exactWinner }));
  g.fillStyle = "#fff";
  g.fillRect(0, 0, width, height);
  g.font = `${width < 500 ? 11 : 13}px system-ui, sans-serif`;
  g.textBaseline = "middle";
  const band = height / lines.length;
  lines.forEach((line, i) => {
    const color = rgb(PRECISION_COLOR[line.precision]);
    const top = band * i;
    g.fillStyle = color;
    g.textAlign = "left";
    g.fillText(names[i], 10, top + 14);
    if (line.refused) {
      g.fillStyle = "#444";
      g.fillText(line.refused, 10, top + band / 2);
      return;
    }
    const left = 16, right = width - 16, axisY = top + band * 0.62;
    // Slots: one per tick, and two for the break of a wide gap.
    const broken = line.ticks.length < line.ulps + 2 * SIDE + 1;
    const slots = line.ticks.length + (broken ? 2 : 0);
    const slotOf = (k) => (broken && k > 2 * SIDE ? k + 2 : k);
    const x = (slot) => left + ((right - left) * (slot + 0.5)) / slots;
    g.strokeStyle = "#333";
    g.lineWidth = 1;
    g.beginPath();
    if (broken) {
      const a = x(slotOf(2 * SIDE)) + (x(1) - x(0)) / 2, b = x(slotOf(2 * SIDE + 1)) - (x(1) - x(0)) / 2;
      g.moveTo(left, axisY);
      g.lineTo(a, axisY);
      g.moveTo(b, axisY);
      g.lineTo(right, axisY);
      g.stroke();
      g.fillStyle = "#444";
      g.textAlign = "center";
      const more = `${line.exact ? "" : "about "}${line.ulps - 2 * SIDE - 1}`;
      g.fillText(b - a > 90 ? `… ${more} more …` : `…${more}…`, (a + b) / 2, axisY);
    } else {
      g.moveTo(left, axisY);
      g.lineTo(right, axisY);
      g.stroke();
    }
    g.textAlign = "center";
    g.fillStyle = "#333";
    // Each tick's number of ulps from the lower score; past 2^53, the high side's in steps from the high score.
    const labels = line.ticks.map((t, k) => {
      if (line.exact || k <= 2 * SIDE) return String(t.offset);
      const d = k - line.highAt;
      return d === 0 ? `≈${line.ulps}` : `${d > 0 ? "+" : "−"}${Math.abs(d)}`;
    });
    // Every tick numbered where the widest number fits between ticks, else the scores' ticks only.
    const widest = Math.max(...labels.map((l) => g.measureText(l).width));
    const roomy = x(1) - x(0) >= widest + 8;
    line.ticks.forEach((t, k) => {
      const tx = x(slotOf(k));
      g.beginPath();
      g.moveTo(tx, axisY - 6);
      g.lineTo(tx, axisY + 6);
      g.stroke();
      if (roomy || k === line.lowAt || k === line.highAt) g.fillText(labels[k], tx, axisY + 16);
    });
    const between = line.exact ? `${line.ulps}` : `about ${line.ulps} (past 2^53 the count is rounded)`;
    g.fillText(`ulps from token ${line.low.token}'s score: ${between} between the two`, width / 2, axisY + 32);
    // The two scores: dots above their ticks (stacked on a tie).
    const at = (k) => x(slotOf(k));
    [line.low, line.high].forEach((s, j) => {
      const sx = at(s === line.low ? line.lowAt : line.highAt);
      const sy = axisY - 14 - (line.ulps === 0 ? 16 * j : 0);
      g.beginPath();
      g.arc(sx, sy, 6, 0, 2 * Math.PI);
      g.strokeStyle = color;
      g.lineWidth = 2;
      if (s.token === winners[i]) {
        g.fillStyle = color;
        g.fill();
      }
      g.stroke();
      g.fillStyle = "#1b1b1b";
      const label = `token ${s.token}${s.token === winners[i] ? " wins" : ""}${s.token === exactWinner ? " ★ exact winner" : ""}`;
      // Right of the dot, or above it, ending there, where the canvas ends first.
      const right = sx + 10 + g.measureText(label).width <= width - 4;
      g.textAlign = right ? "left" : "right";
      g.fillText(label, right ? sx + 10 : sx + 6, right ? sy : sy - 16);
      g.strokeStyle = "#333";
      g.lineWidth = 1;
    });
  });
  canvas.dataset.drawn = lines.map((l) => `${l.precision}:${l.ulps ?? "refused"}`).join(" ");
}
