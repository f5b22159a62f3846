/**
 * Statements kept prepared on each PostgreSQL connection (docs/decisions/data.md "Lists kept
 * prepared", "Searches kept prepared"). Two marks, each a comment at the start of the text:
 *
 * - `PREPARED`: a statement without parameters, parsed and planned once per connection under a
 *   name made from its text, and only executed after that: the showcase's unsearched page spent
 *   0.3 of its 0.42 ms in PostgreSQL planning the same plan every time (100,000 projects,
 *   docs/benchmarks.md "Lists kept prepared"). PostgreSQL plans it once, for good (until a change
 *   of the tables or their statistics invalidates the plan, as `analyze` does), which is right
 *   when every value is in the text. Its values must not be parameters: a generic plan can be far
 *   worse (the showcase page with its limit as a parameter, forced generic: 40 ms against 0.1).
 * - `KEPT`: a statement with parameters whose text is one of a bounded set of shapes (a search of
 *   the showcase: the words' and grams' values are parameters, the shape is the plan's). It is
 *   parsed once per connection, and PostgreSQL's plan cache decides its plans as it does for any
 *   prepared statement (`plan_cache_mode = auto`): planned for its values the first five times,
 *   then a generic plan only when PostgreSQL estimates it no dearer than those. A search's
 *   statement spent more in parsing and planning than in running (`zhang react` at 100,000
 *   projects: 1.7–2.1 ms of parse and plan against 1.4 of execution, docs/benchmarks.md "Searches
 *   kept prepared").
 *
 * Each connection keeps a bounded number of each (a plan of a search is up to ≈0.5 MB of the
 * server's memory); further ones run as any other statement. Only statements that read: behind a
 * pooler that loses prepared statements (pgbouncer in transaction mode before 1.21) the pool asks
 * a lost one again unnamed, and names none after that. On SQLite the marks are comments.
 */
import { type RawBuilder, sql } from 'kysely';

/** The mark of a statement planned once: a comment at the start of the text. */
export const PREPARED = '/* prepared */ ';
/** The mark of a statement parsed once, its plans left to PostgreSQL's plan cache. */
export const KEPT = '/* kept */ ';

/** The most statements marked PREPARED one connection keeps; further ones run as any other. */
export const MAX_PREPARED_PER_CONNECTION = 16;
/** The most statements marked KEPT one connection keeps (each plan up to ≈0.5 MB of the server's memory). */
export const MAX_KEPT_PER_CONNECTION = 32;

/** `statement` marked to be kept prepared; every value in it must be written into the text (`sql.lit`). */
export function prepared<T>(statement: RawBuilder<T>): RawBuilder<T> {
  return sql<T>`${sql.raw(PREPARED)}${statement}`;
}

/**
 * `statement` marked to be kept parsed on the connection, its values as parameters: its text
 * must be one of a bounded set of shapes (no value written into it that varies from one asking
 * to the next), or each asking would take a place of its own.
 */
export function kept<T>(statement: RawBuilder<T>): RawBuilder<T> {
  return sql<T>`${sql.raw(KEPT)}${statement}`;
}

/** Which of the two kinds a statement's text and values may be kept as, if any. */
export function keptKind(
  text: string,
  values: readonly unknown[] | undefined,
): 'prepared' | 'kept' | undefined {
  if (text.startsWith(PREPARED)) return values === undefined || values.length === 0 ? 'prepared' : undefined;
  return text.startsWith(KEPT) ? 'kept' : undefined;
}
