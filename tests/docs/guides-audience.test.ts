/**
 * The guides the product serves (`/docs/guides/<name>`, api/docs/guides.tsx) speak to a merchant
 * (issue 38 point 6): their rendered text, code blocks included, says nothing about the project's
 * CI or test suite. What contributors need about the guides' runnable blocks lives in the README
 * and tests/docs/runnable.test.ts, which are not served.
 */
import fs from 'node:fs';
import path from 'node:path';
import { renderToString } from 'preact-render-to-string';
import { guidesDir } from '../../api/docs/guides';
import { renderMarkdown } from '../../api/docs/markdown';

/** Words that speak about the project's CI or tests rather than to the reader. */
const CONTRIBUTOR_TALK = /\bCI\b|\btests?\/|\btest suite\b|\bjest\b|\.ci\/|runnable\.test/i;

test('no served guide talks about CI or the test suite', () => {
  const files = fs
    .readdirSync(guidesDir())
    .filter((f) => f.endsWith('.md'))
    .sort();
  expect(files.length).toBeGreaterThan(0);
  for (const f of files) {
    const text = renderToString(renderMarkdown(fs.readFileSync(path.join(guidesDir(), f), 'utf8')).body)
      .replace(/<wbr\/>/g, '')
      .replace(/<[^>]+>/g, ' ');
    const lines = text
      .split('\n')
      .filter((l) => CONTRIBUTOR_TALK.test(l))
      .map((l) => l.trim().slice(0, 160));
    expect([f, lines]).toEqual([f, []]);
  }
});
