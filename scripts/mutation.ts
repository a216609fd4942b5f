/**
 * `npm run test:mutation [-- <stryker options>]`: runs StrykerJS (stryker.config.mjs) and then
 * prints the mutation score per folder from its JSON report and writes the surviving mutants to
 * reports/mutation/survivors.txt, one line each: `file:line:column mutator "replacement"`.
 *
 * Options are passed to `stryker run` as given, e.g. `-- --mutate domain/fees.ts` or
 * `-- --incremental`; `MUTATE=<glob>[,<glob>]` in the environment does the same as `--mutate`.
 * `--report-only` skips the run and summarises the existing report. Exits with Stryker's status.
 *
 * Run by Node 24 directly (type stripping): `node scripts/mutation.ts`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const REPORT = 'reports/mutation/mutation.json';
const SURVIVORS = 'reports/mutation/survivors.txt';

/** One mutant of Stryker's mutation-testing-report-schema (the fields read here). */
interface Mutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number } };
}

/** Killed, survived, no-coverage, timeout and ignored counts of one folder or file. */
interface Tally {
  killed: number;
  survived: number;
  noCoverage: number;
  timeout: number;
  errors: number;
  ignored: number;
}

const UNDETECTED = new Set(['Survived', 'NoCoverage']);

/** Adds `status` to `t`. */
function count(t: Tally, status: string): void {
  if (status === 'Killed') t.killed += 1;
  else if (status === 'Timeout') t.timeout += 1;
  else if (status === 'Survived') t.survived += 1;
  else if (status === 'NoCoverage') t.noCoverage += 1;
  else if (status === 'Ignored') t.ignored += 1;
  else t.errors += 1;
}

/** Stryker's mutation score: detected / (detected + undetected), in percent; null without valid mutants. */
function score(t: Tally): number | null {
  const detected = t.killed + t.timeout;
  const valid = detected + t.survived + t.noCoverage;
  return valid === 0 ? null : (100 * detected) / valid;
}

/** The table row of one folder: score, killed + timeout, survived, no coverage, ignored. */
function row(name: string, t: Tally): string {
  const s = score(t);
  const cells = [
    s === null ? '   n/a' : `${s.toFixed(2).padStart(6)}`,
    String(t.killed + t.timeout).padStart(7),
    String(t.survived).padStart(8),
    String(t.noCoverage).padStart(8),
    String(t.ignored).padStart(7),
  ];
  return `${name.padEnd(28)} ${cells.join(' ')}`;
}

/** Prints the per-folder table of `report` and writes its survivors; returns the survivors' count. */
function summarise(report: { files: Record<string, { mutants: Mutant[] }> }): number {
  const folders = new Map<string, Tally>();
  const total: Tally = { killed: 0, survived: 0, noCoverage: 0, timeout: 0, errors: 0, ignored: 0 };
  const survivors: string[] = [];
  for (const [file, { mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
    const folder = path.posix.dirname(file.split(path.sep).join('/'));
    const t = folders.get(folder) ?? { killed: 0, survived: 0, noCoverage: 0, timeout: 0, errors: 0, ignored: 0 };
    folders.set(folder, t);
    for (const m of mutants) {
      count(t, m.status);
      count(total, m.status);
      if (UNDETECTED.has(m.status)) {
        const at = `${file}:${m.location.start.line}:${m.location.start.column}`;
        survivors.push(`${at} ${m.mutatorName} ${JSON.stringify(m.replacement ?? '')}${m.status === 'NoCoverage' ? ' (no coverage)' : ''}`);
      }
    }
  }
  console.log(`\n${'folder'.padEnd(28)}  score  killed survived no-cover ignored`);
  for (const [folder, t] of [...folders].sort(([a], [b]) => a.localeCompare(b))) console.log(row(folder, t));
  console.log(row('all', total));
  fs.mkdirSync(path.dirname(SURVIVORS), { recursive: true });
  fs.writeFileSync(SURVIVORS, survivors.length > 0 ? `${survivors.join('\n')}\n` : '');
  console.log(`\n${survivors.length} survivor(s) written to ${SURVIVORS}`);
  return survivors.length;
}

function main(): number {
  const args = process.argv.slice(2);
  const reportOnly = args.includes('--report-only');
  let status = 0;
  if (!reportOnly) {
    const extra = process.env.MUTATE ? ['--mutate', process.env.MUTATE] : [];
    const bin = path.join('node_modules', '.bin', process.platform === 'win32' ? 'stryker.cmd' : 'stryker');
    status = spawnSync(bin, ['run', ...extra, ...args], { stdio: 'inherit' }).status ?? 1;
  }
  if (!fs.existsSync(REPORT)) {
    console.error(`no report at ${REPORT}`);
    return status === 0 ? 1 : status;
  }
  summarise(JSON.parse(fs.readFileSync(REPORT, 'utf8')));
  return status;
}

process.exitCode = main();
