/**
 * The password-reset command, run as an operator would (without a build): tsx on its source,
 * against the data directory (or PostgreSQL schema) of a database a test app made.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisCounterStore } from '../src/cluster/redis-counter-store.js';
import { auditEntries, createTestApp, expectFailure, loginAttempt, type TestApp } from './helpers.js';
import { type CliResult, runCli } from './support/cli.js';
import { dropRedisPrefix, redisReachable, testRedisUrl, uniqueRedisPrefix } from './support/redis.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

function resetPassword(...args: string[]): Promise<CliResult> {
  return runCli('reset-password.ts', args, t.config);
}

describe('npm run reset-password -- USERNAME', () => {
  it('prints a new password that works, and signs the account out everywhere', async () => {
    const u = await t.createUser({ username: 'Forgetful_One' });
    const second = await t.login(u.username, u.password, true);

    const { code, stdout, stderr } = await resetPassword('forgetful_one');
    expect(code, stderr).toBe(0);
    const lines = stdout.trim().split('\n');
    const password = lines.at(-1)!.trim();
    expect(lines[0]).toContain('Forgetful_One');
    expect(password).toMatch(/^[A-Za-z0-9]{16,}$/);

    for (const token of [u.token, second]) {
      expectFailure(await t.request({ url: '/api/auth/profile', token }), 401);
    }
    expectFailure(await loginAttempt(t, u.username, u.password), 401);
    const token = await t.login(u.username, password);
    expect((await t.request({ url: '/api/auth/profile', token })).statusCode).toBe(200);

    const [entry] = await auditEntries(t, { action: 'user.password_reset', targetId: u.id });
    expect(entry).toMatchObject({ actor_id: null, ip: 'cli' });
    expect(JSON.parse(entry!.detail!)).toEqual({ via: 'cli' });
    expect(JSON.stringify(entry)).not.toContain(password);
  });

  it('exits with an error for an unknown user or without a username, changing nothing', async () => {
    const before = await t.ctx.db.selectFrom('users').select(['id', 'password_hash']).orderBy('id').execute();
    const [unknown, missing] = await Promise.all([resetPassword('nobody_by_that_name'), resetPassword()]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('用户不存在');
    expect(unknown.stdout).toBe('');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('reset-password');
    expect(
      await t.ctx.db.selectFrom('users').select(['id', 'password_hash']).orderBy('id').execute(),
    ).toEqual(before);
  });
});

describe.skipIf(!(await redisReachable()))('npm run reset-password with REDIS_URL', () => {
  const prefix = uniqueRedisPrefix();
  afterAll(() => dropRedisPrefix(prefix));

  it('clears the account’s shared sign-in count in Redis, and exits', async () => {
    const u = await t.createUser();
    const redis = new Redis(testRedisUrl, { keyPrefix: prefix });
    try {
      const counters = new RedisCounterStore(redis);
      for (let i = 0; i < 5; i++) await counters.hit(`throttle:acct:user:${u.id}`, 60_000);
      const { code, stderr } = await runCli('reset-password.ts', [u.username], t.config, {
        REDIS_URL: testRedisUrl,
        REDIS_PREFIX: prefix,
      });
      expect(code, stderr).toBe(0);
      expect(await counters.peek(`throttle:acct:user:${u.id}`)).toBeNull();
    } finally {
      redis.disconnect();
    }
  });
});
