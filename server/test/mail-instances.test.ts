/**
 * Two app instances on one database share one mail outbox (docs/notifications.md "Two instances, one outbox"):
 * both workers poll it at once, and every e-mail reaches the SMTP server exactly once. On SQLite
 * the two share the database file; on PostgreSQL (TEST_DATABASE_URL) the database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import * as outbox from '../src/repositories/mail-outbox.js';
import { createTestApp, liveProject, SIMPLE_SITE, type TestApp, uploadProject } from './helpers.js';
import { startSmtp, type TestSmtp } from './support/smtp.js';

type Built = Awaited<ReturnType<typeof buildApp>>;

let smtp: TestSmtp;
let a: TestApp;
let b: Built;

beforeAll(async () => {
  // Each message takes the server a moment: the two senders overlap for most of the run.
  smtp = await startSmtp(0, { delayMs: 30 });
  a = await createTestApp({
    mail: {
      smtpUrl: smtp.url,
      from: 'hall@example.test',
      publicUrl: 'https://hall.example.test',
      pollMs: 50,
      retryBaseMs: 100,
      maxAttempts: 50,
    },
  });
  // The second instance: the same configuration, so the same database and the same outbox.
  b = await buildApp(a.config, {});
  await b.startup;
});

afterAll(async () => {
  await b?.app.close();
  await a?.close();
  await smtp?.close();
});

describe('one outbox, two instances', () => {
  it('sends each e-mail exactly once while both workers poll', async () => {
    const expected: string[] = [];
    // Real actions on either instance: an approval through A, a rejection through B.
    for (let i = 0; i < 3; i++) {
      const owner = await a.createUser({ email: `owner${i}@example.test` });
      await liveProject(a, SIMPLE_SITE, { owner, name: `甲站点${i}` });
      expected.push(`[站点展厅] 「甲站点${i}」审核通过，已上线`);
      const up = await uploadProject(a, owner.token, { name: `乙站点${i}`, files: SIMPLE_SITE });
      const id = up.json().data.project.id as number;
      const res = await b.app.inject({
        method: 'POST',
        url: `/api/admin/projects/${id}/review`,
        headers: { authorization: `Bearer ${await a.adminToken()}` },
        payload: { action: 'reject', comment: '请补充说明' },
      });
      expect(res.statusCode).toBe(200);
      expected.push(`[站点展厅] 「乙站点${i}」第 1 版未通过审核`);
    }
    // And a batch queued at once, as a busy hour would.
    const reader = await a.createUser({ email: 'reader@example.test' });
    const at = new Date().toISOString();
    for (let i = 0; i < 30; i++) {
      const subject = `批量邮件 ${i}`;
      await outbox.enqueue(a.ctx.db, { user_id: reader.id, subject, body: '正文' }, at);
      expected.push(subject);
    }
    // Both instances are nudged together, besides their own 50 ms polls.
    await Promise.all([a.ctx.services.notifications.deliverDue(), b.ctx.services.notifications.deliverDue()]);
    await expect.poll(() => a.ctx.services.notifications.waiting(), { timeout: 120_000 }).toBe(0);
    await expect.poll(() => b.ctx.services.notifications.waiting(), { timeout: 10_000 }).toBe(0);

    const subjects = smtp.received.map((m) => m.subject);
    expect([...subjects].sort()).toEqual([...expected].sort());
    expect(new Set(subjects).size).toBe(subjects.length);
    const rows = await a.ctx.db.selectFrom('mail_outbox').select(['status', 'attempts']).execute();
    expect(rows.every((r) => r.status === 'sent')).toBe(true);
    // One try each: no row was taken twice.
    expect(rows.every((r) => r.attempts === 1)).toBe(true);
  });
});
