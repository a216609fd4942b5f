/** Small SQL text helpers shared by list queries. */

/** `%`/`_`/`\` escaped for a LIKE pattern matching `q` anywhere (backslash is PostgreSQL's default LIKE escape). */
export function likeContains(query: string): string {
  return `%${query.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}
