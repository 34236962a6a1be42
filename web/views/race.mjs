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
import { decidingPair, shownTokens } from "../token-races.mjs";
import { nextTask } from "../tasks.mjs";
import { compareScenario, state, update } from "../state.mjs";

/** Scores of the shown tokens in both pipelines (`races`, from the race worker). */
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
 * The two tokens that decided the race (decidingPair) on the number line of
 * each pipeline's precision, with a text summary and the data as a table.
 */
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
      (line.ulps === 0 ? `a tie, and ties go to the smaller id, token ${winners[i]}.` :
        `${line.exact ? "" : "about "}${line.ulps} ulp${line.ulps === 1 ? "" : "s"} apart; token ${winners[i]} wins.`);
  $("ulp-summary").textContent =
    `${r.flipped ? "The flip" : "The winner and the runner-up"} in representable steps. ${lines.map(say).join(" ")} Exact winner: token ${r.exactWinner}.`;
  $("ulp-table").innerHTML =
    "<caption>The two scores at each precision, in ulps from the lower one</caption>" +
    "<tr><th>pipeline</th><th>token</th><th>score</th><th>bits</th><th>ulps from the lower score</th>" +
    "<th>next value down</th><th>next value up</th><th>wins here</th><th>exact winner</th></tr>" +
    lines.flatMap((line, i) => line.refused ? [`<tr data-precision="${line.precision}"><th>${esc(names[i])}</th><td colspan="8">${esc(line.refused)}</td></tr>`] :
      [line.low, line.high].map((s) => {
        const offset = s === line.low ? 0 : line.exact ? line.ulps : `about ${line.ulps}`;
        const at = s === line.low ? line.lowAt : line.highAt;
        const tick = (k) => line.ticks[at + k];
        return `<tr data-precision="${line.precision}" data-token="${s.token}"><th>${esc(names[i])}</th><td>${s.token}</td>` +
          `<td>${fmt(s.score)}</td><td><code>${esc(s.bits)}</code></td><td>${offset}</td>` +
          `<td><code>${esc(tick(-1).bits)}</code></td><td><code>${esc(tick(1).bits)}</code></td>` +
          `<td>${s.token === winners[i] ? "yes" : "no"}</td><td>${s.token === r.exactWinner ? "yes" : "no"}</td></tr>`;
      })).join("");
}

/**
 * The race of the state on show, compared in the race worker off the main
 * thread with the shown tokens' races in the same answer; `key` is the
 * section's drawn key, and an answer is shown only while the section is
 * still drawn for it.
 */
async function showCompare(key) {
  const s = state;
  const stale = () => drawnFor !== key;
  let answer;
  try {
    answer = await askRaces("compare", s.noise
      ? { scenario: compareScenario(s, { typed: true }) }
      : { compareOf: { models: s.models, weights: s.weights, seed: s.seed, row: s.row, nanPolicy: s.nanPolicy } });
  } catch (e) {
    if (stale()) return;
    $("compare-summary").innerHTML = `<p class="error">${esc(e.message)}</p>`;
    $("score-chart").hidden = $("ulp-chart").hidden = true;
    describeChart("score-chart", null);
    $("ulp-summary").textContent = "";
    $("ulp-table").innerHTML = "";
    return;
  }
  // A later state asked again: this answer is not shown.
  if (!answer || stale()) return;
  const r = answer.report.result;
  const shown = shownTokens(s.weights.length, r);
  const byToken = new Map(answer.races.map((x) => [x.token, x]));
  $("score-chart").hidden = false;
  const describe = drawRaceScores(r, shown.map((t) => byToken.get(t)));
  // The number lines in a task of their own: the page answers input between the charts.
  await nextTask();
  if (stale()) return;
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
  // The race follows its weights, noise, pipelines, seed, row and NaN policy alone.
  const key = [state.weights, state.noise, state.models, state.seed, state.row, state.nanPolicy];
  if (!sync && key.every((k, i) => k === drawnFor[i])) return undefined;
  drawnFor = key;
  showOverflow();
  return showCompare(key);
}

/** The state the section was last drawn for. */
let drawnFor = [];

export function wire() {
  $("nan-policy").onchange = () => update((d) => (d.nanPolicy = $("nan-policy").value));
}
