/** Bounded concurrency for work over many items (blob reads and writes, store lookups). */

/**
 * Runs `work` on every item, at most `limit` at a time; results in the items' order. After a
 * failure no new item starts, and the first error is thrown once the running ones have finished
 * (nothing is left writing behind us).
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await work(items[i]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const failure = results.find((r) => r.status === 'rejected');
  if (failure) throw failure.reason;
  return out;
}

/** mapLimit for work whose results nobody needs. */
export async function eachLimit<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  await mapLimit(items, limit, work);
}
