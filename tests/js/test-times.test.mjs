// The test-suite timer (scripts/test-times.mjs) on made-up logs: each step's
// seconds from the next step's start, the last from its printed duration.
import { test } from "node:test";
import assert from "node:assert/strict";
import { durations, parseSteps } from "../../scripts/test-times.mjs";

test("npm test's steps: setup and test lines, the last step's own duration", () => {
  const log = [
    "== setup: rust targets (23:59:50)",
    "noise",
    "== test: rustfmt (23:59:58)",
    "== test: clippy (00:01:03)",
    "(scripts/test-python.sh: 61s)",
    "== test: the page (00:02:00)",
    "(node: 95s)",
  ].join("\n");
  const steps = durations(parseSteps(log));
  assert.deepEqual(steps, [
    { phase: "setup", name: "rust targets", seconds: 8 },
    { phase: "test", name: "rustfmt", seconds: 65 },
    { phase: "test", name: "clippy", seconds: 57 },
    { phase: "test", name: "the page", seconds: 95 },
  ]);
});

test("test:quick's steps, and a last step without a duration left open", () => {
  const log = [
    "== test:quick: rustfmt (10:00:00)",
    "== test:quick: clippy: exporace (10:00:02)",
    "== test:quick: native unit tests: exporace (10:00:40)",
    "(cargo test: 60s)",
    "test:quick: 100s in all",
  ].join("\n");
  const steps = durations(parseSteps(log));
  assert.deepEqual(steps.map((s) => [s.phase, s.name, s.seconds]), [
    ["test:quick", "rustfmt", 2],
    ["test:quick", "clippy: exporace", 38],
    ["test:quick", "native unit tests: exporace", 60],
  ]);
  const open = durations(parseSteps("== test: docs (10:00:00)\n"));
  assert.deepEqual(open, [{ phase: "test", name: "docs", seconds: null }]);
});
