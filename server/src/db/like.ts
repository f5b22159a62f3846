/** LIKE's pattern for a substring: lower-cased, wildcards escaped (used with `escape '\'`). */
export function likePattern(term: string): string {
  return `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
