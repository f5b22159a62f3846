/**
 * Abuse: sign-in throttling per account and per IP, no account enumeration (same answer, same
 * time), the cap on concurrent password hashing, and hostile request bodies that must never
 * reach a 500.
 */
import net from 'node:net';
import { format, messages } from '@sitehall/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TooManyRequests } from '../src/domain/errors.js';
import {
  accountDelayMs,
  createLoginThrottle,
  MemoryCounterStore,
  THROTTLE,
} from '../src/domain/login-throttle.js';
import { DUMMY_HASH, HASH_OPTIONS, PasswordHasher } from '../src/domain/passwords.js';
import {
  createTestApp,
  expectFailure,
  listenPort,
  liveProject,
  loginAttempt,
  type TestApp,
} from './helpers.js';
import { dropRedisPrefix, redisReachable, testRedisUrl, uniqueRedisPrefix } from './support/redis.js';

const m = messages.auth;
const hasRedis = await redisReachable();

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const login = (username: string, password: string, ip: string) => loginAttempt(t, username, password, { ip });

function expectThrottled(res: Awaited<ReturnType<typeof login>>, message: string = m.loginThrottled) {
  expectFailure(res, 429, message);
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(15 * 60);
}

describe('sign-in throttling', () => {
  it('locks an account after 5 failures from one address, even with the right password', async () => {
    const u = await t.createUser({ email: 'locked@example.com' });
    // Username and email share the account's budget.
    // The last attempts warn of what is left (docs/decisions/accounts.md "Lock-outs admins can see").
    const said = [
      m.badCredentials,
      m.badCredentials,
      format(m.badCredentialsLeft, { n: 2, minutes: 15 }),
      format(m.badCredentialsLeft, { n: 1, minutes: 15 }),
      format(m.badCredentialsLocked, { minutes: 15 }),
    ];
    for (let i = 0; i < 5; i++) {
      const name = i % 2 ? u.username : 'LOCKED@example.com';
      expectFailure(await login(name, `wrong-${i}`, '10.3.0.1'), 401, said[i]);
    }
    expectThrottled(await login(u.username, u.password, '10.3.0.1'));
    expectThrottled(await login('locked@example.com', u.password, '10.3.0.1'));
    // Refused attempts are audited too, with the address they came from.
    const throttled = await t.ctx.db
      .selectFrom('audit_logs')
      .selectAll()
      .where('action', '=', 'auth.login_throttled')
      .where('target_id', '=', String(u.id))
      .execute();
    expect(throttled.map((r) => r.ip)).toEqual(['10.3.0.1', '10.3.0.1']);
    // The owner, from an address that has not been failing, is let in.
    expect((await login(u.username, u.password, '10.3.1.1')).statusCode).toBe(200);
    // Other accounts from the failing address are unaffected.
    const other = await t.createUser();
    expect((await login(other.username, other.password, '10.3.0.1')).statusCode).toBe(200);
  });

  it('never locks the owner out through guesses from other addresses: they only slow sign-ins down', async () => {
    const u = await t.createUser();
    const timed = async (password: string, ip: string) => {
      const started = performance.now();
      const res = await login(u.username, password, ip);
      return { res, ms: performance.now() - started };
    };
    // Seven addresses, one guess each: none of them is refused, none reaches its own limit.
    for (let i = 0; i < 7; i++) expectFailure(await login(u.username, `guess-${i}`, `10.9.0.${i + 1}`), 401);
    // Seven failures of the account: every sign-in of it now waits 250 ms × 2^(7 − 5), then more.
    const wrong = await timed('guess-again', '10.9.1.1');
    expectFailure(wrong.res, 401, m.badCredentials);
    expect(wrong.ms).toBeGreaterThanOrEqual(1_000);
    const right = await timed(u.password, '10.9.1.2');
    expect(right.res.statusCode).toBe(200);
    expect(right.ms).toBeGreaterThanOrEqual(2_000);
    // Nobody else waits.
    const other = await t.createUser();
    const started = performance.now();
    expect((await login(other.username, other.password, '10.9.1.3')).statusCode).toBe(200);
    expect(performance.now() - started).toBeLessThan(1_900);
  }, 240_000);

  it('throttles unknown names the same way as real accounts', async () => {
    for (let i = 0; i < 5; i++) expectFailure(await login('ghost_user', 'pw', '10.4.0.1'), 401);
    expectThrottled(await login('GHOST_USER', 'pw', '10.4.0.1'));
    // From elsewhere the name is answered as usual (slowly: the name failed five times).
    expectFailure(await login('ghost_user', 'pw', '10.4.0.2'), 401, m.badCredentials);
  });

  it('locks an IP after 30 failures across any accounts', async () => {
    const ip = '10.5.0.1';
    const u = await t.createUser();
    for (let i = 0; i < 30; i++) expectFailure(await login(`spray_${i}`, 'password1', ip), 401);
    expectThrottled(await login(u.username, u.password, ip));
    // The same account from elsewhere is fine: it never failed itself.
    expect((await login(u.username, u.password, '10.5.0.2')).statusCode).toBe(200);
  });

  it('clears an account’s count from an address on success, so a typo now and then never locks anyone out', async () => {
    const u = await t.createUser();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 4; i++) expectFailure(await login(u.username, 'typo', '10.6.0.1'), 401);
      expect((await login(u.username, u.password, '10.6.0.1')).statusCode).toBe(200);
    }
  });

  it('grows the account-wide wait by doubling from the 5th failure, up to 3 s', () => {
    expect([0, 4, 5, 6, 7, 8, 9, 50].map((n) => accountDelayMs(n))).toEqual([
      0, 0, 250, 500, 1_000, 2_000, 3_000, 3_000,
    ]);
  });

  it('counts by the address in X-Forwarded-For with TRUST_PROXY, and by the peer without it', async () => {
    const behindProxy = await createTestApp({ trustProxy: true });
    try {
      const u = await behindProxy.createUser();
      const attempt = (password: string, forwardedFor: string) =>
        behindProxy.request({
          method: 'POST',
          url: '/api/auth/login',
          body: { username: u.username, password },
          headers: { 'x-forwarded-for': forwardedFor },
        });
      for (let i = 0; i < 5; i++) expectFailure(await attempt('wrong', '198.51.100.7'), 401);
      expectThrottled(await attempt(u.password, '198.51.100.7'));
      expect((await attempt(u.password, '198.51.100.8')).statusCode).toBe(200);
    } finally {
      await behindProxy.close();
    }
    // Without TRUST_PROXY the header is the client's word: every attempt is the peer's (127.0.0.1).
    const u = await t.createUser();
    const attempt = (password: string, forwardedFor: string) =>
      t.request({
        method: 'POST',
        url: '/api/auth/login',
        body: { username: u.username, password },
        headers: { 'x-forwarded-for': forwardedFor },
      });
    for (let i = 0; i < 5; i++) expectFailure(await attempt('wrong', `198.51.100.${i + 10}`), 401);
    expectThrottled(await attempt(u.password, '198.51.100.99'));
  }, 240_000);

  // 60 wrong passwords at once from one address had 22 verified when the count was checked before
  // and added after: now each attempt reserves its place first, so at most the limit are verified.
  const burst = async (app: TestApp) => {
    const u = await app.createUser();
    const verify = vi.spyOn(app.ctx.services.hasher, 'verify');
    try {
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          loginAttempt(app, u.username, `wrong-${i}`, { ip: '10.21.0.1' }),
        ),
      );
      expect(verify).toHaveBeenCalledTimes(THROTTLE.perAccount);
      expect(answers.filter((r) => r.statusCode === 401)).toHaveLength(THROTTLE.perAccount);
      for (const r of answers.filter((x) => x.statusCode !== 401)) expectThrottled(r);
      // Locked: the right password from that address is refused without being verified.
      expectThrottled(await loginAttempt(app, u.username, u.password, { ip: '10.21.0.1' }));
      expect(verify).toHaveBeenCalledTimes(THROTTLE.perAccount);
    } finally {
      verify.mockRestore();
    }
  };

  it('verifies at most the limit of 60 wrong passwords sent at once from one address', async () => {
    await burst(t);
  }, 240_000);

  it.skipIf(!hasRedis)(
    'does the same with the counts in Redis',
    async () => {
      const prefix = uniqueRedisPrefix();
      const shared = await createTestApp({ redisUrl: testRedisUrl, redisPrefix: prefix });
      try {
        await shared.ctx.cluster.ready;
        await burst(shared);
      } finally {
        await shared.close();
        await dropRedisPrefix(prefix);
      }
    },
    240_000,
  );

  describe('the window', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('ends after its time, with Retry-After counting down to it', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2030-01-01T00:00:00Z'));
      const throttle = createLoginThrottle(new MemoryCounterStore(), {
        ...THROTTLE,
        windowMs: 60_000,
        perAccount: 2,
        perIp: 100,
      });
      await throttle.reserve('user:1', '1.1.1.1');
      await throttle.failed('user:1', '1.1.1.1');
      vi.setSystemTime(new Date('2030-01-01T00:00:20Z'));
      await throttle.reserve('user:1', '1.1.1.1');
      await throttle.failed('user:1', '1.1.1.1');
      const refused = await throttle.reserve('user:1', '1.1.1.1').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(TooManyRequests);
      // The window started at the first failure: 40 s are left.
      expect((refused as TooManyRequests).retryAfterSeconds).toBe(40);
      vi.setSystemTime(new Date('2030-01-01T00:01:00.001Z'));
      await expect(throttle.reserve('user:1', '1.1.1.1')).resolves.toMatchObject({ delayMs: 0 });
    });
  });
});

describe('no account enumeration', () => {
  it('answers an unknown account, a wrong password and a disabled account’s wrong password alike', async () => {
    const u = await t.createUser();
    const d = await t.createUser();
    await t.request({
      method: 'PATCH',
      url: `/api/admin/users/${d.id}`,
      token: await t.adminToken(),
      body: { disabled: true },
    });
    const answers = [
      await login(u.username, 'wrong-password', '10.7.0.1'),
      await login('no_such_account', 'wrong-password', '10.7.0.1'),
      await login('no.such@example.com', 'wrong-password', '10.7.0.1'),
      await login(d.username, 'wrong-password', '10.7.0.1'),
    ];
    for (const res of answers) {
      expectFailure(res, 401, '用户名或密码错误');
      expect(res.body).toBe(answers[0]!.body);
      expect(res.headers['retry-after']).toBeUndefined();
    }
  });

  it('costs about as much for an unknown account as for a wrong password', async () => {
    // Measured in this process's CPU time (the hash runs on libuv's threads, which count), not
    // wall time: a loaded runner stretches wall time at random, while the work done stays put.
    const users = [await t.createUser(), await t.createUser(), await t.createUser()];
    const cost = async (username: string, ip: string) => {
      const start = process.cpuUsage();
      const res = await login(username, 'wrong-password', ip);
      expect(res.statusCode).toBe(401);
      const used = process.cpuUsage(start);
      return (used.user + used.system) / 1000;
    };
    // warm-up, not measured
    await cost('warm_unknown', '10.8.0.1');
    await cost(users[0]!.username, '10.8.0.1');
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < 8; i++) {
      unknown.push(await cost(`unknown_${i}`, `10.8.1.${i}`));
      wrong.push(await cost(users[i % 3]!.username, `10.8.2.${i}`));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const ratio = median(unknown) / median(wrong);
    // Without the dummy verification an unknown account costs about a tenth of a wrong password.
    const figures = `unknown ${median(unknown)} ms CPU, wrong ${median(wrong)} ms CPU`;
    expect(ratio, figures).toBeGreaterThan(0.5);
    expect(ratio, figures).toBeLessThan(2);
  });

  it('uses a dummy hash with the same cost as real ones', async () => {
    const { algorithm, memoryCost, timeCost, parallelism } = HASH_OPTIONS;
    expect(algorithm).toBe(2); // argon2id
    expect(DUMMY_HASH.startsWith(`$argon2id$v=19$m=${memoryCost},t=${timeCost},p=${parallelism}$`)).toBe(
      true,
    );
    const real = await new PasswordHasher(1).hash('some password');
    expect(real.split('$').slice(0, 4)).toEqual(DUMMY_HASH.split('$').slice(0, 4));
  });
});

describe('password hashing under a flood', () => {
  it('runs at most N hashes, queues a few and refuses the rest with 429', async () => {
    const hasher = new PasswordHasher(2, 8);
    let peak = 0;
    const watch = setInterval(() => {
      peak = Math.max(peak, hasher.load.running);
    }, 1);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => hasher.verify(DUMMY_HASH, `guess-${i}`)),
    );
    clearInterval(watch);
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(10);
    for (const r of refused) {
      const err = (r as PromiseRejectedResult).reason as TooManyRequests;
      expect(err).toBeInstanceOf(TooManyRequests);
      expect(err.kind).toBe('rate_limited');
      expect(err.message).toBe(m.loginBusy);
      expect(err.retryAfterSeconds).toBe(5);
    }
    expect(results.filter((r) => r.status === 'fulfilled' && r.value === false)).toHaveLength(10);
    expect(peak).toBeLessThanOrEqual(2);
    expect(hasher.load).toEqual({ running: 0, queued: 0 });
  });

  it('answers a burst of sign-ins with 401s and 429s, never more hashes at once than allowed', async () => {
    const small = await createTestApp({ maxConcurrentHashes: 1 });
    try {
      const hasher = small.ctx.services.hasher;
      let peak = { running: 0, queued: 0 };
      const watch = setInterval(() => {
        const { running, queued } = hasher.load;
        peak = { running: Math.max(peak.running, running), queued: Math.max(peak.queued, queued) };
      }, 1);
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          small.request({
            method: 'POST',
            url: '/api/auth/login',
            body: { username: i % 2 ? 'admin' : `nobody_${i}`, password: 'flood-guess' },
            ip: `10.9.${i}.1`,
          }),
        ),
      );
      clearInterval(watch);
      const busy = results.filter((r) => r.statusCode === 429);
      expect(busy.length).toBeGreaterThan(0);
      for (const r of busy) {
        expectFailure(r, 429, m.loginBusy);
        expect(r.headers['retry-after']).toBe('5');
      }
      for (const r of results.filter((x) => x.statusCode !== 429)) expectFailure(r, 401, m.badCredentials);
      expect(peak.running).toBeLessThanOrEqual(1);
      expect(peak.queued).toBeLessThanOrEqual(4);
      expect(hasher.load).toEqual({ running: 0, queued: 0 });
      // The service recovers at once.
      expect(
        (await small.request({ url: '/api/auth/profile', token: await small.adminToken() })).statusCode,
      ).toBe(200);
    } finally {
      await small.close();
    }
  });
});

describe('hostile request bodies', () => {
  let userToken: string;
  let adminToken: string;
  let targetId: number;
  beforeAll(async () => {
    adminToken = await t.adminToken();
    userToken = (await t.createUser()).token;
    targetId = (await t.createUser()).id;
  });

  /** Every JSON route of accounts, with who may call it. */
  const routes = () => [
    { method: 'POST', url: '/api/auth/login', token: undefined },
    { method: 'PUT', url: '/api/auth/profile', token: userToken },
    { method: 'POST', url: '/api/auth/register', token: adminToken },
    { method: 'PATCH', url: `/api/admin/users/${targetId}`, token: adminToken },
  ];
  const send = (
    route: { method: string; url: string; token?: string },
    payload: string,
    type = 'application/json',
  ) =>
    t.request({
      method: route.method,
      url: route.url,
      token: route.token,
      payload,
      headers: { 'content-type': type },
      ip: '10.10.0.1',
    });

  it('refuses malformed JSON with 400', async () => {
    for (const route of routes()) {
      for (const payload of ['{', '{"username": "a",}', "{'a': 1}", '{"a": undefined}', 'NaN', '\u0000']) {
        expectFailure(await send(route, payload), 400, messages.common.invalidJson);
      }
      expectFailure(await send(route, ''), 400, messages.common.invalidJson);
    }
  });

  it('refuses a body that is not an object with 400', async () => {
    for (const route of routes()) {
      for (const payload of ['[]', '[{"username":"admin"}]', '"admin"', '42', 'true', 'null']) {
        const body = expectFailure(await send(route, payload), 400, messages.common.badRequest);
        expect(body.errors).toBeUndefined();
      }
    }
  });

  it('refuses prototype pollution attempts, naming the key refused', async () => {
    for (const route of routes()) {
      for (const [payload, name] of [
        ['{"__proto__": {"role": "admin"}}', '__proto__'],
        ['{"username": "a", "nested": [{"x": {"__proto__": {"role": "admin"}}}]}', '__proto__'],
        ['{"\\u005f_proto__": {"role": "admin"}}', '__proto__'],
        ['{"constructor": {"prototype": {"role": "admin"}}}', 'constructor.prototype'],
        ['{"a": {"constructor": {"prototype": {}}}}', 'constructor.prototype'],
      ] as const) {
        const res = await send(route, payload);
        expect(res.statusCode, `${route.url} ${payload}`).toBe(400);
        expectFailure(res, 400, format(messages.common.forbiddenJsonKey, { name }));
      }
      // A key that only looks like one is a field like any other (here: unknown, so refused as such).
      const near = await send(route, '{"constructor": "x", "proto": 1}');
      expect(near.statusCode).toBe(400);
      expect(near.json().message).not.toBe(messages.common.invalidJson);
      expect(near.json().message).not.toContain('不允许的字段名');
    }
    expect(({} as { role?: string }).role).toBeUndefined();
  });

  it('refuses a string with a lone surrogate escape, which would be stored otherwise than sent', async () => {
    for (const route of routes()) {
      for (const payload of [
        '{"username": "a\\ud800b", "password": "x"}',
        '{"username": "a", "nested": ["\\uDC00"]}',
        '{"\\ud83d": 1}',
        // A high surrogate before an emoji's own pair is still alone.
        '{"username": "\\ud83d\\ud83d\\ude00"}',
      ]) {
        expectFailure(await send(route, payload), 400, messages.common.loneSurrogate);
      }
      // A pair, escaped or not, and an escaped backslash before "ud800" are text like any other.
      for (const payload of [
        '{"username": "\\ud83d\\ude00"}',
        '{"username": "😀"}',
        '{"username": "\\\\ud800"}',
      ]) {
        const res = await send(route, payload);
        expect(res.json().message, `${route.url} ${payload}`).not.toBe(messages.common.loneSurrogate);
      }
    }
    // A project name and an API token name: refused, and nothing renamed or made.
    const owner = await t.createUser();
    const { id } = await liveProject(t, undefined, { owner });
    const before = (await t.request({ url: `/api/projects/${id}`, token: owner.token })).json().data.project
      .name as string;
    const rename = await t.request({
      method: 'PUT',
      url: `/api/projects/${id}`,
      token: owner.token,
      payload: '{"name": "A\\ud800B"}',
      headers: { 'content-type': 'application/json' },
    });
    expectFailure(rename, 400, messages.common.loneSurrogate);
    const after = await t.request({ url: `/api/projects/${id}`, token: owner.token });
    expect(after.json().data.project.name).toBe(before);
    const token = await t.request({
      method: 'POST',
      url: '/api/auth/tokens',
      token: owner.token,
      payload: '{"name": "ci\\udc00"}',
      headers: { 'content-type': 'application/json' },
    });
    expectFailure(token, 400, messages.common.loneSurrogate);
    const tokens = await t.request({ url: '/api/auth/tokens', token: owner.token });
    expect(tokens.json().data.tokens).toEqual([]);
  });

  it('answers wrong types per field, in Chinese', async () => {
    const cases: Array<[number, unknown]> = [
      [0, { username: 123, password: ['x'] }],
      [0, { username: { $ne: '' }, password: { $gt: '' } }],
      [0, { username: null, password: null, remember: 'true' }],
      [1, { email: 42, avatar: ['x'], current_password: 1, new_password: {} }],
      [2, { username: ['admin'], email: true, role: ['admin'] }],
      [3, { role: 1, disabled: 'false', email: {} }],
    ];
    for (const [i, body] of cases) {
      const route = routes()[i]!;
      const res = await send(route, JSON.stringify(body));
      const failure = expectFailure(res, 400);
      expect(Object.keys(failure.errors ?? {}).sort(), JSON.stringify(body)).toEqual(
        Object.keys(body as object).sort(),
      );
      for (const message of Object.values(failure.errors ?? {})) expect(message).toMatch(/[\u4e00-\u9fff]/);
    }
  });

  it('refuses huge strings with 400, and bodies over 1 MB with 413', async () => {
    const login = routes()[0]!;
    expectFailure(
      await send(login, JSON.stringify({ username: 'x'.repeat(300), password: 'p' })),
      400,
      m.badCredentials,
    );
    expectFailure(
      await send(login, JSON.stringify({ username: 'admin', password: 'p'.repeat(5000) })),
      400,
      m.badCredentials,
    );
    for (const route of routes()) {
      const big = JSON.stringify({ username: 'x'.repeat(1024 * 1024 + 10), password: 'p' });
      expectFailure(await send(route, big), 413, messages.common.payloadTooLarge);
    }
    // A refused body changes nothing: the user is still what it was.
    const row = await t.ctx.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', targetId)
      .executeTakeFirstOrThrow();
    expect(row.role).toBe('user');
  });

  it('refuses content types other than JSON', async () => {
    for (const route of routes()) {
      expectFailure(
        await send(route, '<login/>', 'application/xml'),
        415,
        messages.common.unsupportedMediaType,
      );
      expectFailure(await send(route, 'username=admin', 'application/x-www-form-urlencoded'), 415);
      // Plain text is parsed as a string, and a string is not an object.
      expectFailure(await send(route, 'admin', 'text/plain'), 400, messages.common.badRequest);
    }
  });

  it('never answers 500 to unusual unicode', async () => {
    const names = [
      '\u0000',
      'admin\u0000',
      'ａｄｍｉｎ',
      'admin\u200b',
      '\u202eadmin',
      '\ud800',
      '😀😀😀',
      '用户名'.repeat(10),
      'e\u0301e\u0301e\u0301',
      '\uffff\ufffe',
    ];
    for (const route of routes()) {
      for (const name of names) {
        const body = JSON.stringify({
          username: name,
          password: name,
          email: `${name}@x.test`,
          avatar: name,
        });
        const res = await send(route, body);
        expect(res.statusCode, `${route.url} ${JSON.stringify(name)}: ${res.body}`).toBeLessThan(500);
        if (res.statusCode >= 400) expectFailure(res, res.statusCode);
      }
    }
  });

  const register = (username: string) =>
    t.request({ method: 'POST', url: '/api/auth/register', token: adminToken, body: { username } });

  it('treats the NFC and decomposed spellings of a username as one name', async () => {
    const composed = await register('Café_Noir');
    expect(composed.statusCode).toBe(201);
    expectFailure(await register('cafe\u0301_noir'), 409, m.usernameTaken);
    expect((await login('CAFE\u0301_NOIR', composed.json().data.password, '10.10.1.1')).statusCode).toBe(200);
  });

  it('treats a username typed in full width as the same name', async () => {
    const narrow = await register('wide_fuzzer1');
    expect(narrow.statusCode).toBe(201);
    // An input method's full-width mode: the same letters, digits and underscore, other code points.
    expectFailure(await register('ｗｉｄｅ_ｆｕｚｚｅｒ１'), 409, m.usernameTaken);
    expectFailure(await register('ＷＩＤＥ_fuzzer1'), 409, m.usernameTaken);
    const password = narrow.json().data.password;
    const signedIn = await login('ｗｉｄｅ＿ｆｕｚｚｅｒ１', password, '10.10.1.2');
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    expect(signedIn.json().data.user.username).toBe('wide_fuzzer1');
    // A name registered in full width is kept as written, and signs in either way.
    const wide = await register('ｗｉｄｅｏｎｌｙ');
    expect(wide.statusCode).toBe(201);
    expect(wide.json().data.user.username).toBe('ｗｉｄｅｏｎｌｙ');
    const ascii = await login('WideOnly', wide.json().data.password, '10.10.1.3');
    expect(ascii.statusCode, ascii.body).toBe(200);
    expect(ascii.json().data.user.username).toBe('ｗｉｄｅｏｎｌｙ');
    // Full width's underscore and hyphen are the name's _ and -: taken when the narrow name is,
    // registered as written when not, and other punctuation still refused.
    expectFailure(await register('wide＿fuzzer1'), 409, m.usernameTaken);
    const dashed = await register('ｗｉｄｅ－ｄａｓｈ＿１');
    expect(dashed.statusCode, dashed.body).toBe(201);
    expect(dashed.json().data.user.username).toBe('ｗｉｄｅ－ｄａｓｈ＿１');
    expectFailure(await register('wide-dash_1'), 409, m.usernameTaken);
    expectFailure(await register('ｗｉｄｅ．ｄｏｔ'), 400, m.usernameInvalid);
    // The admin's user search finds it by either width.
    const found = await t.request({ url: '/api/admin/users?search=wideonly', token: adminToken });
    expect(found.json().data.users.map((u: { username: string }) => u.username)).toEqual([
      'ｗｉｄｅｏｎｌｙ',
    ]);
  });
});

describe('requests the HTTP parser refuses', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    port = await listenPort(t);
  });
  afterAll(() => t.close());

  /** Sends raw bytes and returns what came back before the server closed the connection. */
  async function raw(bytes: string) {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.on('error', () => undefined);
    socket.write(bytes);
    await closed;
    const text = Buffer.concat(chunks).toString();
    const [head = '', body = ''] = text.split('\r\n\r\n');
    const headers = Object.fromEntries(
      head
        .split('\r\n')
        .slice(1)
        .map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
    );
    return { status: Number(head.split(' ')[1]), headers, body: body ? JSON.parse(body) : null };
  }

  it.each([
    ['a malformed request line', 'GARBAGE\r\n\r\n', 400, messages.common.badRequest],
    [
      'a bad Content-Length',
      'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      400,
      messages.common.badRequest,
    ],
    [
      'Transfer-Encoding with Content-Length',
      'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      messages.common.badRequest,
    ],
    [
      'a control character in the URL',
      'GET /sites/1/a\u0001b HTTP/1.1\r\nHost: x\r\n\r\n',
      400,
      messages.common.badRequest,
    ],
    [
      // Under /sites the app port answers this with the sites' page (site-error-pages.test.ts).
      'a 70 KB URL under /api',
      `GET /api/projects/${'a'.repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      431,
      messages.common.headersTooLarge,
    ],
    [
      // Node hands it to the server's 'connect' event, and closed the connection unanswered.
      'a CONNECT request (a proxy tunnel)',
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
      405,
      messages.common.methodNotAllowed,
    ],
    [
      // Node's own refusal had no body (session 64's fuzzing).
      'an HTTP/1.1 request without Host',
      'GET /api/config/public HTTP/1.1\r\nConnection: close\r\n\r\n',
      400,
      messages.common.hostMissing,
    ],
    [
      // Node kept the first and went on (an outside probe): RFC 9112 says 400.
      'a request with two Host headers',
      'GET /api/config/public HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n',
      400,
      messages.common.hostRepeated,
    ],
    [
      'an Expect other than 100-continue',
      'GET /api/config/public HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\n\r\n',
      417,
      messages.common.expectationFailed,
    ],
  ])(
    'answers %s in Chinese, in the envelope, with the site headers',
    async (_name, bytes, status, message) => {
      const res = await raw(bytes);
      expect(res.status).toBe(status);
      expect(res.body).toEqual({ success: false, message });
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toBe('sandbox');
    },
  );
});
