// A compare answer of the core as text: the flip (or not), the exact winner,
// both races and the tokens whose standing differs. The race view and the
// speculative view show their races with it.
import { esc } from "./dom.mjs";
import { fmt } from "./format.mjs";

/** `suffix` keeps element ids apart when a page shows several. */
export function compareHtml(r, suffix = "") {
  const line = (name, race) =>
    `<tr><th>${esc(name)}</th><td>token ${race.winner.token}</td><td>${fmt(race.winner.score)}</td>` +
    `<td><code>${esc(race.winner.bits)}</code></td><td>${race.runnerUp ? race.runnerUp.token : "none"}</td>` +
    `<td>${race.marginUlps ?? "n/a"}</td></tr>`;
  const flip = r.flipped
    ? `<p id="flip${suffix}" class="flip" data-flipped="true">Flip: ${esc(r.aName)} picks token ${r.a.winner.token}, ` +
      `${esc(r.bName)} picks token ${r.b.winner.token}. Exact winner: token <span id="exact-winner${suffix}">${r.exactWinner}</span>.</p>`
    : `<p id="flip${suffix}" data-flipped="false">No flip: both pick token ${r.a.winner.token}. Exact winner: token ` +
      `<span id="exact-winner${suffix}">${r.exactWinner}</span>.</p>`;
  const differing = r.differing.length
    ? `<p>Tokens whose standing against the exact winner differs (closest first): ` +
      r.differing.slice(0, 8).map((d) => `token ${d.token} (log gap ${fmt(d.logGap)} nats)`).join(", ") + "</p>"
    : "";
  return (
    flip +
    `<table class="facts" id="compare-table${suffix}"><tr><th>pipeline</th><th>winner</th><th>score</th><th>bits</th><th>runner-up</th><th>margin (ulps)</th></tr>` +
    line(r.aName, r.a) + line(r.bName, r.b) + "</table>" + differing
  );
}
