// The tables of cross-check.sh: which server mutant of the reference the
// official suite kills, and which mcpconform kills.
//
// Usage: node crosscheck.mjs select OUT_DIR [NAMES]
//        node crosscheck.mjs table OUT_DIR
//
// select prints one "NAME<TAB>TRANSPORT<TAB>ERA" line per server mutant of
// OUT_DIR/mutants.json (`mcpconform list --mutants --format json`; planted
// bugs and permitted variants aside), restricted to NAMES (comma-separated)
// when given. TRANSPORT is "any" for a mutant of the MCP server itself
// (serve takes it on stdio too), "http" for one of the HTTP transport. ERA
// is "modern" for a mutant of a server of 2026-07-28 alone, which is judged
// beside the reference of that era alone (runs/reference-modern/): beside
// the reference of both eras every legacy scenario would "kill" it.
//
// table reads OUT_DIR/runs/reference/ and OUT_DIR/runs/<mutant>/, each with
// official-<run>/ (the suite's -o results of one run), mcpconform.json
// (mcpconform's JSON index over HTTP), mcpconform-stdio.json (over stdio,
// where it ran) and status.tsv (tool, exit status, seconds), and writes
// cross-check.md (printed), cross-check.tsv and cross-check.json. The
// official suite kills a mutant with a scenario that FAILs or WARNs on it
// (results.mjs) and PASSes on the reference in the same run; mcpconform with
// a check that is FAIL, WARN or HARDENED on it and PASS on the reference
// over the same transport. A mutant that neither the suite nor mcpconform
// over HTTP kills, and mcpconform over stdio does, is "stdio only". ERROR
// outcomes and runs that gave no verdict are noted, never counted.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { outcomeOf, readChecks, scenarioRuns } from './results.mjs';

const usage = 'usage: node crosscheck.mjs select OUT_DIR [NAMES] | table OUT_DIR';
const [mode, out, names] = process.argv.slice(2);
if (!out || !['select', 'table'].includes(mode)) {
  console.error(usage);
  process.exit(2);
}
const readJSON = (file) => JSON.parse(readFileSync(file, 'utf8'));

const runsDir = join(out, 'runs');
const refDir = join(runsDir, 'reference');
// The mutants of the server as a protected resource (auth) are left out:
// they need serve --auth and a token command, and the official suite has
// no scenario of a server's authorization to run against them.
const mutants = readJSON(join(out, 'mutants.json')).mutants.filter((m) => m.role === 'server' && m.kind === 'mutant' && !m.auth);

if (mode === 'select') {
  const wanted = names ? new Set(names.split(',').filter(Boolean)) : null;
  const known = new Set(mutants.map((m) => m.name));
  const unknown = [...(wanted ?? [])].filter((n) => !known.has(n));
  if (unknown.length) {
    console.error(`crosscheck.mjs: not server mutants: ${unknown.join(', ')}; mcpconform list --mutants names them`);
    process.exit(2);
  }
  for (const m of mutants) if (!wanted || wanted.has(m.name)) console.log(`${m.name}\t${m.transport}\t${m.era ?? ''}`);
  process.exit(0);
}

const officialRuns = ['2025-11-25', '2026-07-28', 'all'];
const killing = new Set(['FAIL', 'WARN', 'HARDENED']);

// status is a run directory's status.tsv: tool → { exit, seconds }.
const status = (dir) => {
  const file = join(dir, 'status.tsv');
  if (!existsSync(file)) return new Map();
  return new Map(
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t'))
      .map(([tool, exit, seconds]) => [tool, { exit: Number(exit), seconds: Number(seconds) }]),
  );
};

// official reads one target's runs of the suite: run → scenario → { outcome, failing }.
const official = (dir) =>
  new Map(
    officialRuns.map((run) => [
      run,
      new Map(
        scenarioRuns(join(dir, `official-${run}`), 'server').map((r) => {
          const checks = readChecks(r);
          const failing = (checks ?? []).filter((c) => c.status === 'FAILURE' || c.status === 'WARNING').map((c) => c.id);
          return [r.scenario, { outcome: checks ? outcomeOf(checks) : 'NO RESULT', failing }];
        }),
      ),
    ]),
  );

// mcpconform reads one target's JSON index over a transport: check → outcome.
const mcpconform = (dir, transport) => {
  const file = join(dir, transport === 'stdio' ? 'mcpconform-stdio.json' : 'mcpconform.json');
  return existsSync(file) ? new Map(readJSON(file).checks.map((c) => [c.id, c.outcome])) : null;
};

// reference reads a reference's runs, null when it has none.
const reference = (dir) => {
  if (!existsSync(dir)) return null;
  const r = { official: official(dir), http: mcpconform(dir, 'http'), stdio: mcpconform(dir, 'stdio') };
  if (!r.http || !r.stdio || officialRuns.some((run) => r.official.get(run).size === 0)) {
    console.error(`crosscheck.mjs: the reference's runs in ${dir} are incomplete; see their logs there`);
    process.exit(2);
  }
  return r;
};
const refBoth = reference(refDir);
if (!refBoth) {
  console.error(`crosscheck.mjs: no runs of the reference in ${refDir}`);
  process.exit(2);
}
const refModern = reference(join(runsDir, 'reference-modern'));

const rows = [];
for (const m of mutants) {
  const dir = join(runsDir, m.name);
  if (!existsSync(dir)) continue;
  const st = status(dir);
  const notes = [];
  if (m.era === 'modern' && !refModern) {
    console.error(`crosscheck.mjs: ${m.name} serves 2026-07-28 alone, and there are no runs of the reference of that era alone (runs/reference-modern)`);
    process.exit(2);
  }
  const ref = m.era === 'modern' ? refModern : refBoth;
  // The official suite: the scenarios that pass on the reference and not on the mutant.
  const scenarios = new Map(); // scenario → { runs, checks }
  const got = official(dir);
  for (const run of officialRuns) {
    const exit = st.get(`official-${run}`)?.exit;
    if (exit === undefined) notes.push(`official ${run}: not run`);
    else if (exit !== 0 && exit !== 1) notes.push(`official ${run}: exit ${exit}${exit === 124 ? ' (stopped at its timeout)' : ''}`);
    for (const [scenario, r] of ref.official.get(run)) {
      if (r.outcome !== 'PASS') continue;
      const mine = got.get(run).get(scenario);
      if (!mine) {
        if (exit === 0 || exit === 1) notes.push(`official ${run}: ${scenario} did not run`);
        continue;
      }
      if (mine.outcome !== 'FAIL' && mine.outcome !== 'WARN') continue;
      const s = scenarios.get(scenario) ?? { scenario, runs: [], checks: new Set() };
      s.runs.push(run);
      for (const id of mine.failing) s.checks.add(id);
      scenarios.set(scenario, s);
    }
  }
  // mcpconform: the checks that pass on the reference and not on the
  // mutant, over HTTP, and for a stdio mutant over stdio too.
  const checks = [];
  for (const transport of st.has('mcpconform-stdio') ? ['http', 'stdio'] : ['http']) {
    const tool = transport === 'stdio' ? 'mcpconform-stdio' : 'mcpconform';
    const mine = mcpconform(dir, transport);
    const exit = st.get(tool)?.exit;
    if (exit === undefined) notes.push(`${tool}: not run`);
    else if (!mine) notes.push(`${tool}: no report (exit ${exit})`);
    else if (exit !== 0 && exit !== 1) notes.push(`${tool}: exit ${exit}`);
    const errors = [];
    for (const [id, outcome] of mine ?? []) {
      if (outcome === 'ERROR') errors.push(id);
      else if (ref[transport].get(id) === 'PASS' && killing.has(outcome)) checks.push({ id, outcome, transport });
    }
    if (errors.length) notes.push(`${tool} ERROR (not counted): ${errors.join(', ')}`);
  }
  const byOfficial = scenarios.size > 0;
  const byHTTP = checks.some((c) => c.transport === 'http');
  const byMcpconform = checks.length > 0;
  const stdioOnly = byMcpconform && !byHTTP;
  let verdict = byOfficial ? (byMcpconform ? 'both' : 'official only') : byMcpconform ? 'mcpconform only' : 'neither';
  if (byOfficial && stdioOnly) verdict = 'both (mcpconform over stdio only)';
  if (!byOfficial && stdioOnly) verdict = 'stdio only (the suite speaks HTTP)';
  rows.push({
    name: m.name,
    description: m.description,
    stdio_only: stdioOnly,
    verdict,
    official: { killed: byOfficial, scenarios: [...scenarios.values()].map((s) => ({ ...s, checks: [...s.checks] })) },
    mcpconform: { killed: byMcpconform, checks },
    notes,
    seconds: Object.fromEntries([...st].map(([tool, s]) => [tool, s.seconds])),
  });
}

const count = (pred) => rows.filter(pred).length;
const totals = {
  mutants: rows.length,
  killed_by_official: count((r) => r.official.killed),
  killed_by_mcpconform: count((r) => r.mcpconform.killed),
  killed_by_both: count((r) => r.official.killed && r.mcpconform.killed),
  official_only: count((r) => r.official.killed && !r.mcpconform.killed),
  mcpconform_only: count((r) => !r.official.killed && r.mcpconform.killed),
  neither: count((r) => !r.official.killed && !r.mcpconform.killed),
  stdio_only: count((r) => r.stdio_only),
};
// The scenarios the reference does not pass, with the runs: they can kill nothing.
const notPassing = new Map();
for (const run of officialRuns) {
  for (const [scenario, r] of refBoth.official.get(run)) {
    if (r.outcome !== 'PASS') notPassing.set(scenario, [...(notPassing.get(scenario) ?? []), `${run} ${r.outcome}`]);
  }
}
const refNotPassing = [...notPassing].map(([scenario, runs]) => `${scenario} (${runs.join(', ')})`);
const refNotPassingChecks = [...refBoth.http]
  .filter(([id, o]) => o !== 'PASS' && refBoth.stdio.get(id) !== 'PASS')
  .map(([id, o]) => `${id} (${o} over HTTP, ${refBoth.stdio.get(id) ?? 'not run'} over stdio)`);
writeFileSync(
  join(out, 'cross-check.json'),
  JSON.stringify({ totals, reference: { official_not_passing: refNotPassing, mcpconform_not_passing: refNotPassingChecks }, mutants: rows }, null, 2) + '\n',
);

const tsv = ['mutant\tverdict\tstdio_only\tofficial_scenarios\tmcpconform_checks'];
for (const r of rows) {
  tsv.push(
    [r.name, r.verdict, r.stdio_only, r.official.scenarios.map((s) => s.scenario).join(','), r.mcpconform.checks.map((c) => c.id).join(',')].join(
      '\t',
    ),
  );
}
writeFileSync(join(out, 'cross-check.tsv'), tsv.join('\n') + '\n');

// capped joins the first few killers of a mutant for the Markdown table;
// cross-check.tsv and .json name them all.
const shown = 4;
const capped = (xs) =>
  xs.length === 0 ? '—' : xs.slice(0, shown).join(', ') + (xs.length > shown ? ` and ${xs.length - shown} more` : '');
const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();
const md = [
  '| mutant | breaks | official suite kills it with | mcpconform kills it with | verdict |',
  '| --- | --- | --- | --- | --- |',
];
for (const r of rows) {
  const off = capped(r.official.scenarios.map((s) => `\`${s.scenario}\` (${s.runs.join(', ')})`));
  // A check killing over both transports is named once; "stdio" marks one
  // that kills over stdio alone.
  const byID = new Map();
  for (const c of r.mcpconform.checks) {
    const e = byID.get(c.id) ?? { outcomes: new Set(), transports: new Set() };
    e.outcomes.add(c.outcome);
    e.transports.add(c.transport);
    byID.set(c.id, e);
  }
  const mc = capped(
    [...byID].map(([id, e]) => {
      const notes = [...e.outcomes].filter((o) => o !== 'FAIL');
      if (!e.transports.has('http')) notes.push('stdio');
      return `\`${id}\`${notes.length ? ` (${notes.join(', ')})` : ''}`;
    }),
  );
  const verdict = r.verdict === 'official only' ? '**official only**' : r.verdict;
  md.push(`| \`${r.name}\` | ${cell(r.description)} | ${off} | ${mc} | ${verdict}${r.notes.length ? `; ${cell(r.notes.join('; '))}` : ''} |`);
}
md.push('');
md.push(
  `${totals.mutants} server mutants: the official suite kills ${totals.killed_by_official}, mcpconform ${totals.killed_by_mcpconform}, ` +
    `both ${totals.killed_by_both}; the official suite alone ${totals.official_only}, mcpconform alone ${totals.mcpconform_only}, ` +
    `neither ${totals.neither}; mcpconform kills ${totals.stdio_only} over stdio only.`,
);
md.push(`Scenarios the reference does not pass (they kill nothing): ${refNotPassing.join(', ') || 'none'}.`);
if (refNotPassingChecks.length) md.push(`mcpconform checks the reference passes over neither transport (they kill nothing): ${refNotPassingChecks.join(', ')}.`);
writeFileSync(join(out, 'cross-check.md'), md.join('\n') + '\n');
console.log(md.join('\n'));
