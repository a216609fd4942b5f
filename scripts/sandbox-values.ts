/**
 * `npm run sandbox:values`: prints the Markdown table of every magic value of the sandbox
 * (providers/sandbox-values.ts). `npm run sandbox:values -- --write` rewrites README.md's copy in
 * place (between `<!-- sandbox-values:start -->` and `<!-- sandbox-values:end -->`, inserted at the
 * end of "Try it by hand" when missing); tests/unit/sandbox-values.test.ts keeps the copy exact.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sandboxValuesMarkdown } from '../providers/sandbox-values';
import { withSandboxTable } from './sandbox-values-readme';

/** README.md of this checkout (dist/scripts/ -> the repository root). */
export const README_FILE = path.resolve(__dirname, '../../README.md');

function main(): void {
  const table = sandboxValuesMarkdown();
  if (!process.argv.includes('--write')) {
    process.stdout.write(table);
    return;
  }
  const before = fs.readFileSync(README_FILE, 'utf8');
  const after = withSandboxTable(before, table);
  if (after !== before) fs.writeFileSync(README_FILE, after);
  process.stdout.write(
    after === before ? `${README_FILE}: sandbox values already up to date\n` : `${README_FILE}: sandbox values rewritten\n`,
  );
}

main();
