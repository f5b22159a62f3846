/**
 * The password-reset command, run as an operator would (without a build): tsx on its source,
 * against the data directory (or PostgreSQL schema) of a database a test app made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, createTestApp, expectFailure, loginAttempt, type TestApp } from './helpers.js';
import { type CliResult, runCli } from './support/cli.js';
import { dropRedisPrefix, redisReachable, testRedisUrl, uniqueRedisPrefix } from './support/redis.js';

const hasRedis = await redisReachable();
/** Each run of the command starts a Node process with tsx: seconds on a busy machine. */
const CLI_TIMEOUT_MS = 90_000;
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

function resetPassword(...args: string[]): Promise<CliResult> {
  return runCli('reset-password.ts', args, t.config);
}

describe('npm run reset-password -- USERNAME', () => {
  it(
    'prints a new password that works, and signs the account out everywhere',
    async () => {
      const u = await t.createUser({ username: 'Forgetful_One' });
      const second = await t.login(u.username, u.password, true);
      const made = await t.request({
        method: 'POST',
        url: '/api/auth/tokens',
        token: u.token,
        body: { name: 'CI' },
      });
      const apiToken = made.json().data.token as string;

      const { code, stdout, stderr } = await resetPassword('forgetful_one');
      expect(code, stderr).toBe(0);
      const lines = stdout.trim().split('\n');
      const password = lines.at(-1)!.trim();
      expect(lines[0]).toContain('Forgetful_One');
      expect(password).toMatch(/^[A-Za-z0-9]{16,}$/);

      // Its sessions and its API tokens end with the old password.
      for (const token of [u.token, second, apiToken]) {
        expectFailure(await t.request({ url: '/api/auth/profile', token }), 401);
      }
      expectFailure(await loginAttempt(t, u.username, u.password), 401);
      const token = await t.login(u.username, password);
      expect((await t.request({ url: '/api/auth/profile', token })).statusCode).toBe(200);

      const [entry] = await auditEntries(t, { action: 'user.password_reset', targetId: u.id });
      expect(entry).toMatchObject({ actor_id: null, ip: 'cli' });
      expect(JSON.parse(entry!.detail!)).toEqual({ via: 'cli', tokens_revoked: 1 });
      expect(JSON.stringify(entry)).not.toContain(password);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'exits with an error for an unknown user or without a username, changing nothing',
    async () => {
      const before = await t.ctx.db
        .selectFrom('users')
        .select(['id', 'password_hash'])
        .orderBy('id')
        .execute();
      const [unknown, missing] = await Promise.all([resetPassword('nobody_by_that_name'), resetPassword()]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('用户不存在');
      expect(unknown.stdout).toBe('');
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('reset-password');
      expect(
        await t.ctx.db.selectFrom('users').select(['id', 'password_hash']).orderBy('id').execute(),
      ).toEqual(before);
    },
    CLI_TIMEOUT_MS,
  );
});

/**
 * The lock-out the command exists for: five wrong passwords from the owner's address lock the
 * account there; the command, run beside the server while it runs, lets the new password in from
 * that address (the throttle's keys name the password, docs/decisions/accounts.md "Sign-in throttling").
 */
async function lockOutThenReset(app: TestApp, env: Record<string, string> = {}) {
  const u = await app.createUser();
  const ip = '10.31.0.1';
  for (let i = 0; i < 5; i++) expectFailure(await loginAttempt(app, u.username, `wrong-${i}`, { ip }), 401);
  expectFailure(await loginAttempt(app, u.username, u.password, { ip }), 429);
  const { code, stdout, stderr } = await runCli('reset-password.ts', [u.username], app.config, env);
  expect(code, stderr).toBe(0);
  const password = stdout.trim().split('\n').at(-1)!.trim();
  const res = await loginAttempt(app, u.username, password, { ip });
  expect(res.statusCode, res.body).toBe(200);
}

describe('npm run reset-password lifts the lock-out while the server runs', () => {
  it(
    'with the counts in the server’s memory',
    async () => {
      await lockOutThenReset(t);
    },
    CLI_TIMEOUT_MS,
  );

  it.skipIf(!hasRedis)(
    'with the counts in Redis (REDIS_URL)',
    async () => {
      const prefix = uniqueRedisPrefix();
      const shared = await createTestApp({ redisUrl: testRedisUrl, redisPrefix: prefix });
      try {
        await shared.ctx.cluster.ready;
        await lockOutThenReset(shared, { REDIS_URL: testRedisUrl, REDIS_PREFIX: prefix });
      } finally {
        await shared.close();
        await dropRedisPrefix(prefix);
      }
    },
    CLI_TIMEOUT_MS,
  );
});
