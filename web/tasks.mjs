// Giving the main thread back between pieces of one redraw, so that no task
// blocks input for long.

/** A promise settled in a later task (the browser's scheduler.yield where there is one). */
export const nextTask = () => (globalThis.scheduler?.yield ? scheduler.yield() : new Promise((ok) => setTimeout(ok, 0)));
