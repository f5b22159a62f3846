/** What the render worker's test files share: an app with the worker on, a one-page upload, its report. */
import { expect } from 'vitest';
import * as deployments from '../../src/repositories/deployments.js';
import { type TestApp, uploadProject } from '../helpers.js';

/** The app config's render section: Debian's Chromium, polled often, retried at once. */
export const render = (over: Partial<TestApp['config']['render']> = {}) => ({
  render: {
    enabled: true,
    chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    pollMs: 200,
    loadTimeoutMs: 10_000,
    retryAfterMs: 0,
    ...over,
  },
});

export const html = (body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;

/** A new project of `index` (and `extra` files), uploaded by `token`: its id and its deployment's. */
export async function upload(t: TestApp, token: string, index: string, extra: Record<string, string> = {}) {
  const files = [
    { name: 'index.html', content: index },
    ...Object.entries(extra).map(([name, content]) => ({ name, content })),
  ];
  const res = await uploadProject(t, token, { name: '渲染测试', files });
  expect(res.statusCode).toBe(201);
  const project = res.json().data.project as { id: number };
  const p = await t.ctx.repositories.projects.byId(t.ctx.db, project.id);
  return { id: project.id, deploymentId: p!.latest_deployment_id! };
}

/** The deployment's content-check report, render findings included. */
export async function reportOf(t: TestApp, deploymentId: number) {
  const d = await deployments.byId(t.ctx.db, deploymentId);
  return JSON.parse(d!.content_check!) as {
    level: string;
    findings: Array<{ rule?: string; severity: string; category: string; message: string; excerpt?: string }>;
    runtime?: { external_requests: Array<{ url: string }>; blank: boolean };
  };
}

/** A stored blob's bytes (a render's picture). */
export async function bufferOf(t: TestApp, sha256: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await t.ctx.store.read(sha256)) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
