// Charts that follow their canvas's size and the device's pixel ratio: a
// canvas drawn at one width and shown at another (a window resized, a phone
// turned), or on a screen of another pixel ratio (a window moved, a zoom), is
// drawn again rather than scaled with its text. Every chart is drawn at the
// device's pixels (backing store = CSS size × devicePixelRatio), so that its
// text is sharp on a phone.

/** Each observed canvas's latest drawing function. */
const redraws = new WeakMap();
/** The canvases drawn so far, for a change of pixel ratio. */
const drawn = new Set();

const observer =
  typeof ResizeObserver === "function"
    ? new ResizeObserver((entries) => {
        for (const { target: canvas } of entries) {
          const redraw = redraws.get(canvas);
          if (redraw && canvas.clientWidth && canvas.dataset.drawnWidth !== String(canvas.clientWidth)) redraw();
        }
      })
    : null;

const ratio = () => globalThis.devicePixelRatio || 1;

/** Redraws the canvases drawn at another ratio each time the device's pixel ratio changes. */
function watchRatio() {
  if (typeof matchMedia !== "function") return;
  matchMedia(`(resolution: ${ratio()}dppx)`).addEventListener("change", () => {
    for (const canvas of drawn) {
      if (!canvas.isConnected) drawn.delete(canvas);
      else if (canvas.clientWidth && canvas.dataset.drawnRatio !== String(ratio())) redraws.get(canvas)?.();
    }
    watchRatio();
  }, { once: true });
}
watchRatio();

/** Records that `canvas` was just drawn at its CSS width and the device's ratio, and that `redraw` draws it again. */
export function redrawOnResize(canvas, redraw) {
  canvas.dataset.drawnWidth = String(canvas.clientWidth);
  canvas.dataset.drawnRatio = String(ratio());
  if (!redraws.has(canvas)) observer?.observe(canvas);
  redraws.set(canvas, redraw);
  drawn.add(canvas);
}

/**
 * Sizes `canvas`'s backing store to its CSS size × the device's pixel ratio
 * and scales its context so that drawing is in CSS pixels; returns the
 * context and the CSS size, or null for a hidden canvas. A canvas of the
 * right size is not resized (which would lay the page out again).
 */
export function sharpContext(canvas) {
  const width = canvas.clientWidth, height = canvas.clientHeight;
  if (!width || !height) return null;
  const w = Math.round(width * ratio()), h = Math.round(height * ratio());
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
  const g = canvas.getContext("2d");
  g.setTransform(w / width, 0, 0, h / height, 0, 0);
  return { g, width, height };
}

/**
 * Runs `paint` (a chart of the core's viz, which lays itself out over the
 * canvas's width and height) on `canvas` at the device's pixels: the chart
 * sees the CSS size, the scaled context puts it on the larger backing store.
 * Returns false for a hidden canvas, which is left alone.
 */
export function paintSharp(canvas, paint) {
  const sized = sharpContext(canvas);
  if (!sized) return false;
  // The chart reads width and height once, as it starts: for the call they are the CSS size.
  Object.defineProperty(canvas, "width", { value: sized.width, configurable: true });
  Object.defineProperty(canvas, "height", { value: sized.height, configurable: true });
  try {
    paint();
  } finally {
    delete canvas.width;
    delete canvas.height;
    sized.g.setTransform(1, 0, 0, 1, 0, 0);
  }
  return true;
}
