// Reads the official suite's `-o` output, shared by summarize.mjs,
// everything/compare.mjs and crosscheck.mjs: one folder per scenario run,
// named <scenario>-<ISO timestamp> (server-<scenario>-… in server mode),
// each with checks.json.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const stamp = /-(\d{4}-\d{2}-\d{2}T[\d-]+Z)$/;

// scenarioRuns lists the scenario runs of a role in DIR (none when DIR does
// not exist), oldest first: { dir, scenario, when, file } with file the path
// of its checks.json. A scenario whose name has a slash (auth/metadata-default)
// is written one directory down (DIR/auth/metadata-default-<stamp>); its
// scenario keeps the directory's name as its prefix.
export function scenarioRuns(dir, role, group = '') {
  if (!existsSync(dir)) return [];
  const prefix = role === 'server' ? 'server-' : '';
  const entries = readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory());
  const runs = entries
    .filter((d) => d.name.startsWith(prefix) && stamp.test(d.name))
    .map((d) => ({
      dir: join(group, d.name),
      scenario: group + d.name.slice(prefix.length).replace(stamp, ''),
      when: d.name.match(stamp)[1],
      file: join(dir, d.name, 'checks.json'),
    }));
  if (!group) {
    for (const d of entries.filter((d) => !stamp.test(d.name))) {
      runs.push(...scenarioRuns(join(dir, d.name), role, `${d.name}/`));
    }
  }
  return runs.sort((a, b) => a.when.localeCompare(b.when));
}

// readChecks is the checks of one scenario run, or null when it wrote none.
export function readChecks(run) {
  return existsSync(run.file) ? JSON.parse(readFileSync(run.file, 'utf8')) : null;
}

// outcomeOf is a scenario's outcome from its checks: FAIL when one is
// FAILURE, WARN when one is WARNING, else PASS.
export function outcomeOf(checks) {
  if (checks.some((c) => c.status === 'FAILURE')) return 'FAIL';
  if (checks.some((c) => c.status === 'WARNING')) return 'WARN';
  return 'PASS';
}
