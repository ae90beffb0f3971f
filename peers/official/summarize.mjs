// Summarizes one run of the official conformance suite as a Markdown table.
//
// Usage: node summarize.mjs RESULTS_DIR BASELINE_YAML
//
// RESULTS_DIR holds the suite's `-o` output: one folder per scenario named
// server-<scenario>-<ISO timestamp>, each with checks.json. A scenario FAILs
// when one of its checks is FAILURE, WARNs when one is WARNING, else PASSes.
// The note quotes the suite's messages for failures and warnings. BASELINE_YAML
// is the expected-failures file; its scenarios are marked "baseline".
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const [resultsDir, baselinePath] = process.argv.slice(2);
if (!resultsDir || !baselinePath) {
  console.error('usage: node summarize.mjs RESULTS_DIR BASELINE_YAML');
  process.exit(2);
}

// The baseline is a flat YAML list under `server:`; its entries are the
// lines "  - name", comments aside.
const baseline = new Set(
  readFileSync(baselinePath, 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').match(/^\s+-\s+(\S+)\s*$/))
    .filter(Boolean)
    .map((m) => m[1]),
);

const stamp = /-(\d{4}-\d{2}-\d{2}T[\d-]+Z)$/;
const runs = readdirSync(resultsDir, { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name.startsWith('server-') && stamp.test(d.name))
  .map((d) => ({
    dir: d.name,
    scenario: d.name.slice('server-'.length).replace(stamp, ''),
    when: d.name.match(stamp)[1],
  }))
  .sort((a, b) => a.when.localeCompare(b.when));

if (runs.length === 0) {
  console.error(`summarize.mjs: no scenario results in ${resultsDir}`);
  process.exit(2);
}

const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
const rows = [];
const totals = { PASS: 0, FAIL: 0, WARN: 0 };
for (const run of runs) {
  const checks = JSON.parse(readFileSync(join(resultsDir, run.dir, 'checks.json'), 'utf8'));
  const count = (status) => checks.filter((c) => c.status === status).length;
  const failures = checks.filter((c) => c.status === 'FAILURE');
  const warnings = checks.filter((c) => c.status === 'WARNING');
  const outcome = failures.length ? 'FAIL' : warnings.length ? 'WARN' : 'PASS';
  totals[outcome]++;
  const note = [...failures, ...warnings]
    .map((c) => `${c.status === 'FAILURE' ? 'failed' : 'warning'} ${c.id}: ${c.errorMessage || c.description}`)
    .join('; ');
  rows.push(
    `| ${run.scenario} | ${outcome} | ${count('SUCCESS')}/${count('FAILURE')}/${count('WARNING')} | ` +
      `${baseline.has(run.scenario) ? 'baseline' : ''} | ${cell(note)} |`,
  );
}

console.log('| scenario | outcome | checks ok/failed/warned | baseline | note |');
console.log('| --- | --- | --- | --- | --- |');
for (const row of rows) console.log(row);
console.log('');
console.log(`${runs.length} scenarios: ${totals.PASS} PASS, ${totals.FAIL} FAIL, ${totals.WARN} WARN`);
const missing = [...baseline].filter((s) => !runs.some((r) => r.scenario === s));
if (missing.length) console.log(`Baseline entries that did not run: ${missing.join(', ')}`);
