/** Setting up static sites through the API for the admin and showcase browser tests. */
import { type APIRequestContext, expect } from '@playwright/test';
import { ADMIN, apiToken } from './helpers';

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const MIME: Record<string, string> = {
  html: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  txt: 'text/plain',
};

/** A multipart body of loose files, each part named by its path in the site. */
function siteForm(fields: Record<string, string>, files: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const [path, content] of Object.entries(files)) {
    const ext = path.slice(path.lastIndexOf('.') + 1);
    form.append('files', new Blob([content], { type: MIME[ext] ?? 'application/octet-stream' }), path);
  }
  return form;
}

export interface UploadedSite {
  id: number;
  name: string;
}

/** The owner uploads a new project of loose files. */
export async function uploadSite(
  request: APIRequestContext,
  token: string,
  name: string,
  files: Record<string, string>,
  description = '',
): Promise<UploadedSite> {
  const res = await request.post('/api/projects/upload', {
    headers: bearer(token),
    multipart: siteForm({ project_name: name, description }, files),
  });
  expect(res.status(), await res.text()).toBe(201);
  const { project } = (await res.json()).data;
  return { id: project.id, name: project.name };
}

/** The owner uploads a new version of a project's files (it waits for review). */
export async function uploadVersion(
  request: APIRequestContext,
  token: string,
  id: number,
  files: Record<string, string>,
) {
  const res = await request.put(`/api/projects/${id}`, {
    headers: bearer(token),
    multipart: siteForm({}, files),
  });
  expect(res.status(), await res.text()).toBe(200);
}

/** An admin decision through the API (setting the scene, not the behaviour under test). */
export async function review(
  request: APIRequestContext,
  id: number,
  action: 'approve' | 'reject' | 'publish' | 'unpublish' | 'takedown',
  comment?: string,
) {
  const token = await apiToken(request, ADMIN.username, ADMIN.password);
  const res = await request.post(`/api/admin/projects/${id}/review`, {
    headers: bearer(token),
    data: { action, ...(comment ? { comment } : {}) },
  });
  expect(res.status(), await res.text()).toBe(200);
}

/** A one-page site whose page says which version it is. */
export function page(title: string, marker: string): Record<string, string> {
  return {
    'index.html': `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>${title}</title><link rel="stylesheet" href="css/site.css"></head><body><h1>${title}</h1><p id="marker">${marker}</p></body></html>`,
    'css/site.css': 'body { font-family: sans-serif; }',
  };
}
