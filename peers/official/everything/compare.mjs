// Tells what compare-everything.sh measured: each round's wall time of the
// official suite and of mcpconform, the medians and their ratio, and how many
// distinct requirements each ran in the last round.
//
// Usage: node compare.mjs OUT_DIR
//
// OUT_DIR holds times.tsv (round, tool, seconds, exit status: one line per
// run), scenarios.txt (`conformance list --server`: "  - NAME [VERSIONS]"
// lines), and for each round N official-N/ (the suite's -o results: one
// server-<scenario>-<stamp>/ per scenario, with checks.json) and
// mcpconform-N.json (mcpconform's JSON index). Requirements: for mcpconform
// the distinct rule IDs of the checks that ran (neither SKIPPED nor N/A: a
// check of an era the server does not serve is N/A); for the suite the
// distinct check IDs that ran (not SKIPPED), all of them and those of the
// scenarios of a 2025 version (the era server-everything serves), beside its
// scenarios and the distinct spec references its checks cite.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readChecks, scenarioRuns } from '../results.mjs';

const [out] = process.argv.slice(2);
if (!out) {
  console.error('usage: node compare.mjs OUT_DIR');
  process.exit(2);
}

const times = readFileSync(join(out, 'times.tsv'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => line.split('\t'))
  .map(([round, tool, seconds, status]) => ({ round: Number(round), tool, seconds: Number(seconds), status }));
const rounds = [...new Set(times.map((t) => t.round))].sort((a, b) => a - b);
const tools = ['official', 'mcpconform'];
const secondsOf = (round, tool) => times.find((t) => t.round === round && t.tool === tool);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

const lines = ['| round | official suite `--suite all` (s) | `mcpconform server --url` (s) |', '| --- | --- | --- |'];
for (const round of rounds) {
  const cells = tools.map((tool) => {
    const t = secondsOf(round, tool);
    return t ? `${t.seconds.toFixed(2)} (exit ${t.status})` : 'not run';
  });
  lines.push(`| ${round} | ${cells.join(' | ')} |`);
}
const medians = Object.fromEntries(tools.map((tool) => [tool, median(times.filter((t) => t.tool === tool).map((t) => t.seconds))]));
lines.push(`| median | ${medians.official.toFixed(2)} | ${medians.mcpconform.toFixed(2)} |`);
lines.push('');
lines.push(`ratio mcpconform / official suite (medians): ${(medians.mcpconform / medians.official).toFixed(2)}`);

const last = rounds[rounds.length - 1];

// The official suite: every checks.json of the round's results.
const versions = new Map(
  readFileSync(join(out, 'scenarios.txt'), 'utf8')
    .split('\n')
    .map((line) => line.match(/^\s+-\s+(\S+)\s+\[(.*)\]\s*$/))
    .filter(Boolean)
    .map((m) => [m[1], m[2].split(',')]),
);
const statuses = {};
const ran = new Set();
const ranLegacy = new Set();
const references = new Set();
let checks = 0;
const scenarios = scenarioRuns(join(out, `official-${last}`), 'server');
for (const run of scenarios) {
  const legacy = (versions.get(run.scenario) ?? []).some((v) => v.startsWith('2025-'));
  for (const c of readChecks(run) ?? []) {
    checks++;
    statuses[c.status] = (statuses[c.status] ?? 0) + 1;
    if (c.status === 'SKIPPED') continue;
    ran.add(c.id);
    if (legacy) ranLegacy.add(c.id);
    for (const r of c.specReferences ?? []) references.add(r.id);
  }
}
const byStatus = Object.entries(statuses)
  .sort()
  .map(([s, n]) => `${n} ${s}`)
  .join(', ');

// mcpconform: the rule IDs of the checks that ran.
const index = JSON.parse(readFileSync(join(out, `mcpconform-${last}.json`), 'utf8'));
const ranChecks = index.checks.filter((c) => c.outcome !== 'SKIPPED' && c.outcome !== 'N/A');
const rules = new Set(ranChecks.flatMap((c) => c.rules));
const outcomes = {};
for (const c of ranChecks) outcomes[c.outcome] = (outcomes[c.outcome] ?? 0) + 1;
const byOutcome = Object.entries(outcomes)
  .sort()
  .map(([o, n]) => `${n} ${o}`)
  .join(', ');

lines.push('');
lines.push(`requirements run (round ${last}):`);
lines.push(
  `- official suite: ${scenarios.length} scenarios, ${checks} checks (${byStatus}); ` +
    `${ran.size} distinct check IDs ran (not SKIPPED), ${ranLegacy.size} of them in scenarios of a 2025 version; ` +
    `they cite ${references.size} distinct spec references`,
);
lines.push(`- mcpconform: ${ranChecks.length} checks ran (${byOutcome}); ${rules.size} distinct rule IDs`);
console.log(lines.join('\n'));
