/**
 * The live-site index (services/site-index.ts) behind the /sites fast path: a hot site's live
 * pointer is re-read before it expires, so the fast path never finds it expired under traffic
 * (an expired pointer sends the connection's requests to Fastify for good), and a takedown
 * still drops it at once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { UNHEARD_MAX_AGE_MS } from '../src/domain/cache-lifetime.js';
import { createSiteIndex } from '../src/services/site-index.js';
import { createTestApp, liveProject, type TestApp } from './helpers.js';

describe('the live-site index', () => {
  let t: TestApp;
  let id: number;
  beforeAll(async () => {
    t = await createTestApp();
    ({ id } = await liveProject(t));
  });
  afterAll(() => t.close());
  afterEach(() => vi.restoreAllMocks());

  /** A clock that stands where the test puts it. */
  function clock() {
    let now = Date.now();
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    return { advance: (ms: number) => (now += ms) };
  }

  it("re-reads a hot site's pointer before it expires: asked past its age limit, memory still has it", async () => {
    // Not hearing other instances: pointers live UNHEARD_MAX_AGE_MS (5 s), the shortest case.
    const index = createSiteIndex(t.ctx.db, { hearsChanges: () => false });
    const time = clock();
    const first = await index.liveOf(id);
    expect(first?.projectId).toBe(id);
    expect(index.peekLive(id)).toBe(first);
    // In the last quarter of its life: still answered, and re-read in the background.
    time.advance(UNHEARD_MAX_AGE_MS * 0.8);
    expect(index.peekLive(id)).toBe(first);
    // Past the first reading's limit, the re-read one answers from memory.
    time.advance(UNHEARD_MAX_AGE_MS * 0.4);
    await expect.poll(() => index.peekLive(id)).toBe(first);
  });

  it('without traffic the pointer still expires; a takedown drops it at once, re-read or not', async () => {
    const index = createSiteIndex(t.ctx.db, { hearsChanges: () => false });
    const time = clock();
    await index.liveOf(id);
    time.advance(UNHEARD_MAX_AGE_MS + 1);
    expect(index.peekLive(id)).toBeUndefined();

    await index.liveOf(id);
    time.advance(UNHEARD_MAX_AGE_MS * 0.8);
    expect(index.peekLive(id)?.projectId).toBe(id);
    // A re-read is under way; the takedown's invalidation drops the pointer now, and the re-read
    // started before it is not kept (the generation check, as in liveOf).
    index.invalidate(id);
    expect(index.peekLive(id)).toBeUndefined();
  });
});
