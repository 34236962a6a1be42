/** The charts the core draws on a canvas. */

/** One line of a {@link CurveChart}. */
export interface CurveSeries {
  /** The legend's label. */
  name: string;
  /** Red, green, blue, each 0..255. */
  color: [number, number, number];
  /** Dashed rather than solid. */
  dashed?: boolean;
  /** `[x, y]` points in x order; a `y` at or below the floor is drawn on it. */
  points: [number, number][];
}

/** Lines on a logarithmic y axis against a linear x axis. */
export interface CurveChart {
  title: string;
  xLabel: string;
  yLabel: string;
  /** The bottom of the y axis, in (0, 1), e.g. `1e-12`. */
  yFloor: number;
  /** An x drawn as a vertical guide line. */
  marker?: number | null;
  series: CurveSeries[];
}

/**
 * Draws a chart of the `exporace-viz` crate (plotters) on a canvas, at the
 * canvas's pixel size: the same chart code renders SVG natively.
 * @throws Error on a malformed chart or a canvas without a 2D context.
 */
export function drawCurves(canvas: HTMLCanvasElement, chart: CurveChart): void;

/** One series of a {@link BarChart}: one value per category. */
export interface BarSeries {
  /** The legend's label. */
  name: string;
  /** Red, green, blue, each 0..255. */
  color: [number, number, number];
  /**
   * One value per category. `Infinity` (an overflowed score) and `NaN` are
   * drawn as full-height pale bars labelled `inf` and `NaN`; values at or
   * below the axis' bottom draw no bar.
   */
  values: Float64Array | Float32Array | number[];
  /** The winning category, marked with a star. */
  winner?: number | null;
}

/**
 * Bars per category for one or more series. More categories than pixels are
 * drawn one pixel column per group, at the group's largest value.
 */
export interface BarChart {
  title: string;
  xLabel: string;
  yLabel: string;
  /** One label per category (written under the bars up to 48 categories); omitted: `0, 1, ...`. */
  labels?: string[];
  series: BarSeries[];
  /** A logarithmic y axis from this positive floor up; omitted: linear from 0. */
  logFloor?: number | null;
  /** One expected value per category, drawn as a black tick. */
  expected?: number[];
  /** The legend's label for the ticks. */
  expectedLabel?: string | null;
  /** Categories drawn on a yellow background (e.g. flipped tokens). */
  highlight?: number[];
  highlightLabel?: string | null;
  /** A dashed line with the area below shaded and the bars below it in red (e.g. a dead zone). */
  threshold?: { value: number; label: string } | null;
}

/**
 * Draws a bar chart of the `exporace-viz` crate on a canvas, at the canvas's
 * pixel size; natively the same code renders SVG (`bars_svg`).
 * @throws Error naming the field when lengths disagree or an index is out of range.
 */
export function drawBars(canvas: HTMLCanvasElement, chart: BarChart): void;
