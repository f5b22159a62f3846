/**
 * Statements kept prepared on each PostgreSQL connection (docs/decisions/data.md "Lists kept
 * prepared"). A statement without parameters whose text starts with `PREPARED` is parsed and
 * planned once per connection, under a name made from its text, and only executed after that:
 * the showcase's unsearched page spent 0.3 of its 0.42 ms in PostgreSQL planning the same plan
 * every time (100,000 projects, docs/benchmarks.md "Lists kept prepared").
 *
 * Only a statement without parameters: PostgreSQL plans it once, for good (until a change of the
 * tables or their statistics invalidates the plan, as `analyze` does), which is right when every
 * value is in the text. A statement with parameters would be planned for its values anyway, or
 * given a generic plan that can be far worse (the showcase page with its limit as a parameter:
 * 40 ms against 0.1). On SQLite the mark is a comment.
 *
 * Only a statement that reads: behind a pooler that loses prepared statements (pgbouncer in
 * transaction mode before 1.21) the pool asks a lost one again unnamed, and names none after that.
 */
import { type RawBuilder, sql } from 'kysely';

/** The mark: a comment at the start of the text. */
export const PREPARED = '/* prepared */ ';

/** The most statements one connection keeps prepared; further ones run as any other. */
export const MAX_PREPARED_PER_CONNECTION = 16;

/** `statement` marked to be kept prepared; every value in it must be written into the text (`sql.lit`). */
export function prepared<T>(statement: RawBuilder<T>): RawBuilder<T> {
  return sql<T>`${sql.raw(PREPARED)}${statement}`;
}

/** Whether a statement's text and values may be kept prepared. */
export function keptPrepared(text: string, values: readonly unknown[] | undefined): boolean {
  return text.startsWith(PREPARED) && (values === undefined || values.length === 0);
}
