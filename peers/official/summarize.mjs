// Summarizes runs of the official conformance suite as a Markdown table.
//
// Usage: node summarize.mjs --role server|client --results DIR
//          [--baseline YAML] [--list FILE] [--verdicts FILE]
//
// --results holds the suite's `-o` output (read by results.mjs). A scenario FAILs when one of its checks is FAILURE, WARNs when
// one is WARNING, else PASSes; the note quotes the suite's messages.
// --baseline is the expected-failures file (the suite's format: `<scenario>`
// or `<scenario>:<check-id>` entries under server: and client:); the failing
// checks it lists are marked "(baseline)".
// --list is the output of `conformance list --ROLE --requirements R`: the
// scenarios it runs without scoring get their reason (extension, pending,
// added-after-release) in a "scored" column.
// --verdicts is a file of "<scenario> <exit status>" lines, one per
// `conformance client --scenario` run: the suite's own verdict on each.
// Ends with the scenarios that fail, scored and not scored apart.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { outcomeOf, scenarioRuns } from './results.mjs';

const usage =
  'usage: node summarize.mjs --role server|client --results DIR [--baseline YAML] [--list FILE] [--verdicts FILE]';
let opts;
try {
  opts = parseArgs({
    options: {
      role: { type: 'string' },
      results: { type: 'string' },
      baseline: { type: 'string' },
      list: { type: 'string' },
      verdicts: { type: 'string' },
    },
  }).values;
} catch (err) {
  console.error(`summarize.mjs: ${err.message}\n${usage}`);
  process.exit(2);
}
const { role, results } = opts;
if (!['server', 'client'].includes(role) || !results) {
  console.error(usage);
  process.exit(2);
}

// The baseline's entries of this role: scenario → the listed check ids
// (null for a whole-scenario entry).
const baseline = new Map();
if (opts.baseline) {
  let section = '';
  for (const raw of readFileSync(opts.baseline, 'utf8').split('\n')) {
    const line = raw.replace(/#.*/, '');
    const head = line.match(/^(\w+):/);
    if (head) section = head[1];
    const entry = line.match(/^\s+-\s+(\S+)\s*$/);
    if (!entry || section !== role) continue;
    const [scenario, check] = entry[1].split(/:(.*)/s);
    if (!check) baseline.set(scenario, null);
    else if (baseline.get(scenario) !== null) baseline.set(scenario, [...(baseline.get(scenario) ?? []), check]);
  }
}
const listed = (scenario, id) => baseline.has(scenario) && (baseline.get(scenario) === null || baseline.get(scenario).includes(id));

// The scenarios a requirement set runs without scoring, with the reason.
const unscored = new Map();
if (opts.list) {
  let reason = '';
  for (const line of readFileSync(opts.list, 'utf8').split('\n')) {
    const head = line.match(/^  (\S[^(]*?) \(\d+\):$/);
    if (head) reason = head[1];
    const entry = line.match(/^    - (\S+) \[(server|client)\]$/);
    if (entry && entry[2] === role) unscored.set(entry[1], reason);
  }
}

const verdicts = new Map();
if (opts.verdicts) {
  for (const line of readFileSync(opts.verdicts, 'utf8').split('\n')) {
    const m = line.match(/^(\S+) (\d+)$/);
    if (m) verdicts.set(m[1], Number(m[2]));
  }
}

const runs = scenarioRuns(results, role);
if (runs.length === 0) {
  console.error(`summarize.mjs: no scenario results in ${results}`);
  process.exit(2);
}

const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
const columns = ['scenario'];
if (opts.list) columns.push('scored');
if (opts.verdicts) columns.push('suite exit');
columns.push('outcome', 'checks ok/failed/warned', 'note');
console.log(`| ${columns.join(' | ')} |`);
console.log(`|${' --- |'.repeat(columns.length)}`);

const totals = { PASS: 0, FAIL: 0, WARN: 0 };
const failing = { scored: [], unscored: [] };
for (const run of runs) {
  const checks = JSON.parse(readFileSync(run.file, 'utf8'));
  const count = (status) => checks.filter((c) => c.status === status).length;
  const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  const outcome = outcomeOf(checks);
  totals[outcome]++;
  if (outcome !== 'PASS') (unscored.has(run.scenario) ? failing.unscored : failing.scored).push(run.scenario);
  const note = bad
    .map(
      (c) =>
        `${c.status === 'FAILURE' ? 'failed' : 'warning'} ${c.id}${listed(run.scenario, c.id) ? ' (baseline)' : ''}: ` +
        `${c.errorMessage || c.description}`,
    )
    .join('; ');
  const row = [run.scenario];
  if (opts.list) row.push(unscored.get(run.scenario) ?? 'yes');
  if (opts.verdicts) row.push(verdicts.has(run.scenario) ? verdicts.get(run.scenario) : 'not run');
  row.push(outcome, `${count('SUCCESS')}/${count('FAILURE')}/${count('WARNING')}`, cell(note));
  console.log(`| ${row.join(' | ')} |`);
}

console.log('');
console.log(`${runs.length} scenarios: ${totals.PASS} PASS, ${totals.FAIL} FAIL, ${totals.WARN} WARN.`);
const names = (list) => (list.length ? list.join(', ') : 'none');
if (opts.list) {
  console.log(`Failing, scored: ${names(failing.scored)}.`);
  console.log(`Failing, not scored: ${names(failing.unscored)}.`);
} else {
  console.log(`Failing: ${names(failing.scored)}.`);
}
const missing = [...baseline.keys()].filter((s) => !runs.some((r) => r.scenario === s));
if (missing.length) console.log(`Baseline entries whose scenario did not run: ${missing.join(', ')}.`);
