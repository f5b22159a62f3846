/**
 * Preview links made in a loop (docs/security.md "Previews"): each is an entry in the append-only
 * audit log, so an account may make PREVIEW_LINKS_MAX in PREVIEW_LINKS_WINDOW_MS; the next is 429
 * with a Chinese message and Retry-After, and writes nothing. Other accounts and admins are not
 * held to it.
 */
import { format, messages, PREVIEW_LINKS_MAX, PREVIEW_LINKS_WINDOW_MS } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, createTestApp, expectFailure, liveProject, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const makeLink = (projectId: number, token: string) =>
  t.request({ method: 'POST', url: `/api/projects/${projectId}/preview-token`, token });

describe('preview links made in a loop', () => {
  it('are refused past the account’s budget with 429, leaving no audit entry; others are not', async () => {
    const { id, owner } = await liveProject(t);
    for (let i = 0; i < PREVIEW_LINKS_MAX; i++) {
      const res = await makeLink(id, owner.token);
      expect(res.statusCode, res.body).toBe(200);
    }
    const refused = await makeLink(id, owner.token);
    expectFailure(
      refused,
      429,
      format(messages.project.previewLinksExceeded, {
        n: PREVIEW_LINKS_MAX,
        window: PREVIEW_LINKS_WINDOW_MS / 60_000,
        minutes: PREVIEW_LINKS_WINDOW_MS / 60_000,
      }),
    );
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(PREVIEW_LINKS_WINDOW_MS / 1000);
    const entries = await auditEntries(t, { action: 'project.preview_link', targetId: id });
    expect(entries).toHaveLength(PREVIEW_LINKS_MAX);

    // Another account has a budget of its own; an admin reviewing has none.
    const other = await liveProject(t);
    expect((await makeLink(other.id, other.owner.token)).statusCode).toBe(200);
    const admin = await t.adminToken();
    for (let i = 0; i <= PREVIEW_LINKS_MAX; i++) expect((await makeLink(id, admin)).statusCode).toBe(200);
  });
});
