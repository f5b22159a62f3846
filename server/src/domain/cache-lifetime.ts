/**
 * How long a cached answer that other instances' changes invalidate may be kept. While the
 * instance hears their invalidations (always, in a single install) each cache keeps its own
 * lifetime; while it does not (Redis unreachable: docs/decisions/faults.md "Redis outages") entries are
 * re-read after a few seconds, so a change made elsewhere shows within that time.
 */
export const UNHEARD_MAX_AGE_MS = 5_000;

/** Whether changes made by other instances reach this one now. */
export type HearsChanges = () => boolean;

export const alwaysHears: HearsChanges = () => true;

export function maxAge(normalMs: number, hears: HearsChanges): number {
  return hears() ? normalMs : Math.min(normalMs, UNHEARD_MAX_AGE_MS);
}
