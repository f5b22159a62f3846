/**
 * Every endpoint of the table with hostile values in each place a client chooses one
 * (docs/security.md "Hostile values in requests"): each path parameter; each field of its query
 * and of its JSON body, one at a time, as a NUL byte, a number past the columns' range, a
 * negative or fractional number, a long text, an array, an object, null. No answer is a 500, and
 * every refusal is the envelope with a Chinese message. On both engines: PostgreSQL refuses values
 * SQLite stores (a NUL in text, an integer past int4), which is where such a value once became a 500.
 */
import { endpointSchemas, endpoints } from '@sitehall/contracts';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestApp, sessionToken, type TestApp } from './helpers.js';

let t: TestApp;
let adminId: number;
beforeAll(async () => {
  t = await createTestApp();
  await t.adminToken();
  adminId = (
    await t.ctx.db.selectFrom('users').select('id').where('role', '=', 'admin').executeTakeFirstOrThrow()
  ).id;
});
afterAll(() => t.close());

/** Path parameters as a URL carries them (percent-encoded where they must be). */
const PARAM_VALUES = [
  '%00',
  'a%00b',
  '2147483648',
  '99999999999999999999',
  '-1',
  '1.5',
  '%FF',
  'x'.repeat(400),
];
/** Query values, encoded when the URL is built. */
const QUERY_VALUES = ['\u0000', 'a\u0000b', '2147483648', '-1', '1.5', '1e308', 'x'.repeat(5000), '%', '\\'];
/** JSON values of a body field. */
const BODY_VALUES: unknown[] = [
  '\u0000',
  'a\u0000b',
  2_147_483_648,
  Number.MAX_SAFE_INTEGER + 1,
  -1,
  1.5,
  1e308,
  'x'.repeat(5000),
  [],
  ['\u0000'],
  {},
  { '\u0000': '\u0000' },
  null,
  true,
];

/** The field names of an object schema (through optional, default and pipes), or none. */
function fieldsOf(schema: z.ZodType | undefined): string[] {
  let s: unknown = schema;
  for (let i = 0; i < 5 && s; i++) {
    if (s instanceof z.ZodObject) return Object.keys(s.shape);
    const def = (s as { def?: { innerType?: unknown; in?: unknown; schema?: unknown } }).def;
    s = def?.innerType ?? def?.in ?? def?.schema;
  }
  return [];
}

function expectAnswered(res: LightMyRequestResponse, what: string) {
  expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
  if (res.statusCode >= 400 && String(res.headers['content-type']).startsWith('application/json')) {
    const body = res.json() as { success?: unknown; message?: unknown };
    expect(body.success, what).toBe(false);
    expect(typeof body.message, what).toBe('string');
    expect(body.message as string, what).toMatch(/[\u4e00-\u9fff]/);
  }
}

describe('every endpoint with hostile values', () => {
  for (const [key, endpoint] of Object.entries(endpoints)) {
    const schemas = endpointSchemas[key as keyof typeof endpointSchemas] as {
      query?: z.ZodType;
      body?: z.ZodType;
    };
    it(`${endpoint.method} /api${endpoint.path} answers each with its 4xx`, async () => {
      // A session of its own for each endpoint: logout and refresh end the one they are sent with.
      const token = endpoint.access === 'public' ? undefined : await sessionToken(t, adminId);
      const names = [...endpoint.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
      const url = (fill: (name: string) => string) =>
        `/api${endpoint.path.replace(/:(\w+)/g, (_, name: string) => fill(name))}`;
      // Each path parameter in turn, the others an id that exists nowhere.
      for (const name of names) {
        for (const value of PARAM_VALUES) {
          const res = await t.request({
            method: endpoint.method,
            url: url((n) => (n === name ? value : '999999')),
            token,
            ...(endpoint.method === 'GET' || endpoint.method === 'DELETE' ? {} : { body: {} }),
          });
          expectAnswered(res, `${name}=${value}`);
        }
      }
      const base = url(() => '999999');
      for (const field of fieldsOf(schemas.query)) {
        for (const value of QUERY_VALUES) {
          const res = await t.request({
            method: endpoint.method,
            url: `${base}?${new URLSearchParams({ [field]: value })}`,
            token,
          });
          expectAnswered(res, `?${field}=${JSON.stringify(value).slice(0, 20)}`);
        }
      }
      if (endpoint.method === 'GET' || endpoint.method === 'DELETE') return;
      for (const field of fieldsOf(schemas.body)) {
        for (const value of BODY_VALUES) {
          const res = await t.request({
            method: endpoint.method,
            url: base,
            token,
            body: { [field]: value },
          });
          expectAnswered(res, `{${field}: ${JSON.stringify(value).slice(0, 20)}}`);
        }
      }
    });
  }
});
