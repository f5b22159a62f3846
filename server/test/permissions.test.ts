/**
 * The permission matrix: every /api route the app registers (collected by the access hook, so
 * routes added later are covered without touching this file) is called by an anonymous visitor,
 * a user, an admin and a disabled user, and must answer as its declared access says.
 */

import { messages } from '@sitehall/contracts';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApiRoute } from '../src/http/access.js';
import { registerAccess } from '../src/http/access.js';
import { registerErrorHandling } from '../src/http/errors.js';
import { createTestApp, sessionToken } from './helpers.js';

const t = await createTestApp();
afterAll(() => t.close());

const admin = (await t.request({ url: '/api/auth/profile', token: await t.adminToken() })).json().data.user;
const user = await t.createUser({ username: 'matrix_user' });
const disabled = await t.createUser({ username: 'matrix_disabled' });
await t.request({
  method: 'PATCH',
  url: `/api/admin/users/${disabled.id}`,
  token: await t.adminToken(),
  body: { disabled: true },
});

type Actor = 'anonymous' | 'user' | 'admin' | 'disabled';
const ACTORS: Actor[] = ['anonymous', 'user', 'admin', 'disabled'];

/**
 * A fresh session per call: routes such as logout and refresh end the session they are called
 * with. Sessions are issued straight by the service, so a disabled account gets one too and the
 * access hook has to refuse it.
 */
async function tokenOf(actor: Actor): Promise<string | undefined> {
  if (actor === 'anonymous') return undefined;
  const id = actor === 'admin' ? admin.id : actor === 'user' ? user.id : disabled.id;
  return sessionToken(t, id);
}

/** Path parameters become a placeholder id that exists nowhere (a 404/400 counts as let through). */
const concrete = (url: string) => url.replace(/:[A-Za-z0-9_]+(\([^)]*\))?/g, '999999').replace(/\*$/, 'x');

function expected(route: ApiRoute, actor: Actor): 'allowed' | 401 | 403 {
  if (route.access === 'public') return 'allowed';
  if (actor === 'anonymous' || actor === 'disabled') return 401;
  if (route.access === 'admin' && actor === 'user') return 403;
  return 'allowed';
}

const routes = t.app.apiRoutes.filter((r) => r.method !== 'OPTIONS');

describe('the route registry', () => {
  it('holds every API route with a declared access level', () => {
    const names = routes.map((r) => `${r.method} ${r.url}`);
    for (const known of [
      'POST /api/auth/login',
      'POST /api/auth/logout',
      'POST /api/auth/refresh',
      'GET /api/auth/profile',
      'PUT /api/auth/profile',
      'POST /api/auth/register',
      'GET /api/admin/users',
      'PATCH /api/admin/users/:id',
      'POST /api/admin/users/:id/reset-password',
      'DELETE /api/admin/users/:id',
    ]) {
      expect(names).toContain(known);
    }
    for (const r of routes) expect(['public', 'user', 'admin']).toContain(r.access);
    expect(routes.find((r) => r.url === '/api/auth/login')?.access).toBe('public');
    expect(routes.filter((r) => r.url.startsWith('/api/admin/')).every((r) => r.access === 'admin')).toBe(
      true,
    );
  });

  it('refuses at startup an API route without an access rule, or with an unknown one', async () => {
    for (const config of [{}, { access: 'admins' }, { access: '' }]) {
      const app = Fastify({ logger: false });
      registerErrorHandling(app);
      registerAccess(app, t.ctx.services.sessions, t.ctx.services.apiTokens);
      const started = (async () => {
        await app.register(
          async (api) => {
            api.get('/forgotten', { config: config as object }, async () => ({ ok: true }));
          },
          { prefix: '/api' },
        );
        await app.ready();
      })();
      await expect(started).rejects.toThrow(/no declared access rule/);
      await app.close().catch(() => {});
    }
  });

  it('needs no rule outside /api, and records what it accepted', async () => {
    const app = Fastify({ logger: false });
    registerAccess(app, t.ctx.services.sessions, t.ctx.services.apiTokens);
    app.get('/healthz-like', async () => 'ok');
    app.get('/api-docs.html', async () => 'a static file whose name starts with api');
    app.post('/api/thing/:id', { config: { access: 'user' } }, async () => 'ok');
    await app.ready();
    expect(app.apiRoutes).toEqual([{ method: 'POST', url: '/api/thing/:id', access: 'user' }]);
    await app.close();
  });
});

describe.each(routes.map((r) => [`${r.method} ${r.url} (${r.access})`, r] as const))('%s', (_, route) => {
  it.each(ACTORS)('as %s', async (actor) => {
    const token = await tokenOf(actor);
    const hasBody = ['POST', 'PUT', 'PATCH'].includes(route.method);
    const res = await t.request({
      method: route.method,
      url: concrete(route.url),
      token,
      ...(hasBody ? { body: {} } : {}),
    });
    const want = expected(route, actor);
    const context = `${route.method} ${route.url} as ${actor}: ${res.statusCode} ${res.body.slice(0, 300)}`;
    if (want === 'allowed') {
      expect([401, 403], context).not.toContain(res.statusCode);
    } else {
      expect(res.statusCode, context).toBe(want);
      if (route.method !== 'HEAD') {
        const body = res.json();
        expect(body.success, context).toBe(false);
        if (want === 403) expect(body.message).toBe(messages.common.adminOnly);
      }
    }
    // Whoever asks, with whatever placeholder, the answer is never a server error.
    expect(res.statusCode, context).toBeLessThan(500);
  });
});
