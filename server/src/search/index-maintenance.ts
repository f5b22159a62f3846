/**
 * Keeping the showcase search index: triggers on projects queue every change that may alter a
 * listing (migration 002); the queue is applied here in batches, before an answer
 * (services/showcase.ts) and in the background (jobs/timed.ts), so the index is never behind what
 * the caller just did, whatever code made the change. The listed totals are kept as the queue is
 * applied.
 */
import type { DB } from '../db/database.js';
import type { Flag } from '../db/types.js';
import { bloomOf } from './bloom.js';
import { gramsOf, searchForm, splitSearchText } from './plan.js';
import { type IndexEntry, QUEUE_BATCH, type SearchSql } from './sql.js';

/** Rows per statement when writing grams (sent as arrays: a few parameters whatever the count). */
const WRITE_CHUNK = 20_000;

export function createIndexMaintenance(db: DB, q: SearchSql) {
  /** One batch of the queue: how many rows it claimed, and how many of them it applied. */
  async function applyQueueBatch(): Promise<{ claimed: number; applied: number }> {
    return db.transaction().execute(async (trx) => {
      const claimed = await q.claimQueued(trx, QUEUE_BATCH);
      if (claimed.length === 0) return { claimed: 0, applied: 0 };
      // Locked before they are read, so what is read is what the row holds until the commit.
      const ids = await q.lockForIndex(trx, claimed);
      if (ids.length === 0) return { claimed: claimed.length, applied: 0 };
      const projects = await q.projectsOf(trx, ids);
      const entries = await q.entriesOf(trx, ids);
      const listedNow = new Map(
        projects
          .filter((p) => p.live_deployment_id !== null && p.is_public === 1)
          .map((p) => {
            const { own, author } = splitSearchText(searchForm(p.search_text));
            const featured = (p.featured ? 1 : 0) as Flag;
            return [p.id, { featured, text: own, owner_id: Number(p.owner_id), author }];
          }),
      );
      const before = new Map(entries.map((e) => [e.project_id, { ...e, owner_id: Number(e.owner_id) }]));

      const removed: Array<{ id: number; featured: Flag; owner: number; grams: string[] }> = [];
      const gramInserts: Array<[string, Flag, number, number]> = [];
      const added: IndexEntry[] = [];
      // [project id, bloom of its own text's grams] where that text is new (PostgreSQL's rows).
      const blooms: Array<[number, string]> = [];
      // Per gram: [listed, featured, authors, authors' listed, authors' featured] gained (or lost).
      const countDelta = new Map<string, [number, number, number, number, number]>();
      const tally = (gram: string, at: 0 | 1 | 2 | 3 | 4, by: number) => {
        const d = countDelta.get(gram) ?? [0, 0, 0, 0, 0];
        d[at] += by;
        countDelta.set(gram, d);
      };
      // Per author: listed and featured projects gained (or lost), and the username seen.
      const authorDelta = new Map<number, { listed: number; featured: number; text?: string }>();
      const moveAuthor = (owner: number, featured: Flag, sign: 1 | -1, text?: string) => {
        const d = authorDelta.get(owner) ?? { listed: 0, featured: 0 };
        d.listed += sign;
        d.featured += sign * featured;
        if (text !== undefined) d.text = text;
        authorDelta.set(owner, d);
      };
      let listedDelta = 0;
      let featuredDelta = 0;
      for (const id of ids) {
        const old = before.get(id);
        const next = listedNow.get(id);
        if (
          old &&
          next &&
          old.text === next.text &&
          old.featured === next.featured &&
          old.owner_id === next.owner_id
        )
          continue;
        if (old) {
          const grams = [...gramsOf(old.text)];
          for (const gram of grams) {
            tally(gram, 0, -1);
            tally(gram, 1, -old.featured);
          }
          removed.push({ id, featured: old.featured, owner: old.owner_id, grams });
          moveAuthor(old.owner_id, old.featured, -1);
          listedDelta--;
          featuredDelta -= old.featured;
        }
        if (next) {
          const grams = gramsOf(next.text);
          for (const gram of grams) {
            gramInserts.push([gram, next.featured, next.owner_id, id]);
            tally(gram, 0, 1);
            tally(gram, 1, next.featured);
          }
          if (old?.text !== next.text) blooms.push([id, bloomOf(grams)]);
          added.push({ project_id: id, featured: next.featured, text: next.text, owner_id: next.owner_id });
          moveAuthor(next.owner_id, next.featured, 1, next.author);
          listedDelta++;
          featuredDelta += next.featured;
        }
      }

      const byKey = (a: [string, Flag, number, number], b: [string, Flag, number, number]) =>
        a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1] || a[2] - b[2] || a[3] - b[3];
      for (const r of removed) await q.deleteGrams(trx, r.id, r.featured, r.owner, r.grams);
      if (removed.length > 0)
        await q.deleteEntries(
          trx,
          removed.map((r) => r.id),
        );
      // Sorted by key, new rows land next to each other in the index.
      for (const chunk of chunks(gramInserts.sort(byKey), WRITE_CHUNK)) await q.insertGrams(trx, chunk);
      for (const chunk of chunks(added, WRITE_CHUNK / 10)) await q.insertEntries(trx, chunk);
      for (const chunk of chunks(blooms, WRITE_CHUNK / 10)) await q.setBlooms(trx, chunk);

      // Authors: one row each while they have a listed project, their username's grams with it.
      // The counts are added first and read back (the row locked): what the author had before is
      // what they have now less this batch's change, so two processes applying the queue at once
      // (PostgreSQL) never both add, or both remove, an author's grams. Owners in order, so two
      // such transactions lock them in the same order. A username never changes (no request
      // renames a user), so an author's text is the one they were first indexed with.
      const authorRows = [...authorDelta]
        .filter(([, d]) => d.listed !== 0 || d.featured !== 0)
        .sort((x, y) => x[0] - y[0])
        .map(([owner, d]) => [owner, d.text ?? '', d.listed, d.featured] as [number, string, number, number]);
      for (const chunk of chunks(authorRows, WRITE_CHUNK / 10)) {
        const now = await q.addAuthors(trx, chunk);
        const gramRows: Array<[string, number]> = [];
        for (const author of now) {
          const change = authorDelta.get(author.owner_id)!;
          const listedBefore = author.listed - change.listed;
          // Their projects move the counts of every gram of their name.
          for (const gram of gramsOf(author.text)) {
            tally(gram, 3, change.listed);
            tally(gram, 4, change.featured);
          }
          if (listedBefore <= 0 && author.listed > 0) {
            for (const gram of gramsOf(author.text)) {
              gramRows.push([gram, author.owner_id]);
              tally(gram, 2, 1);
            }
          } else if (listedBefore > 0 && author.listed <= 0) {
            const grams = [...gramsOf(author.text)];
            for (const gram of grams) tally(gram, 2, -1);
            await q.deleteAuthorGrams(trx, author.owner_id, grams);
          }
        }
        await q.insertAuthorGrams(
          trx,
          gramRows.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] - y[1])),
        );
      }
      // Grams in order too: their counts are rows two appliers may both update.
      const deltas = [...countDelta]
        .sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
        .map(([gram, d]) => [gram, ...d] as [string, number, number, number, number, number]);
      for (const chunk of chunks(deltas, WRITE_CHUNK)) await q.addGramCounts(trx, chunk);
      await q.addTotals(trx, listedDelta, featuredDelta);
      await q.dropQueued(trx, ids);
      return { claimed: claimed.length, applied: ids.length };
    });
  }

  let applying: Promise<void> | null = null;
  return {
    /** Brings the index up to date; callers at the same time share one run. */
    applyQueue(): Promise<void> {
      applying ??= (async () => {
        try {
          // Between batches, a turn of the event loop: better-sqlite3 answers synchronously, so
          // without it a backlog (a restore, a migration queueing every project) would be applied
          // in one stretch of microtasks, holding every request until the last batch.
          // A full batch of which nothing could be applied (every row held by others) ends the
          // run: the rows stay queued for the next one.
          for (;;) {
            const { claimed, applied } = await applyQueueBatch();
            if (claimed < QUEUE_BATCH || applied === 0) break;
            await new Promise((resolve) => setImmediate(resolve));
          }
        } finally {
          applying = null;
        }
      })();
      return applying;
    },
  };
}

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
