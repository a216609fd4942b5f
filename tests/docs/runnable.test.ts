/**
 * The README and the guides run (issue 23 part 5): every code block fenced ```` ```bash runnable ````
 * in README.md and docs/guides/*.md runs against a real stack, as a reader would run it.
 *
 * - One bash process per file (`set -euo pipefail`), its runnable blocks in order, so variables
 *   and helpers carry from block to block as in the reader's shell; a non-zero exit (a helper
 *   meeting an unexpected HTTP status, a poll giving up, an unset variable) fails the file's test
 *   with the transcript's tail, each block headed by `=== <file>:<line>`.
 * - Each file gets a fresh account and a working directory of its own holding what `npm start`
 *   would have written: `.data/dev-credentials.json` and `.data/runtime.json` (the stack's
 *   addresses; `DATA_DIR` points the repository's scripts at it). The blocks run with
 *   `API=<the stack>`, `REPO=<this checkout>` (for `npm --prefix "$REPO" run switch|temporal`) and
 *   the project's node first on `PATH`; nothing else of the test's environment.
 * - A file whose runnable fences carry `stack:NAME=value` words (```` ```bash runnable
 *   stack:NETWORK=mainnet ````: the `crypto_xchain` guide) runs against a private stack started with
 *   those settings, its account made by the seed script against that stack; every other file runs
 *   against the shared test stack. (In the fence, not an HTML comment: the docs site renders raw
 *   HTML as text, and ignores a fence's words after the language.)
 * - Blocks without the marker (installing, starting, "open this in a browser") are never run, and
 *   a guide without runnable blocks is not run.
 * Every file's first runnable block must be the README's helpers block, word for word, so the
 * helpers a reader copies are the same everywhere.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DevCredentials } from '../../activities/accounts/commands';
import { newAccount } from '../helpers/api';
import { startTestStack } from '../helpers/stack';

const root = path.resolve(__dirname, '../..');
/** Longest a file's blocks may run (the guides take well under a minute each). */
const FILE_TIMEOUT_MS = 150_000;

export interface RunnableBlock {
  line: number;
  code: string;
  stack: Record<string, string>;
}
export interface RunnableDoc {
  file: string;
  blocks: RunnableBlock[];
  stack: Record<string, string> | null;
}

/** A fenced code block: its info words, its first body line (1-based) and its body. */
export interface Fence {
  info: string[];
  line: number;
  code: string;
}

/** Every fenced code block of `markdown` in order (fences of 3+ backticks or tildes; blocks inside others skipped whole). */
export function fences(markdown: string, file = 'doc'): Fence[] {
  const lines = markdown.split('\n');
  const out: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[1];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(lines[j]);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) break;
      body.push(lines[j]);
    }
    if (j >= lines.length) throw new Error(`${file}:${i + 1}: unclosed code fence`);
    out.push({ info: open[2].trim().split(/\s+/).filter(Boolean), line: i + 2, code: body.join('\n') });
    i = j;
  }
  return out;
}

/** The ```` ```bash runnable ```` blocks of `markdown` in order (fences of 3+ backticks or tildes; other blocks skipped whole). */
export function runnableBlocks(markdown: string, file = 'doc'): RunnableBlock[] {
  return fences(markdown, file).flatMap((f) => {
    if (f.info.includes('runnable') && f.info[0] !== 'bash')
      throw new Error(`${file}:${f.line - 1}: a runnable block must be bash, got \`${f.info.join(' ')}\``);
    return f.info[0] === 'bash' && f.info.includes('runnable')
      ? [{ line: f.line, code: f.code, stack: stackOf(f.info, `${file}:${f.line - 1}`) }]
      : [];
  });
}

/** The languages of shell blocks a reader may paste into a terminal. */
const SHELL_LANGUAGES = new Set(['bash', 'sh', 'shell', 'console', 'zsh']);

/**
 * The shell blocks of `markdown` that CI does not run and that are not marked so (issue 38 part 9):
 * a block CI does not run carries `manual` in its fence (```` ```bash manual ````; the docs render
 * the language only) and says why on its first line, as a comment to the reader (`# Needs a
 * desktop browser ...`). As `file:line`. `exempt`: blocks CI runs by other means (the README's two
 * commands: .ci/run).
 */
export function unmarkedShellBlocks(markdown: string, file: string, exempt: (f: Fence) => boolean = () => false): string[] {
  return fences(markdown, file)
    .filter((f) => SHELL_LANGUAGES.has(f.info[0] ?? '') && !f.info.includes('runnable') && !exempt(f))
    .filter((f) => !(f.info.includes('manual') && /^# \S.{10,}$/.test(f.code.split('\n')[0])))
    .map((f) => `${file}:${f.line - 1}`);
}

/** The `stack:NAME=value` words of a fence's info string, as settings. */
function stackOf(info: string[], where: string): Record<string, string> {
  return Object.fromEntries(
    info
      .filter((w) => w.startsWith('stack:'))
      .map((w) => {
        const m = /^stack:([A-Z][A-Z0-9_]*)=(.+)$/.exec(w);
        if (!m) throw new Error(`${where}: \`${w}\` is not stack:NAME=value`);
        return [m[1], m[2]];
      }),
  );
}

/** The stack settings of a file's blocks (their union; null when none asks for one). */
export function stackOfDoc(blocks: RunnableBlock[], file: string): Record<string, string> | null {
  const all: Record<string, string> = {};
  for (const b of blocks) {
    for (const [k, v] of Object.entries(b.stack)) {
      if (all[k] !== undefined && all[k] !== v) throw new Error(`${file}:${b.line}: stack:${k}=${v} contradicts stack:${k}=${all[k]}`);
      all[k] = v;
    }
  }
  return Object.keys(all).length ? all : null;
}

/** README.md, then the docs/guides/*.md that have runnable blocks, by name. */
function loadDocs(): RunnableDoc[] {
  const guides = fs
    .readdirSync(path.join(root, 'docs/guides'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/guides/${f}`);
  return ['README.md', ...guides].flatMap((file) => {
    let text: string;
    try {
      text = fs.readFileSync(path.join(root, file), 'utf8');
    } catch {
      return []; // gone since listed (tests/api/docs-site.test.ts adds and removes a guide of its own)
    }
    const blocks = runnableBlocks(text, file);
    return blocks.length || file === 'README.md' ? [{ file, blocks, stack: stackOfDoc(blocks, file) }] : [];
  });
}

interface Target {
  apiUrl: string;
  databaseUrl: string;
  temporalAddress: string;
  encryptionKey: string;
  network: 'mainnet' | 'testnet';
}

/** Runs the blocks of `doc` in one bash in a fresh working directory; resolves with the exit code and the transcript. */
async function runDoc(
  doc: RunnableDoc,
  target: Target,
  creds: DevCredentials,
): Promise<{ code: number | null; transcript: string; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `docs-${path.basename(doc.file, '.md')}-`));
  const data = path.join(dir, '.data');
  fs.mkdirSync(data);
  fs.writeFileSync(path.join(data, 'dev-credentials.json'), JSON.stringify(creds, null, 2));
  fs.writeFileSync(
    path.join(data, 'runtime.json'),
    JSON.stringify(
      {
        api_url: target.apiUrl,
        database_url: target.databaseUrl,
        temporal_address: target.temporalAddress,
        temporal_ui_url: null,
        app_encryption_key: target.encryptionKey,
        network: target.network,
      },
      null,
      2,
    ),
  );
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = ['set -euo pipefail', ...doc.blocks.map((b) => `printf '\\n=== %s:%s\\n' ${q(doc.file)} ${b.line}\n${b.code}`)].join('\n');
  const scriptFile = path.join(dir, 'run.sh');
  fs.writeFileSync(scriptFile, `${script}\n`);
  const transcriptFile = path.join(dir, 'transcript.log');
  const out = fs.openSync(transcriptFile, 'w');
  const env: NodeJS.ProcessEnv = {
    PATH: `${path.join(root, 'node_modules/.bin')}:${path.dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: process.env.HOME ?? dir,
    LANG: 'C.UTF-8',
    TMPDIR: dir,
    API: target.apiUrl,
    REPO: root,
    DATA_DIR: data,
  };
  const child = spawn('bash', [scriptFile], { cwd: dir, env, stdio: ['ignore', out, out], detached: true });
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }, FILE_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  fs.closeSync(out);
  return { code, transcript: fs.readFileSync(transcriptFile, 'utf8'), dir };
}

function expectRan(doc: RunnableDoc, r: { code: number | null; transcript: string; dir: string }, productLog?: string): void {
  if (r.code === 0) {
    fs.rmSync(r.dir, { recursive: true, force: true });
    return;
  }
  const tail = r.transcript.split('\n').slice(-80).join('\n');
  throw new Error(
    `${doc.file}: the runnable blocks exited ${r.code ?? `killed after ${FILE_TIMEOUT_MS / 1000} s`} (script and transcript in ${r.dir}${productLog ? `; product log ${productLog}` : ''}):\n${tail}`,
  );
}

const docs = loadDocs();

describe('the runnable blocks are well-formed', () => {
  test('the parser takes bash runnable blocks only, in order, skipping other fences whole', () => {
    const md = [
      '# t',
      '```bash runnable',
      'A=1',
      '```',
      '````md',
      '```bash runnable',
      'not run',
      '```',
      '````',
      '```bash',
      'B=2',
      '```',
      '~~~bash runnable stack:NETWORK=mainnet',
      'echo $A',
      '~~~',
    ].join('\n');
    const blocks = runnableBlocks(md);
    expect(blocks).toEqual([
      { line: 3, code: 'A=1', stack: {} },
      { line: 14, code: 'echo $A', stack: { NETWORK: 'mainnet' } },
    ]);
    expect(stackOfDoc(blocks, 'md')).toEqual({ NETWORK: 'mainnet' });
    expect(stackOfDoc(blocks.slice(0, 1), 'md')).toBeNull();
    expect(() => runnableBlocks('```sh runnable\nx\n```')).toThrow(/must be bash/);
    expect(() => runnableBlocks('```bash runnable stack:network\nx\n```')).toThrow(/stack:NAME=value/);
  });

  test('the README and the guides with runnable blocks start with the README helpers word for word', () => {
    const helpers = docs[0].blocks[0]?.code;
    expect(helpers).toMatch(/^# Helpers for the blocks below/);
    expect(docs.length).toBeGreaterThan(1);
    for (const d of docs) {
      expect([d.file, d.blocks.length > 1]).toEqual([d.file, true]);
      expect([d.file, d.blocks[0].code]).toEqual([d.file, helpers]);
    }
    // The README's first commands stay exactly as CI and newcomers run them.
    expect(fs.readFileSync(path.join(root, 'README.md'), 'utf8')).toMatch(/^# [^\n]+\n\n```bash\nnpm ci && npm start\nnpm test\n```\n/);
  });

  test('every other shell block in the README and the guides is marked manual and says why on its first line', () => {
    const files = [
      'README.md',
      ...fs
        .readdirSync(path.join(root, 'docs/guides'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/guides/${f}`),
    ];
    // The README's two commands: .ci/run runs `npm ci` and `npm test`; tests/e2e/first-start.test.ts runs what `npm start` starts.
    const theTwoCommands = (f: Fence) => f.code === 'npm ci && npm start\nnpm test';
    const unmarked = files.flatMap((f) => unmarkedShellBlocks(fs.readFileSync(path.join(root, f), 'utf8'), f, theTwoCommands));
    expect(unmarked).toEqual([]);
    expect(
      unmarkedShellBlocks(
        '```bash\nxdg-open x\n```\n```sh manual\n# Needs a desktop browser\nx\n```\n```bash runnable\ny\n```\n```js\nz\n```\n```bash manual\nno reason\n```',
        'md',
      ),
    ).toEqual(['md:1', 'md:14']);
  });
});

describe.each(docs.filter((d) => !d.stack).map((d) => [d.file, d] as const))('%s', (_file, doc) => {
  test(
    'runs against the test stack',
    async () => {
      const creds = await newAccount();
      const target = {
        apiUrl: process.env.TEST_API_URL!,
        databaseUrl: process.env.DATABASE_URL!,
        temporalAddress: process.env.TEMPORAL_ADDRESS!,
        encryptionKey: process.env.APP_ENCRYPTION_KEY!,
        network: process.env.NETWORK === 'mainnet' ? ('mainnet' as const) : ('testnet' as const),
      };
      expectRan(doc, await runDoc(doc, target, creds), process.env.TEST_PRODUCT_LOG);
    },
    FILE_TIMEOUT_MS + 30_000,
  );
});

describe.each(docs.filter((d) => d.stack).map((d) => [d.file, d] as const))('%s', (_file, doc) => {
  test(
    `runs against a private stack (${Object.entries(doc.stack!)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')})`,
    async () => {
      const stack = await startTestStack(
        `docs-${path.basename(doc.file, '.md')}`,
        (m) => process.stderr.write(`[docs] ${m}\n`),
        doc.stack!,
      );
      try {
        // The account as `npm run seed` makes it, against that stack (its database, its settings).
        const seed = spawnSync(process.execPath, [path.join(root, 'dist/scripts/seed.js')], {
          env: stack.env,
          encoding: 'utf8',
          timeout: 60_000,
        });
        if (seed.status !== 0) throw new Error(`seed failed (${seed.status}): ${seed.stderr}`);
        const creds = JSON.parse(seed.stdout) as DevCredentials;
        const target = {
          apiUrl: stack.apiUrl,
          databaseUrl: stack.databaseUrl,
          temporalAddress: stack.temporalAddress,
          encryptionKey: stack.env.APP_ENCRYPTION_KEY!,
          network: stack.env.NETWORK === 'mainnet' ? ('mainnet' as const) : ('testnet' as const),
        };
        expectRan(doc, await runDoc(doc, target, creds), stack.productLog);
      } finally {
        await stack.stop();
      }
    },
    FILE_TIMEOUT_MS + 240_000,
  );
});
