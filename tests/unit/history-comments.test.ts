/**
 * Comments in product code say what the code does and why; the history of a change lives in
 * docs/decisions/ and in git. This test reads the product's sources, collects every comment with
 * the TypeScript parser (string and template text is not a comment), and fails on a comment that
 * cites an issue (`issue 14`, `(issue 26 item 3)`). Tests and docs are not read.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const SCANNED = [
  'activities',
  'api',
  'domain',
  'lib',
  'providers',
  'views',
  'entities',
  'contracts',
  'workflows',
  'temporal',
  'scripts',
  'worker.ts',
];
const HISTORY = /\bissue \d+/i;

function sources(p: string): string[] {
  const abs = path.join(ROOT, p);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return [p];
  return fs.readdirSync(abs, { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(p, entry.name);
    if (entry.isDirectory()) return sources(rel);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Every comment of `file` with its 1-based line: the leading and trailing comment ranges of every token. */
function comments(file: string): Array<{ line: number; text: string }> {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const seen = new Map<number, string>();
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) seen.set(range.pos, text.slice(range.pos, range.end));
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.getChildren(sourceFile).forEach(visit);
  };
  visit(sourceFile);
  collect(ts.getLeadingCommentRanges(text, sourceFile.endOfFileToken.getFullStart()));
  return [...seen.entries()]
    .sort(([a], [b]) => a - b)
    .map(([pos, body]) => ({ line: sourceFile.getLineAndCharacterOfPosition(pos).line + 1, text: body }));
}

describe('history comments', () => {
  it('no comment in product code cites an issue', () => {
    const offenders = SCANNED.flatMap(sources).flatMap((file) =>
      comments(file).flatMap(({ line, text }) =>
        text.split('\n').flatMap((row, i) => (HISTORY.test(row) ? [`${file}:${line + i}: ${row.trim().slice(0, 140)}`] : [])),
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('reads comments, not code or strings', () => {
    const dir = fs.mkdtempSync(path.join(ROOT, '.history-probe-'));
    try {
      const file = path.join(dir, 'probe.ts');
      fs.writeFileSync(file, "const a = 'issue 12'; // fine\n/** (issue 14) */\nconst b = `issue ${a}`; /* issue 3 */\n");
      const found = comments(path.relative(ROOT, file)).filter(({ text }) => HISTORY.test(text));
      expect(found.map(({ line }) => line)).toEqual([2, 3]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
