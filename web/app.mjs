// The page: reads the controls, asks the exporace core (`run(scenario)` and
// the race functions of the npm package), and shows the answers.
import init, * as ex from "/pkg/web/exporace.js";
import { MAX_TAILS, SPEC_STEP, buildPreset, fromLogits, parseNumbers } from "./presets.mjs";
import { drawScores, drawWeights } from "./chart.mjs";

const $ = (id) => document.getElementById(id);
const num = (id) => Number($(id).value);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
const fmt = (v) => (typeof v === "number" ? (Math.abs(v) >= 1e-3 && Math.abs(v) < 1e6) || v === 0 ? String(v) : v.toExponential(6) : String(v));

const state = { weights: null, noise: null, preset: null, models: [] };

// ---- threads ---------------------------------------------------------------

/** Starts the threaded build in a worker when the page is cross-origin isolated. */
async function startThreads() {
  const status = $("thread-status");
  if (!self.crossOriginIsolated) {
    status.textContent =
      "Running on one thread: the page is not cross-origin isolated (the server did not send " +
      "Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp), " +
      "so WebAssembly memory cannot be shared with workers.";
    status.dataset.mode = "single";
    return;
  }
  const size = Math.max(2, Math.min(navigator.hardwareConcurrency || 2, 8));
  try {
    const worker = new Worker("threads-worker.mjs", { type: "module" });
    const threads = await new Promise((ok, fail) => {
      worker.onmessage = ({ data }) => (data.error ? fail(new Error(data.error)) : ok(data.threads));
      worker.onerror = (e) => fail(new Error(e.message || "the worker failed to load"));
      worker.postMessage({ id: 0, size });
    });
    status.textContent =
      `Threaded: a pool of ${threads} workers (exporace/threads in a Web Worker; the page is cross-origin isolated).`;
    status.dataset.mode = "threaded";
    status.dataset.threads = String(threads);
  } catch (e) {
    status.textContent = `Running on one thread: the threaded build did not start (${e.message}).`;
    status.dataset.mode = "single";
  }
}

// ---- probabilities ---------------------------------------------------------

function presetParams() {
  return {
    vocab: Math.min(Math.max(1, num("vocab") | 0), MAX_TAILS),
    zipf: num("zipf"),
    tails: Math.min(Math.max(1, num("tails") | 0), MAX_TAILS),
    gap: num("gap"),
    temperature: num("temperature") > 0 ? num("temperature") : 1,
  };
}

function loadPreset() {
  const name = $("preset").value;
  const p = buildPreset(name, presetParams());
  state.preset = name;
  state.weights = p.weights;
  state.noise = p.noise ?? null;
  $("about").textContent = p.about;
  for (const [id, presets] of [["tails", ["many-tail"]], ["gap", ["many-tail"]], ["vocab", ["uniform", "zipf"]], ["zipf", ["zipf"]]]) {
    $(id).closest("label").hidden = !presets.includes(name);
  }
  refresh();
}

function applyPaste() {
  $("paste-error").textContent = "";
  try {
    const values = parseNumbers($("paste").value);
    state.weights = $("paste-logits").checked ? fromLogits(values, presetParams().temperature) : Float32Array.from(values);
    state.noise = null;
    state.preset = "pasted";
    $("about").textContent = `${values.length} pasted ${$("paste-logits").checked ? "logits" : "weights"}.`;
    refresh();
  } catch (e) {
    $("paste-error").textContent = e.message;
  }
}

// ---- the core --------------------------------------------------------------

function ask(scenario) {
  return ex.run({ exporace: 1, ...scenario });
}

function seedValue() {
  const s = $("seed").value.trim();
  return /^\d+$/.test(s) ? s : "0";
}

function pipelines() {
  return [$("model-a").value, $("model-b").value];
}

function modelFacts(name) {
  return state.models.find((m) => m.name === name);
}

function showModels() {
  const rows = [
    ["lattice", (m) => m.lattice],
    ["transform", (m) => m.transform],
    ["clamp", (m) => m.clamp],
    ["smallest positive E", (m) => fmt(m.minPositiveE)],
    ["largest finite Gumbel", (m) => fmt(m.maxFiniteGumbel)],
    ["P(E = 0)", (m) => fmt(m.pZero)],
    ["P(E = inf)", (m) => fmt(m.pInfinite)],
    ["source", (m) => m.source],
  ];
  const ms = pipelines().map(modelFacts);
  $("model-facts").innerHTML =
    `<caption>Lattice facts (from the catalogue)</caption><tr><th></th><th>A: ${esc(ms[0].name)} (${ms[0].precision})</th>` +
    `<th>B: ${esc(ms[1].name)} (${ms[1].precision})</th></tr>` +
    rows.map(([k, f]) => `<tr><th>${k}</th><td>${esc(f(ms[0]))}</td><td>${esc(f(ms[1]))}</td></tr>`).join("");
}

function showDraws() {
  const [a] = pipelines();
  const start = Math.max(0, num("start") | 0);
  const count = Math.max(1, Math.min(8, state.weights.length - Math.min(start, state.weights.length - 1)));
  const report = ask({ op: "noise", model: a, seed: seedValue(), row: num("row") | 0, start, count });
  const draws = report.result.draws;
  $("draws").innerHTML =
    `<caption>Draws of ${esc(a)} at seed ${esc(report.seed)}, row ${num("row") | 0} (select a row to inspect its bits)</caption>` +
    "<tr><th>token</th><th>raw</th><th>uniform</th><th>E or G</th><th>bits</th><th>inv_q</th><th>branch</th></tr>" +
    draws
      .map(
        (d, i) =>
          `<tr tabindex="0" data-i="${i}"><td>${d.token}</td><td>${esc(d.raw)}</td><td>${fmt(d.uniform)}</td>` +
          `<td>${fmt(d.value)}</td><td><code>${esc(d.bits)}</code></td><td>${fmt(d.invQ)}</td><td>${esc(d.branch)}</td></tr>`,
      )
      .join("");
  const inspect = (i) => showBits(draws[i], report.result.model.precision);
  $("draws").querySelectorAll("tr[data-i]").forEach((tr) => {
    tr.onclick = () => inspect(Number(tr.dataset.i));
    tr.onkeydown = (e) => e.key === "Enter" && inspect(Number(tr.dataset.i));
  });
  inspect(0);
}

/** Shows a draw's IEEE bits (from the core) and its neighbours one bit pattern up and down. */
function showBits(draw, precision) {
  const wide = precision === "f64";
  const bits = BigInt(draw.bits);
  const view = new DataView(new ArrayBuffer(8));
  const decode = (b) => {
    if (wide) view.setBigUint64(0, b);
    else view.setUint32(0, Number(b));
    return wide ? view.getFloat64(0) : view.getFloat32(0);
  };
  const hex = (b) => "0x" + b.toString(16).padStart(wide ? 16 : 8, "0");
  const binary = bits.toString(2).padStart(wide ? 64 : 32, "0");
  const split = wide ? [1, 12] : [1, 9];
  $("inspector").innerHTML =
    `<h3>Bit inspector: token ${draw.token}, value ${fmt(draw.value)} (${precision})</h3>` +
    `<p><code class="bits"><span class="sign">${binary.slice(0, split[0])}</span> ` +
    `<span class="exp">${binary.slice(split[0], split[1])}</span> <span class="man">${binary.slice(split[1])}</span></code> = ${esc(draw.bits)}</p>` +
    `<p>next down: ${hex(bits - 1n)} = ${decode(bits - 1n)}; next up: ${hex(bits + 1n)} = ${decode(bits + 1n)} (1 ulp each way)</p>`;
}

// ---- race ------------------------------------------------------------------

/** Inline noise as numbers in both precisions (the fp32 cast is the CPU shim's). */
function inlineNoise() {
  const f64 = Float64Array.from(state.noise, (s) => (s === "inf" ? Infinity : Number(s)));
  return { f64, f32: Float32Array.from(f64) };
}

/** One token's score, computed by the core's race on that token alone. */
function coreScore(weight, invQ) {
  return ex.raceMul(Float32Array.of(weight), invQ).winner.score;
}

function scoreLabel(v) {
  return Number.isNaN(v) ? "nan" : v === Infinity ? "inf" : v;
}

function showCompare() {
  const [a, b] = pipelines();
  const weights = Array.from(state.weights);
  const policy = $("nan-policy").value;
  const scenario = state.noise
    ? { op: "compare", nan_policy: policy, weights, noise: state.noise }
    : { op: "compare", nan_policy: policy, weights, models: [a, b], seed: seedValue(), row: num("row") | 0 };
  let report;
  try {
    report = ask(scenario);
  } catch (e) {
    $("compare-summary").innerHTML = `<p class="error">${esc(e.message)}</p>`;
    return null;
  }
  const r = report.result;
  const line = (name, race) =>
    `<tr><th>${esc(name)}</th><td>token ${race.winner.token}</td><td>${fmt(race.winner.score)}</td>` +
    `<td><code>${esc(race.winner.bits)}</code></td><td>${race.runnerUp ? race.runnerUp.token : "none"}</td>` +
    `<td>${race.marginUlps ?? "n/a"}</td></tr>`;
  const flip = r.flipped
    ? `<p id="flip" class="flip" data-flipped="true">Flip: ${esc(r.aName)} picks token ${r.a.winner.token}, ` +
      `${esc(r.bName)} picks token ${r.b.winner.token}. Exact winner: token <span id="exact-winner">${r.exactWinner}</span>.</p>`
    : `<p id="flip" data-flipped="false">No flip: both pick token ${r.a.winner.token}. Exact winner: token ` +
      `<span id="exact-winner">${r.exactWinner}</span>.</p>`;
  const differing = r.differing.length
    ? `<p>Tokens whose standing against the exact winner differs (closest first): ` +
      r.differing.slice(0, 8).map((d) => `token ${d.token} (log gap ${fmt(d.logGap)} nats)`).join(", ") + "</p>"
    : "";
  $("compare-summary").innerHTML =
    flip +
    `<table class="facts" id="compare-table"><tr><th>pipeline</th><th>winner</th><th>score</th><th>bits</th><th>runner-up</th><th>margin (ulps)</th></tr>` +
    line(r.aName, r.a) + line(r.bName, r.b) + "</table>" + differing;
  drawRaceScores(r);
  return r;
}

/** Scores of the winners, runner-ups, differing tokens and the first tokens, in both pipelines. */
function drawRaceScores(r) {
  const n = state.weights.length;
  const tokens = new Set([r.a.winner.token, r.b.winner.token]);
  for (const race of [r.a, r.b]) if (race.runnerUp) tokens.add(race.runnerUp.token);
  r.differing.slice(0, 6).forEach((d) => tokens.add(d.token));
  for (let t = 0; tokens.size < Math.min(n, 16); t++) tokens.add(t);
  const list = [...tokens].sort((x, y) => x - y);
  let rows;
  if (state.noise) {
    const { f64, f32 } = inlineNoise();
    rows = list.map((t) => ({
      token: t,
      a: scoreLabel(coreScore(state.weights[t], Float64Array.of(f64[t]))),
      b: scoreLabel(coreScore(state.weights[t], Float32Array.of(f32[t]))),
    }));
  } else {
    const draw = (model, t) => {
      const d = ask({ op: "noise", model, seed: seedValue(), row: num("row") | 0, start: t, count: 1 }).result;
      const v = d.draws[0].invQ === "inf" ? Infinity : Number(d.draws[0].invQ);
      return d.model.precision === "f64" ? Float64Array.of(v) : Float32Array.of(v);
    };
    const [a, b] = pipelines();
    rows = list.map((t) => ({
      token: t,
      a: scoreLabel(coreScore(state.weights[t], draw(a, t))),
      b: scoreLabel(coreScore(state.weights[t], draw(b, t))),
    }));
  }
  const highlight = new Set(r.differing.map((d) => d.token));
  if (r.flipped) [r.a.winner.token, r.b.winner.token].forEach((t) => highlight.add(t));
  drawScores($("score-chart"), rows, {
    nameA: r.aName,
    nameB: r.bName,
    winnerA: r.a.winner.token,
    winnerB: r.b.winner.token,
    highlight,
  });
}

function showOverflow() {
  const out = $("overflow-out");
  if (!state.noise) {
    out.innerHTML =
      "<p>Overflow anatomy runs on inline noise: pick the q = 0 overflow or near-tie preset. " +
      `The seeded pipelines here give E = 0 with probability ${fmt(modelFacts(pipelines()[0]).pZero)} (A) and ` +
      `${fmt(modelFacts(pipelines()[1]).pZero)} (B) per draw.</p>`;
    return;
  }
  const policy = $("nan-policy").value;
  const r = ask({ op: "overflow", precision: "f32", form: "mul", weights: Array.from(state.weights), noise: state.noise }).result;
  const entries = r.entries.length
    ? "<table class='facts' id='overflow-entries'><tr><th>token</th><th>weight</th><th>inv_q</th><th>mark</th></tr>" +
      r.entries
        .map(
          (e) =>
            `<tr class="${e.scoreNan ? "nan" : "inf"}"><td>${e.token}</td><td>${fmt(e.weight)}</td><td>${esc(e.noise)}</td>` +
            `<td>${e.scoreNan ? "score NaN (0 × inf)" : e.scoreInf ? "score inf" : "q = 0"}</td></tr>`,
        )
        .join("") + "</table>"
    : "<p>No entry overflows: every q is positive and every score finite.</p>";
  const picks = r.picks
    .map((p) => {
      const chosen = p.policy === policy ? " class='chosen'" : "";
      const what = p.race ? `token ${p.race.winner.token} (score ${esc(p.race.winner.score)})` : `error: ${esc(p.error)}`;
      return `<tr${chosen} data-policy="${p.policy}"><th>${p.policy}</th><td>${what}</td></tr>`;
    })
    .join("");
  const mine = r.picks.find((p) => p.policy === policy);
  out.innerHTML =
    entries +
    `<table class="facts" id="overflow-picks"><caption>What each NaN policy picks (fp32 scores)</caption>${picks}</table>` +
    `<p id="policy-pick">Under ${policy}: ${mine.race ? `token ${mine.race.winner.token} wins` : esc(mine.error)}.</p>`;
}

// ---- dead zone -------------------------------------------------------------

function showDeadZone() {
  const weights = Array.from(state.weights);
  const rows = pipelines().map((model) => ({ model, r: ask({ op: "dead_zone", model, weights }).result }));
  $("dead-zone").innerHTML =
    "<tr><th>model</th><th>dead tokens</th><th>lost mass (share of the weight)</th><th>weight threshold</th><th>E min</th><th>E max</th></tr>" +
    rows
      .map(
        ({ model, r }, i) =>
          `<tr><th>${esc(model)}</th><td id="dead-count-${"ab"[i]}">${r.count}</td><td id="dead-mass-${"ab"[i]}">${fmt(r.mass)}</td>` +
          `<td>${fmt(r.threshold)}</td><td>${fmt(r.eMin)}</td><td>${fmt(r.eMax)}</td></tr>`,
      )
      .join("");
  return rows[0].r;
}

// ---- speculative decoding ---------------------------------------------------

function showSpec() {
  const seed = seedValue();
  const report = ask({ ...SPEC_STEP, seed, nan_policy: $("nan-policy").value });
  const r = report.result;
  const cu = SPEC_STEP.cu_num_draft_tokens;
  let html = `<p>Seed ${esc(report.seed)}, precision ${report.precision}. Output tokens (-1 = nothing emitted): ` +
    `<code id="spec-output">${esc(JSON.stringify(r.outputTokenIds))}</code></p><table class="facts" id="spec-trace">` +
    "<tr><th>request</th><th>position</th><th>draft</th><th>p(draft)</th><th>d(draft)</th><th>uniform u</th><th>outcome</th></tr>";
  r.requests.forEach((req, b) => {
    const first = b ? cu[b - 1] : 0;
    for (let j = 0; j < req.numDraft; j++) {
      const t = first + j, x = SPEC_STEP.draft_token_ids[t];
      const outcome = j < req.numAccepted ? "accepted" : j === req.numAccepted ? "rejected: recovered token" : "not reached";
      html += `<tr><td>${b}</td><td>${j}</td><td>${x}</td><td>${SPEC_STEP.target_probs[t][x]}</td><td>${SPEC_STEP.draft_probs[t][x]}</td>` +
        `<td>${fmt(r.uniform[t])}</td><td>${outcome}</td></tr>`;
    }
  });
  html += "</table><ul>";
  r.requests.forEach((req, b) => {
    if (req.recovered)
      html += `<li>Request ${b}: recovered token ${req.recovered.winner.token} from the residual race ` +
        `(score ${fmt(req.recovered.winner.score)}, runner-up ${req.recovered.runnerUp?.token ?? "none"}, margin ${req.recovered.marginUlps ?? "n/a"} ulps).</li>`;
    if (req.bonus !== null)
      html += `<li>Request ${b}: every draft accepted; bonus token ${req.bonus}` +
        (req.bonusRace ? ` from the bonus race (score ${fmt(req.bonusRace.winner.score)}).` : ".") + "</li>";
  });
  $("spec-out").innerHTML = html + "</ul>";
}

// ---- performance -------------------------------------------------------------

async function showPerf() {
  const res = await fetch("bench.json").catch(() => null);
  if (!res || !res.ok) {
    $("perf-out").innerHTML =
      "<p>No native benchmark numbers are committed yet (web/bench.json is absent), so none are shown.</p>";
    return;
  }
  const bench = await res.json();
  $("perf-out").innerHTML = `<pre>${esc(JSON.stringify(bench, null, 2))}</pre>`;
}

// ---- wiring --------------------------------------------------------------------

function refresh() {
  const t0 = performance.now();
  showModels();
  showDraws();
  const dead = showDeadZone();
  drawWeights($("prob-chart"), state.weights, { threshold: dead.count ? dead.threshold : null });
  showCompare();
  showOverflow();
  showSpec();
  $("prob-summary").textContent =
    `${state.weights.length} tokens; pipeline A kills ${dead.count} of them (mass ${fmt(dead.mass)}). ` +
    `Views recomputed in ${Math.round(performance.now() - t0)} ms.`;
  document.body.dataset.ready = String(Number(document.body.dataset.ready || 0) + 1);
}

async function main() {
  await init();
  state.models = ask({ op: "models" }).result.models;
  for (const id of ["model-a", "model-b"]) {
    $(id).innerHTML = state.models.map((m) => `<option value="${m.name}">${m.name} (${m.precision})</option>`).join("");
  }
  $("model-a").value = "torch-cuda-f32";
  $("model-b").value = "torch-cuda-f64";
  $("preset").onchange = loadPreset;
  for (const id of ["tails", "gap", "vocab", "zipf", "temperature"]) $(id).onchange = loadPreset;
  for (const id of ["model-a", "model-b", "seed", "row", "start", "nan-policy"]) $(id).onchange = refresh;
  $("apply-paste").onclick = applyPaste;
  loadPreset();
  showPerf();
  await startThreads();
}

main().catch((e) => {
  $("thread-status").textContent = `The core failed to load: ${e.message}`;
  $("thread-status").dataset.mode = "error";
});
