/**
 * Keeping the showcase search index: triggers on projects queue every change that may alter a
 * listing (migration 002); the queue is applied here in batches, before an answer
 * (services/showcase.ts) and in the background (jobs/timed.ts), so the index is never behind what
 * the caller just did, whatever code made the change. The listed totals are kept as the queue is
 * applied.
 */
import type { DB } from '../db/database.js';
import type { Flag } from '../db/types.js';
import { gramsOf, searchForm } from './plan.js';
import { type IndexEntry, QUEUE_BATCH, type SearchSql } from './sql.js';

/** Rows per statement when writing grams (sent as arrays: a few parameters whatever the count). */
const WRITE_CHUNK = 20_000;

export function createIndexMaintenance(db: DB, q: SearchSql) {
  async function applyQueueBatch(): Promise<number> {
    return db.transaction().execute(async (trx) => {
      const ids = await q.claimQueued(trx, QUEUE_BATCH);
      if (ids.length === 0) return 0;
      const projects = await q.projectsOf(trx, ids);
      const entries = await q.entriesOf(trx, ids);
      const listedNow = new Map(
        projects
          .filter((p) => p.live_deployment_id !== null && p.is_public === 1)
          .map((p) => [p.id, { featured: (p.featured ? 1 : 0) as Flag, text: searchForm(p.search_text) }]),
      );
      const before = new Map(entries.map((e) => [e.project_id, e]));

      const removed: Array<{ id: number; featured: Flag; grams: string[] }> = [];
      const gramInserts: Array<[string, Flag, number]> = [];
      const added: IndexEntry[] = [];
      const countDelta = new Map<string, [number, number]>();
      const tally = (gram: string, featured: Flag, sign: 1 | -1) => {
        const d = countDelta.get(gram) ?? [0, 0];
        d[0] += sign;
        d[1] += sign * featured;
        countDelta.set(gram, d);
      };
      let listedDelta = 0;
      let featuredDelta = 0;
      for (const id of ids) {
        const old = before.get(id);
        const next = listedNow.get(id);
        if (old && next && old.text === next.text && old.featured === next.featured) continue;
        if (old) {
          const grams = [...gramsOf(old.text)];
          for (const gram of grams) tally(gram, old.featured, -1);
          removed.push({ id, featured: old.featured, grams });
          listedDelta--;
          featuredDelta -= old.featured;
        }
        if (next) {
          for (const gram of gramsOf(next.text)) {
            gramInserts.push([gram, next.featured, id]);
            tally(gram, next.featured, 1);
          }
          added.push({ project_id: id, ...next });
          listedDelta++;
          featuredDelta += next.featured;
        }
      }

      const byKey = (a: [string, Flag, number], b: [string, Flag, number]) =>
        a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1] || a[2] - b[2];
      for (const r of removed) await q.deleteGrams(trx, r.id, r.featured, r.grams);
      if (removed.length > 0)
        await q.deleteEntries(
          trx,
          removed.map((r) => r.id),
        );
      // Sorted by key, new rows land next to each other in the index.
      for (const chunk of chunks(gramInserts.sort(byKey), WRITE_CHUNK)) await q.insertGrams(trx, chunk);
      for (const chunk of chunks(added, WRITE_CHUNK / 10)) await q.insertEntries(trx, chunk);
      const deltas = [...countDelta].map(([gram, [n, f]]) => [gram, n, f] as [string, number, number]);
      for (const chunk of chunks(deltas, WRITE_CHUNK)) await q.addGramCounts(trx, chunk);
      await q.addTotals(trx, listedDelta, featuredDelta);
      await q.dropQueued(trx, ids);
      return ids.length;
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
          while ((await applyQueueBatch()) === QUEUE_BATCH)
            await new Promise((resolve) => setImmediate(resolve));
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
