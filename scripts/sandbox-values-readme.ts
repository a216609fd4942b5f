/**
 * The README's copy of the sandbox values table (providers/sandbox-values.ts): the section between
 * `<!-- sandbox-values:start -->` and `<!-- sandbox-values:end -->`, read and rewritten in place by
 * `npm run sandbox:values -- --write` and checked by tests/unit/sandbox-values.test.ts. Pure.
 */

export const SANDBOX_VALUES_START = '<!-- sandbox-values:start -->';
export const SANDBOX_VALUES_END = '<!-- sandbox-values:end -->';
/** Where `--write` puts the section when README has no markers yet: before the first of these headings found (end of "Try it by hand"). */
export const SANDBOX_VALUES_ANCHORS = ['### More journeys', '### Paying from another network'];

/** The text between the markers of `readme` (without the newlines next to the markers), or null when a marker is missing. */
export function readmeSandboxTable(readme: string): string | null {
  const start = readme.indexOf(SANDBOX_VALUES_START);
  const end = readme.indexOf(SANDBOX_VALUES_END);
  if (start < 0 || end < start) return null;
  return readme.slice(start + SANDBOX_VALUES_START.length, end).replace(/^\n/, '');
}

/**
 * `readme` with `table` between the markers: replaced in place when they exist, else inserted
 * with a one-line introduction before the first of SANDBOX_VALUES_ANCHORS found. Throws when
 * neither the markers nor an anchor is found.
 */
export function withSandboxTable(readme: string, table: string): string {
  const block = `${SANDBOX_VALUES_START}\n${table}${SANDBOX_VALUES_END}`;
  const start = readme.indexOf(SANDBOX_VALUES_START);
  const end = readme.indexOf(SANDBOX_VALUES_END);
  if (start >= 0 && end > start) return readme.slice(0, start) + block + readme.slice(end + SANDBOX_VALUES_END.length);
  const anchor = SANDBOX_VALUES_ANCHORS.map((h) => readme.indexOf(h)).find((i) => i >= 0) ?? -1;
  if (anchor < 0)
    throw new Error(
      `README.md has neither the ${SANDBOX_VALUES_START} markers nor a heading ${SANDBOX_VALUES_ANCHORS.map((h) => `"${h}"`).join(' or ')}`,
    );
  const intro = 'Every magic value of the sandbox (also in the `/sim` document; `npm run sandbox:values` prints it):\n\n';
  return `${readme.slice(0, anchor)}${intro}${block}\n\n${readme.slice(anchor)}`;
}
