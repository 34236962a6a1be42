// Charts that follow their canvas's size: a canvas drawn at one width and
// shown at another (a window resized, a phone turned) is drawn again at the
// width it now has, rather than scaled with its text.

/** Each observed canvas's latest drawing function. */
const redraws = new WeakMap();

const observer =
  typeof ResizeObserver === "function"
    ? new ResizeObserver((entries) => {
        for (const { target: canvas } of entries) {
          const redraw = redraws.get(canvas);
          if (redraw && canvas.clientWidth && canvas.dataset.drawnWidth !== String(canvas.clientWidth)) redraw();
        }
      })
    : null;

/** Records that `canvas` was just drawn at its CSS width, and that `redraw` draws it again. */
export function redrawOnResize(canvas, redraw) {
  canvas.dataset.drawnWidth = String(canvas.clientWidth);
  if (!redraws.has(canvas)) observer?.observe(canvas);
  redraws.set(canvas, redraw);
}
