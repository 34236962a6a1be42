// Debian's Chromium for page tests, launched headless the way this machine
// allows (no sandbox, no GPU, no network of its own) with a fresh profile.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

/** Launches Chromium; `close()` also removes its profile directory. */
export async function launchChromium(options = {}) {
  const profile = await mkdtemp(join(tmpdir(), "exporace-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    ...options,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * The page's errors as they happen: uncaught exceptions and console.error
 * messages (the browser's own request for /favicon.ico aside).
 */
export function collectErrors(page) {
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error" && !m.location().url.endsWith("/favicon.ico")) {
      errors.push(`console.error: ${m.text()} (${m.location().url})`);
    }
  });
  return errors;
}
