/**
 * The endpoint table (packages/contracts/src/endpoints.ts) against the running app: the OpenAPI
 * document it generates is valid OpenAPI 3.1 and names exactly the routes the app registered, each
 * with its access; the app's real answers match the response schemas of the table; a route left
 * out of the table, or an entry without a route, stops the start.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { type EndpointKey, endpointSchemas } from '@sitehall/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { assertEndpointTable } from '../src/http/endpoint-routes.js';
import { createTestApp, review, SIMPLE_SITE, uploadProject } from './helpers.js';

const t = await createTestApp();
afterAll(() => t.close());

const res = await t.request({ url: '/api/openapi.json' });
const document = res.json();
type Operation = { operationId: string; 'x-access': string; security: unknown[] };
const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(
  ([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })),
);

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    expect(document.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists exactly the registered /api routes, each with its access and auth', () => {
    const documented = operations.map(
      ({ path, method }) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
    );
    const registered = t.app.apiRoutes.filter((r) => r.method !== 'HEAD').map((r) => `${r.method} ${r.url}`);
    expect(documented.sort()).toEqual([...registered].sort());
    expect(registered.length).toBeGreaterThanOrEqual(33);
    for (const { path, method, op } of operations) {
      const url = path.replace(/\{(\w+)\}/g, ':$1');
      const route = t.app.apiRoutes.find((r) => r.url === url && r.method === method.toUpperCase());
      expect(op['x-access'], `${method} ${path}`).toBe(route?.access);
      expect(op.security, `${method} ${path}`).toEqual(
        route?.access === 'public' ? [] : [{ bearerAuth: [] }],
      );
    }
  });

  it('describes the upload as multipart with its files, and downloads as zip files', () => {
    const upload = document.paths['/api/projects/upload'].post;
    expect(upload.requestBody.content['multipart/form-data'].schema.properties.files.type).toBe('array');
    expect(upload.responses['201']).toBeDefined();
    const download = document.paths['/api/projects/{id}/download'].get;
    expect(Object.keys(download.responses['200'].content)).toEqual(['application/zip']);
    const login = document.paths['/api/auth/login'].post;
    expect(login.requestBody.content['application/json'].schema.required).toContain('username');
    expect(
      login.responses['200'].content['application/json'].schema.properties.data.properties.token.type,
    ).toBe('string');
    expect(login.responses['400'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/Failure',
    );
  });
});

describe('GET /api/docs', () => {
  it('is a page listing every operation, with no script', async () => {
    const page = await t.request({ url: '/api/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-security-policy']).toContain("script-src 'none'");
    expect(page.body).not.toMatch(/<script/i);
    for (const { op } of operations) expect(page.body).toContain(`id="${op.operationId}"`);
  });
});

describe("the app's answers match the table's response schemas", () => {
  /** Parsing keeps every field of a matching answer, so an undocumented field shows as a difference. */
  function expectMatches(key: EndpointKey, data: unknown) {
    const schema = endpointSchemas[key].data;
    if (!schema) throw new Error(`${key} has no response schema`);
    const parsed = schema.safeParse(data);
    expect(parsed.error?.issues ?? [], key).toEqual([]);
    expect(parsed.data, key).toEqual(data);
  }

  it('for the calls of an owner, the showcase and the review console', async () => {
    const admin = await t.adminToken();
    const owner = await t.createUser({ username: 'schema_owner' });
    const uploaded = await uploadProject(t, owner.token, { files: SIMPLE_SITE });
    expect(uploaded.statusCode).toBe(201);
    expectMatches('upload', uploaded.json().data);
    const id = uploaded.json().data.project.id as number;
    const get = async (key: EndpointKey, url: string, token?: string) => {
      const answer = await t.request({ url, ...(token ? { token } : {}) });
      expect(answer.statusCode, url).toBe(200);
      expectMatches(key, answer.json().data);
    };
    await get('adminProject', `/api/admin/projects/${id}`, admin);
    await get('adminProjects', '/api/admin/projects', admin);
    await get('pendingProjects', '/api/admin/projects/pending', admin);
    expect((await review(t, id, 'approve')).statusCode).toBe(200);
    expect((await review(t, id, 'publish')).statusCode).toBe(200);
    await get('myProjects', '/api/projects/my', owner.token);
    await get('project', `/api/projects/${id}`, owner.token);
    await get('profile', '/api/auth/profile', owner.token);
    await get('publicConfig', '/api/config/public');
    await get('showcase', '/api/projects/public');
    await get('users', '/api/admin/users', admin);
    await get('stats', '/api/admin/stats', admin);
    await get('auditLogs', '/api/admin/audit-logs', admin);
    await get('adminConfig', '/api/admin/config', admin);
    const login = await t.request({
      method: 'POST',
      url: '/api/auth/login',
      body: { username: owner.username, password: owner.password },
    });
    expectMatches('login', login.json().data);
    const preview = await t.request({
      method: 'POST',
      url: `/api/projects/${id}/preview-token`,
      token: owner.token,
    });
    expectMatches('previewToken', preview.json().data);
  });
});

describe('the start-up check of the table', () => {
  const all = t.app.apiRoutes;
  it('passes for the app as built', () => {
    expect(() => assertEndpointTable(all)).not.toThrow();
  });
  it('refuses a table entry with no route', () => {
    const withoutLogin = all.filter((r) => r.url !== '/api/auth/login');
    expect(() => assertEndpointTable(withoutLogin)).toThrow(/no route: POST \/api\/auth\/login/);
  });
  it('refuses an /api route that is not in the table', () => {
    const extra = [...all, { method: 'GET', url: '/api/secret', access: 'public' as const }];
    expect(() => assertEndpointTable(extra)).toThrow(/missing from the endpoint table.*GET \/api\/secret/);
  });
});
