// Canvas 2D charts of many bars (a quarter of a million tokens, per-pixel
// columns) on a log10 axis. They only place values the core returned (or the
// inputs) on the screen. Curve charts come from the exporace-viz crate
// (plotters) through the package's drawCurves.

const COLORS = { a: "#1f5fbf", b: "#c0392b", mark: "#111", shade: "rgba(192, 57, 43, 0.12)", grid: "#ddd" };

function setup(canvas) {
  const ratio = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  canvas.width = Math.round(w * ratio);
  canvas.height = Math.round(h * ratio);
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, w, h);
  ctx.font = "12px system-ui, sans-serif";
  return { ctx, w, h, left: 56, right: w - 12, top: 12, bottom: h - 28 };
}

function yAxis(g, lo, hi) {
  const { ctx, left, right, top, bottom } = g;
  const y = (v) => bottom - ((Math.log10(v) - lo) / (hi - lo)) * (bottom - top);
  ctx.strokeStyle = COLORS.grid;
  ctx.fillStyle = "#444";
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  const step = Math.max(1, Math.ceil((hi - lo) / 8));
  for (let e = Math.ceil(lo); e <= hi; e += step) {
    const py = y(10 ** e);
    ctx.beginPath();
    ctx.moveTo(left, py);
    ctx.lineTo(right, py);
    ctx.stroke();
    ctx.fillText(`1e${e}`, left - 6, py);
  }
  ctx.strokeStyle = "#888";
  ctx.strokeRect(left, top, right - left, bottom - top);
  return y;
}

/**
 * Weights per token on a log axis down to `floor`, drawn as per-pixel-column
 * extremes so that 262145 tokens draw as fast as 10. `threshold` (from the
 * core's dead_zone) shades the weights that can never win.
 */
export function drawWeights(canvas, weights, { floor = 1e-12, threshold = null, label = "weight" } = {}) {
  const g = setup(canvas);
  const { ctx, left, right, top, bottom } = g;
  let max = 0;
  for (const w of weights) if (w > max) max = w;
  const hi = Math.ceil(Math.log10(max || 1)) || 0;
  const lo = Math.log10(floor);
  const y = yAxis(g, lo, hi);
  const clampY = (v) => (v > 0 ? Math.min(bottom, y(Math.max(v, floor))) : bottom);
  const dead = (v) => threshold !== null && v < threshold;
  const n = weights.length, cols = Math.max(1, Math.floor(right - left));
  const bar = Math.max(1, Math.min(24, cols / n - 2));
  const column = (x, width, v) => {
    const py = clampY(v);
    ctx.fillStyle = dead(v) ? COLORS.b : COLORS.a;
    ctx.fillRect(x, py, width, bottom - py);
  };
  if (n <= cols) {
    for (let i = 0; i < n; i++) column(left + ((i + 0.5) / n) * (right - left) - bar / 2, bar, weights[i]);
  } else {
    // One pixel column per group of tokens, drawn at the group's largest weight;
    // a column holding a much larger weight than its neighbours is widened to 3 px.
    for (let c = 0; c < cols; c++) {
      const a = Math.floor((c / cols) * n), b = Math.max(a + 1, Math.floor(((c + 1) / cols) * n));
      let mx = 0;
      for (let i = a; i < b; i++) if (weights[i] > mx) mx = weights[i];
      column(left + c, 1, mx);
      if (mx === max) column(left + c, 3, mx);
    }
  }
  if (threshold !== null && threshold > floor) {
    const py = y(threshold);
    ctx.fillStyle = COLORS.shade;
    ctx.fillRect(left, py, right - left, bottom - py);
    ctx.strokeStyle = COLORS.b;
    ctx.setLineDash([6, 4]);
    ctx.beginPath();
    ctx.moveTo(left, py);
    ctx.lineTo(right, py);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = COLORS.b;
    ctx.textAlign = "right";
    ctx.textBaseline = "bottom";
    ctx.fillText(`dead zone below ${threshold.toExponential(3)}: these tokens can never win (red)`, right - 6, py - 3);
  }
  ctx.fillStyle = "#444";
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  ctx.fillText(`${label} of token 0 .. ${n - 1} (log scale, down to ${floor})`, (left + right) / 2, bottom + 8);
}

/**
 * Scores of a few tokens in two precisions, side by side, on a log axis; the
 * winner of each precision is marked and flipped tokens are highlighted.
 * `rows`: [{token, a, b}] with scores as returned by the core (numbers or "inf"/"nan").
 */
export function drawScores(canvas, rows, { nameA, nameB, winnerA, winnerB, highlight = new Set(), highlightLabel = "yellow: tokens that flip" }) {
  const g = { ...setup(canvas), top: 30 };
  const { ctx, left, right, top, bottom } = g;
  const finite = rows.flatMap((r) => [r.a, r.b]).filter((v) => typeof v === "number" && v > 0);
  const hi = Math.ceil(Math.log10(Math.max(...finite, 1))) + 1;
  const lo = Math.floor(Math.log10(Math.min(...finite, 1))) - 1;
  const y = yAxis(g, lo, hi);
  const slot = (right - left) / rows.length, bar = Math.max(2, Math.min(28, slot / 2 - 4));
  rows.forEach((r, i) => {
    const cx = left + (i + 0.5) * slot;
    if (highlight.has(r.token)) {
      ctx.fillStyle = "rgba(241, 196, 15, 0.3)";
      ctx.fillRect(cx - slot / 2, top, slot, bottom - top);
    }
    [["a", r.a, COLORS.a, -1, winnerA], ["b", r.b, COLORS.b, 1, winnerB]].forEach(([, v, color, side, win]) => {
      const x = cx + side * (bar / 2 + 1) - bar / 2;
      ctx.fillStyle = color;
      if (v === "inf" || v === "nan") {
        ctx.fillRect(x, top, bar, bottom - top);
        ctx.fillStyle = "#fff";
        ctx.textAlign = "center";
        ctx.fillText(v === "inf" ? "∞" : "NaN", x + bar / 2, top + 14);
      } else if (v > 0) {
        const py = y(Math.max(v, 10 ** lo));
        ctx.fillRect(x, py, bar, bottom - py);
        if (win === r.token) {
          ctx.fillStyle = COLORS.mark;
          ctx.textAlign = "center";
          ctx.fillText("★", x + bar / 2, py - 8);
        }
      }
    });
    if (rows.length <= 40) {
      ctx.fillStyle = "#444";
      ctx.textAlign = "center";
      ctx.textBaseline = "top";
      ctx.fillText(String(r.token), cx, bottom + 4);
      ctx.textBaseline = "middle";
    }
  });
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  let x = left;
  const legend = [[`■ ${nameA}`, COLORS.a], [`■ ${nameB}`, COLORS.b], ["★ winner", COLORS.mark], [highlightLabel, "#b38600"]];
  for (const [text, color] of legend.filter(([t]) => winnerA >= 0 || t !== "★ winner")) {
    ctx.fillStyle = color;
    ctx.fillText(text, x, 14);
    x += ctx.measureText(text).width + 24;
  }
}

/** Horizontal bars on a linear axis from 0: `rows` [{label, value}]. */
export function drawBars(canvas, rows, title) {
  const { ctx, w } = setup(canvas);
  const h = canvas.clientHeight;
  const left = Math.min(260, w / 3), right = w - 70, top = 22;
  const max = Math.max(...rows.map((r) => r.value), 0) || 1;
  const slot = Math.min(26, (h - top - 6) / Math.max(1, rows.length));
  ctx.fillStyle = "#222";
  ctx.textBaseline = "middle";
  ctx.textAlign = "left";
  ctx.fillText(title, 6, 10);
  rows.forEach((r, i) => {
    const y = top + i * slot;
    ctx.fillStyle = "#444";
    ctx.textAlign = "right";
    ctx.fillText(r.label, left - 6, y + slot / 2);
    ctx.fillStyle = COLORS.a;
    const len = (r.value / max) * (right - left);
    ctx.fillRect(left, y + 3, len, slot - 6);
    ctx.fillStyle = "#222";
    ctx.textAlign = "left";
    ctx.fillText(r.value.toPrecision(3), left + len + 4, y + slot / 2);
  });
}

