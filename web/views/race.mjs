// Section 3, the race: the two pipelines' races on the same noise (the flip,
// the exact winner), the scores of the tokens that matter, the flip's two
// scores on the number line of representable values, and overflow under
// each NaN policy.
import { ask, modelFacts, scoreLabel } from "../core.mjs";
import { $, esc } from "../dom.mjs";
import { fmt } from "../format.mjs";
import { drawScores } from "../chart.mjs";
import { compareHtml } from "../compare.mjs";
import { drawUlpLines, ulpLine } from "../ulpline.mjs";
import { describeChart } from "../described.mjs";
import { askRaces } from "../workers.mjs";
import { nextTask } from "../tasks.mjs";
import { compareScenario, state, update } from "../state.mjs";

/** Each token's race in both pipelines of state `s`, computed in the race worker: [{ token, a: {score, bits}, b: {score, bits} }]. */
async function tokenRaces(s, tokens) {
  const answer = await askRaces("tokens", {
    tokens: {
      tokens,
      weights: tokens.map((t) => s.weights[t]),
      noise: s.noise ? tokens.map((t) => s.noise[t]) : null,
      models: s.models,
      seed: s.seed,
      row: s.row,
    },
  });
  return answer?.races ?? null;
}

/** The tokens whose scores are drawn: the winners, runner-ups, differing tokens and the first tokens, up to 16. */
function shownTokens(s, r) {
  const tokens = new Set([r.a.winner.token, r.b.winner.token]);
  for (const race of [r.a, r.b]) if (race.runnerUp) tokens.add(race.runnerUp.token);
  r.differing.slice(0, 6).forEach((d) => tokens.add(d.token));
  for (let t = 0; tokens.size < Math.min(s.weights.length, 16); t++) tokens.add(t);
  return [...tokens].sort((x, y) => x - y);
}

/** Scores of the shown tokens in both pipelines (`races`, from tokenRaces). */
function drawRaceScores(r, races) {
  const rows = races.map(({ token, a, b }) => ({ token, a: scoreLabel(a.score), b: scoreLabel(b.score) }));
  const highlight = new Set(r.differing.map((d) => d.token));
  if (r.flipped) [r.a.winner.token, r.b.winner.token].forEach((t) => highlight.add(t));
  drawScores($("score-chart"), rows, {
    title: "scores w × inv_q of the winners, runner-ups, differing and first tokens",
    nameA: r.aName,
    nameB: r.bName,
    precisionA: r.a.precision,
    precisionB: r.b.precision,
    winnerA: r.a.winner.token,
    winnerB: r.b.winner.token,
    highlight,
  });
  // Written after every chart is drawn: a write between two draws would lay the page out again.
  return () => describeChart("score-chart", `Scores of ${rows.length} tokens: ${r.aName} picks token ${r.a.winner.token}, ${r.bName} picks token ${r.b.winner.token}.`,
    ["token", `score under ${r.aName}`, `score under ${r.bName}`], rows.map((x) => [String(x.token), fmt(x.a), fmt(x.b)]));
}

/**
 * The two tokens that decided the race (the two winners of a flip, else the
 * winner and pipeline A's runner-up) on the number line of each pipeline's
 * precision, with a text summary and the data as a table.
 */
/** The two tokens that decided the race, or one when there is no runner-up. */
const decidingPair = (r) => (r.flipped ? [r.a.winner.token, r.b.winner.token] : [r.a.winner.token, r.a.runnerUp?.token]);

function showUlps(r, byToken) {
  const canvas = $("ulp-chart");
  const pair = decidingPair(r);
  if (pair[1] === undefined) {
    canvas.hidden = true;
    $("ulp-summary").textContent = "One token: there is no second score to measure against.";
    $("ulp-table").innerHTML = "";
    return;
  }
  const races = pair.map((t) => byToken.get(t));
  const lines = ["a", "b"].map((k) => ulpLine(r[k].precision, races.map((x) => [x.token, x[k]])));
  const names = [r.aName, r.bName].map((name, i) => `${lines[i].precision === "f32" ? "fp32" : "fp64"}: ${name}`);
  const winners = [r.a.winner.token, r.b.winner.token];
  canvas.hidden = false;
  drawUlpLines(canvas, lines, { names, winners, exactWinner: r.exactWinner });
  const say = (line, i) => line.refused
    ? `${names[i]}: ${line.refused}.`
    : `${names[i]}: token ${line.low.token} scores ${fmt(line.low.score)} (${line.low.bits}), token ${line.high.token} ` +
      `${fmt(line.high.score)} (${line.high.bits}): ` +
      (line.ulps === 0 ? `a tie, and ties go to the smaller id, token ${winners[i]}.` : `${line.ulps} ulp${line.ulps === 1 ? "" : "s"} apart; token ${winners[i]} wins.`);
  $("ulp-summary").textContent =
    `${r.flipped ? "The flip" : "The winner and the runner-up"} in representable steps. ${lines.map(say).join(" ")} Exact winner: token ${r.exactWinner}.`;
  $("ulp-table").innerHTML =
    "<caption>The two scores at each precision, in ulps from the lower one</caption>" +
    "<tr><th>pipeline</th><th>token</th><th>score</th><th>bits</th><th>ulps from the lower score</th>" +
    "<th>next value down</th><th>next value up</th><th>wins here</th><th>exact winner</th></tr>" +
    lines.flatMap((line, i) => line.refused ? [`<tr data-precision="${line.precision}"><th>${esc(names[i])}</th><td colspan="8">${esc(line.refused)}</td></tr>`] :
      [line.low, line.high].map((s) => {
        const offset = s === line.low ? 0 : line.ulps;
        const tick = (k) => line.ticks.find((t) => t.offset === offset + k);
        return `<tr data-precision="${line.precision}" data-token="${s.token}"><th>${esc(names[i])}</th><td>${s.token}</td>` +
          `<td>${fmt(s.score)}</td><td><code>${esc(s.bits)}</code></td><td>${offset}</td>` +
          `<td><code>${esc(tick(-1).bits)}</code></td><td><code>${esc(tick(1).bits)}</code></td>` +
          `<td>${s.token === winners[i] ? "yes" : "no"}</td><td>${s.token === r.exactWinner ? "yes" : "no"}</td></tr>`;
      })).join("");
}

/** The race of the state on show, compared in the race worker off the main thread. */
async function showCompare() {
  const s = state;
  let report;
  try {
    report = await askRaces("compare", s.noise
      ? { scenario: compareScenario(s, { typed: true }) }
      : { compareOf: { models: s.models, weights: s.weights, seed: s.seed, row: s.row, nanPolicy: s.nanPolicy } });
  } catch (e) {
    if (state !== s) return;
    $("compare-summary").innerHTML = `<p class="error">${esc(e.message)}</p>`;
    $("score-chart").hidden = $("ulp-chart").hidden = true;
    describeChart("score-chart", null);
    $("ulp-summary").textContent = "";
    $("ulp-table").innerHTML = "";
    return;
  }
  // A later state asked again: this answer is not shown.
  if (!report || state !== s) return;
  const r = report.report.result;
  const shown = shownTokens(s, r);
  const races = await tokenRaces(s, [...new Set([...shown, ...decidingPair(r).filter((t) => t !== undefined)])]);
  if (!races || state !== s) return;
  const byToken = new Map(races.map((x) => [x.token, x]));
  $("score-chart").hidden = false;
  const describe = drawRaceScores(r, shown.map((t) => byToken.get(t)));
  // The number lines in a task of their own: the page answers input between the charts.
  await nextTask();
  if (state !== s) return;
  showUlps(r, byToken);
  describe();
  $("compare-summary").innerHTML = compareHtml(r);
}

function showOverflow() {
  const out = $("overflow-out");
  if (!state.noise) {
    out.innerHTML =
      "<p>Overflow anatomy runs on inline noise: pick the q = 0 overflow or near-tie preset. " +
      `The seeded pipelines here give E = 0 with probability ${fmt(modelFacts(state.models[0]).pZero)} (A) and ` +
      `${fmt(modelFacts(state.models[1]).pZero)} (B) per draw.</p>`;
    return;
  }
  const policy = state.nanPolicy;
  const r = ask({ op: "overflow", precision: "f32", form: "mul", weights: Array.from(state.weights), noise: state.noise }).result;
  const entries = r.entries.length
    ? "<table class='facts' id='overflow-entries'><tr><th>token</th><th>weight</th><th>inv_q</th><th>mark</th></tr>" +
      r.entries
        .map((e) => `<tr class="${e.scoreNan ? "nan" : "inf"}"><td>${e.token}</td><td>${fmt(e.weight)}</td><td>${esc(e.noise)}</td>` +
          `<td>${e.scoreNan ? "score NaN (0 × inf)" : e.scoreInf ? "score inf" : "q = 0"}</td></tr>`)
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

/** Redraws the section from the state; the promise settles once the race is shown. */
export function render({ sync = false } = {}) {
  if (sync) $("nan-policy").value = state.nanPolicy;
  showOverflow();
  return showCompare();
}

export function wire() {
  $("nan-policy").onchange = () => update((d) => (d.nanPolicy = $("nan-policy").value));
}
