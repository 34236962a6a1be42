// The page's bar charts, drawn by the exporace-viz crate (plotters on the
// canvas) through the package's drawBars: the same chart code renders SVG
// natively. These functions only say what to draw: values the core returned
// (or the inputs), names and colours.
import { ex } from "./core.mjs";
import { paintSharp, redrawOnResize } from "./resized.mjs";

const BLUE = [31, 95, 191];
const RED = [192, 57, 43];
const GREY = [110, 110, 110];

/** Every view draws fp32 in blue and fp64 in red (the ideal reference in grey). */
export const PRECISION_COLOR = { f32: BLUE, f64: RED };

/** More than one model of a precision on one chart: its colour, then a darker and a lighter shade of it. */
export const PRECISION_SHADES = { f32: [BLUE, [16, 42, 110], [74, 163, 223]], f64: [RED, [120, 30, 20], [230, 126, 34]] };
export const IDEAL_COLOR = [85, 85, 85];

/** Draws `chart` at the canvas's CSS size, on the device's pixels, and marks the canvas as drawn; a hidden canvas is left alone. */
function draw(canvas, chart) {
  if (!paintSharp(canvas, () => ex.drawBars(canvas, chart))) return;
  canvas.dataset.drawn = String(chart.series[0].values.length);
  // How many times it was drawn: a redraw with the same number of bars is seen too.
  canvas.dataset.draws = String(Number(canvas.dataset.draws || 0) + 1);
  // Which colour each series got, for the legend's readers and the tests.
  canvas.dataset.colors = JSON.stringify(chart.series.map((s) => [s.name, s.color]));
  redrawOnResize(canvas, () => draw(canvas, chart));
}

/**
 * Draws the two kinds of bar chart once on a detached canvas: a quarter of a
 * million weights, and labelled groups of a few bars. The engine compiles the
 * chart code when it first runs and makes it fast after use, so the views'
 * first charts, each drawn in a task of its own, do not pay for that (the
 * weights chart took 35 to 60 ms on a first load, 10 to 15 after).
 */
export function warmCharts() {
  const canvas = document.createElement("canvas");
  canvas.width = 640;
  canvas.height = 200;
  const chart = { title: "warm-up", xLabel: "token", yLabel: "weight", logFloor: 1e-12 };
  ex.drawBars(canvas, {
    ...chart,
    series: [{ name: "weight", color: BLUE, values: new Float32Array(1 << 18).fill(0.5) }],
    threshold: { value: 0.25, label: "dead zone" },
  });
  ex.drawBars(canvas, {
    ...chart,
    labels: ["a", "b", "c"],
    series: [{ name: "1", color: BLUE, values: [1, 2, 3] }, { name: "2", color: RED, values: [3, 2, 1] }],
    expected: [2, NaN, 2],
    expectedLabel: "target",
  });
}

/** A score as the core reports it in tables ("inf", "nan" or a number) as a number. */
const asNumber = (v) => (v === "inf" ? Infinity : v === "-inf" ? -Infinity : v === "nan" ? NaN : v);

/**
 * Weights per token on a log axis down to `floor` (a quarter of a million
 * tokens draw as one column per pixel group). `threshold` (from the core's
 * dead_zone) shades the weights that can never win and draws them in red.
 */
export function drawWeights(canvas, weights, { floor = 1e-12, threshold = null, label = "weight" } = {}) {
  draw(canvas, {
    title: `${label} of tokens 0 .. ${weights.length - 1} (log scale, down to ${floor})`,
    xLabel: "token",
    yLabel: label,
    series: [{ name: label, color: BLUE, values: weights }],
    logFloor: floor,
    threshold: threshold === null ? null : { value: threshold, label: `dead zone below ${threshold.toExponential(3)}: these tokens never win` },
  });
}

/**
 * Scores of a few tokens in two precisions, side by side on a log axis; the
 * winner of each precision is starred, overflowed (inf) and NaN scores are
 * full-height labelled bars, and `highlight`ed tokens (flips) are yellow.
 * `rows`: [{token, a, b}] with scores as the core returned them.
 */
export function drawScores(canvas, rows, { nameA, nameB, precisionA = "f32", precisionB = "f64", winnerA, winnerB, highlight = new Set(), highlightLabel = "tokens that flip", title = "scores per token" }) {
  const a = rows.map((r) => asNumber(r.a)), b = rows.map((r) => asNumber(r.b));
  const positive = [...a, ...b].filter((v) => v > 0 && Number.isFinite(v));
  // The axis starts a decade below the smallest positive score.
  const floor = positive.length ? 10 ** (Math.floor(Math.log10(Math.min(...positive))) - 1) : 1e-12;
  const star = (token) => {
    const i = rows.findIndex((r) => r.token === token);
    return i >= 0 ? i : null;
  };
  draw(canvas, {
    title,
    xLabel: "token",
    yLabel: "score (log scale)",
    labels: rows.map((r) => String(r.token)),
    series: [
      { name: nameA, color: PRECISION_COLOR[precisionA], values: a, winner: star(winnerA) },
      { name: nameB, color: PRECISION_COLOR[precisionB], values: b, winner: star(winnerB) },
    ],
    logFloor: floor,
    highlight: rows.flatMap((r, i) => (highlight.has(r.token) ? [i] : [])),
    highlightLabel,
  });
}

/**
 * A Monte Carlo histogram: observed counts per category against the exact
 * expected counts (ticks). The axis is logarithmic when the expectations span
 * more than two decades (so that rare categories show), else linear (so that
 * a bias shows). `cats`: the experiment's categories; `flagged`: indices drawn yellow.
 */
export function drawHistogram(canvas, cats, { title, flagged = [] }) {
  const positive = cats.map((c) => c.expectedCount).filter((e) => e > 0);
  const wide = positive.length > 0 && Math.max(...positive) > 100 * Math.min(...positive);
  draw(canvas, {
    title,
    xLabel: "token (first of a run of equal weights)",
    yLabel: wide ? "count (log scale)" : "count",
    labels: cats.map((c) => (c.tokens > 1 ? `${c.first}..` : String(c.first))),
    series: [{ name: "observed count", color: BLUE, values: cats.map((c) => c.observed) }],
    logFloor: wide ? 0.5 : null,
    expected: cats.map((c) => c.expectedCount),
    expectedLabel: "exact expectation",
    highlight: flagged,
    highlightLabel: "|z| > 4",
  });
}

/** Colours of series that are not precisions (thread counts, this page against native): never fp32's blue or fp64's red. */
const OTHER_COLORS = [[46, 125, 50], [214, 120, 0], GREY];

/**
 * Grouped bars: `labels` per category, `series` [{name, values}] (0: no bar), on a linear axis or a log one down to
 * `logFloor`; `expected` (one value per category, NaN for none) draws a tick labelled `expectedLabel`.
 */
export function drawGrouped(canvas, { title, yLabel, xLabel, labels, series, logFloor = null, expected = [], expectedLabel = null }) {
  const colors = OTHER_COLORS;
  draw(canvas, {
    title,
    xLabel,
    yLabel,
    labels,
    series: series.map((s, i) => ({ ...s, color: colors[i % colors.length] })),
    logFloor,
    expected,
    expectedLabel,
  });
}
