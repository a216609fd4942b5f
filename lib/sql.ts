/** Small SQL text helpers shared by list queries. */

/** `%`/`_`/`\` escaped for a LIKE pattern matching `q` anywhere (backslash is PostgreSQL's default LIKE escape). */
export function likeContains(q: string): string {
  return `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}
