/**
 * The content check's stored traces (docs/content-check.md "Stored traces"): the database's table
 * as the check's TraceStore. Replayed traces are marked used once a day; once a day per process
 * the traces of other check versions, and those no check replayed for KEEP_DAYS, are deleted.
 */
import type { TraceStore } from '../content-check/index.js';
import type { DB } from '../db/database.js';
import * as traces from '../repositories/content-check-traces.js';

/** A stored trace no check replayed for this long is deleted. */
export const KEEP_DAYS = 90;

const day = (at: Date) => at.toISOString().slice(0, 10);

export function createTraceStore(db: DB, now: () => Date = () => new Date()): TraceStore {
  let prunedOn: string | null = null;
  return {
    async get(keys) {
      const found = await traces.find(db, keys);
      if (found.size > 0) await traces.touch(db, [...found.keys()], day(now()));
      return found;
    },
    async put(rows, version) {
      const today = day(now());
      await traces.save(db, rows, version, today);
      if (prunedOn === today) return;
      prunedOn = today;
      await traces.prune(db, version, day(new Date(now().getTime() - KEEP_DAYS * 86_400_000)));
    },
  };
}

const stores = new WeakMap<DB, TraceStore>();

/** The one store of a database (its daily prune counted once). */
export function traceStoreOf(db: DB): TraceStore {
  const known = stores.get(db);
  if (known) return known;
  const store = createTraceStore(db);
  stores.set(db, store);
  return store;
}
