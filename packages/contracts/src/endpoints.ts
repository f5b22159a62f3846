/**
 * Every /api endpoint, once: method, path (under /api, `:id` for a path parameter) and who may
 * call it. The server registers its routes from this table
 * (server/src/http/endpoint-routes.ts), the web client builds its URLs from it
 * (web/src/api/client.ts `call`), and GET /api/openapi.json is generated from it. The request and
 * response schemas of each entry, its Chinese summary and its area are in endpoint-schemas.ts,
 * under the same key: this half holds no zod and no documentation text, so the web app's pages pay
 * only for the methods and paths they call. How to add an endpoint:
 * docs/architecture.md "The endpoint table".
 */

export const ENDPOINT_ACCESS = ['public', 'user', 'admin'] as const;
/** public: anyone; user: any signed-in user; admin: administrators only. */
export type EndpointAccess = (typeof ENDPOINT_ACCESS)[number];

export type EndpointMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Endpoint {
  method: EndpointMethod;
  /** Under /api; `:name` marks a path parameter. */
  path: string;
  access: EndpointAccess;
  /** The request body: JSON (the default when a body schema exists), multipart files, or either. */
  body?: 'multipart' | 'json-or-multipart' | 'raw';
  /** What a success answers: the JSON envelope (default), a zip file, or an HTML page. */
  answers?: 'zip' | 'html' | 'openapi' | 'webp';
  /** The success status when it is not 200. */
  status?: 201;
  /**
   * It writes an audit entry for the signed-in account: counted in the account's budget of audited
   * writes shared by every such route (AUDITED_WRITES_MAX, server/src/http/audit-budget.ts).
   */
  audited?: true;
}

export const endpoints = {
  login: { method: 'POST', path: '/auth/login', access: 'public' },
  logout: { method: 'POST', path: '/auth/logout', access: 'user' },
  refresh: { method: 'POST', path: '/auth/refresh', access: 'user' },
  profile: { method: 'GET', path: '/auth/profile', access: 'user' },
  updateProfile: {
    method: 'PUT',
    path: '/auth/profile',
    access: 'user',
    audited: true,
  },
  register: {
    method: 'POST',
    path: '/auth/register',
    access: 'admin',
    status: 201,
  },
  apiTokens: { method: 'GET', path: '/auth/tokens', access: 'user' },
  createApiToken: {
    method: 'POST',
    path: '/auth/tokens',
    access: 'user',
    status: 201,
    audited: true,
  },
  revokeApiToken: { method: 'DELETE', path: '/auth/tokens/:id', access: 'user', audited: true },

  startDeploy: { method: 'POST', path: '/deploys', access: 'user', status: 201 },
  deployFile: { method: 'PUT', path: '/deploys/:id/files/:sha256', access: 'user', body: 'raw' },
  deployFiles: { method: 'POST', path: '/deploys/:id/files', access: 'user', body: 'multipart' },
  finishDeploy: {
    method: 'POST',
    path: '/deploys/:id/finish',
    access: 'user',
    status: 201,
    audited: true,
  },
  cancelDeploy: { method: 'DELETE', path: '/deploys/:id', access: 'user' },

  users: { method: 'GET', path: '/admin/users', access: 'admin' },
  updateUser: {
    method: 'PATCH',
    path: '/admin/users/:id',
    access: 'admin',
  },
  resetPassword: {
    method: 'POST',
    path: '/admin/users/:id/reset-password',
    access: 'admin',
  },
  unlockUser: { method: 'POST', path: '/admin/users/:id/unlock', access: 'admin' },
  userApiTokens: { method: 'GET', path: '/admin/users/:id/tokens', access: 'admin' },
  revokeUserApiToken: { method: 'DELETE', path: '/admin/users/:id/tokens/:tokenId', access: 'admin' },
  deleteUser: {
    method: 'DELETE',
    path: '/admin/users/:id',
    access: 'admin',
  },

  publicConfig: {
    method: 'GET',
    path: '/config/public',
    access: 'public',
  },
  showcase: {
    method: 'GET',
    path: '/projects/public',
    access: 'public',
  },

  upload: {
    method: 'POST',
    path: '/projects/upload',
    access: 'user',
    body: 'multipart',
    status: 201,
    audited: true,
  },
  myProjects: {
    method: 'GET',
    path: '/projects/my',
    access: 'user',
  },
  siteName: { method: 'GET', path: '/projects/site-name', access: 'user' },
  project: { method: 'GET', path: '/projects/:id', access: 'user' },
  updateProject: {
    method: 'PUT',
    path: '/projects/:id',
    access: 'user',
    body: 'json-or-multipart',
    audited: true,
  },
  deleteProject: {
    method: 'DELETE',
    path: '/projects/:id',
    access: 'user',
    audited: true,
  },
  rollback: {
    method: 'POST',
    path: '/projects/:id/rollback',
    access: 'user',
    audited: true,
  },
  download: {
    method: 'GET',
    path: '/projects/:id/download',
    access: 'user',
    answers: 'zip',
    audited: true,
  },
  previewToken: {
    method: 'POST',
    path: '/projects/:id/preview-token',
    access: 'user',
    audited: true,
  },
  projectAnalytics: { method: 'GET', path: '/projects/:id/analytics', access: 'user' },
  projectDomains: { method: 'GET', path: '/projects/:id/domains', access: 'user' },
  addProjectDomain: {
    method: 'POST',
    path: '/projects/:id/domains',
    access: 'user',
    status: 201,
    audited: true,
  },
  checkProjectDomain: {
    method: 'POST',
    path: '/projects/:id/domains/:domainId/check',
    access: 'user',
    audited: true,
  },
  removeProjectDomain: {
    method: 'DELETE',
    path: '/projects/:id/domains/:domainId',
    access: 'user',
    audited: true,
  },
  adminDomains: { method: 'GET', path: '/admin/domains', access: 'admin' },
  approveDomain: { method: 'POST', path: '/admin/domains/:id/approve', access: 'admin' },
  removeDomain: { method: 'DELETE', path: '/admin/domains/:id', access: 'admin' },
  tlsAsk: { method: 'GET', path: '/tls/ask', access: 'public' },

  notifications: { method: 'GET', path: '/notifications', access: 'user' },
  unreadNotifications: { method: 'GET', path: '/notifications/unread-count', access: 'user' },
  readNotification: { method: 'POST', path: '/notifications/:id/read', access: 'user' },
  readAllNotifications: { method: 'POST', path: '/notifications/read-all', access: 'user' },

  adminProjects: {
    method: 'GET',
    path: '/admin/projects',
    access: 'admin',
  },
  pendingProjects: {
    method: 'GET',
    path: '/admin/projects/pending',
    access: 'admin',
  },
  adminProject: {
    method: 'GET',
    path: '/admin/projects/:id',
    access: 'admin',
  },
  adminSource: {
    method: 'GET',
    path: '/admin/projects/:id/source',
    access: 'admin',
  },
  adminFileDiff: {
    method: 'GET',
    path: '/admin/projects/:id/file-diff',
    access: 'admin',
  },
  review: {
    method: 'POST',
    path: '/admin/projects/:id/review',
    access: 'admin',
  },
  batch: { method: 'POST', path: '/admin/projects/batch', access: 'admin' },
  rerenderProject: { method: 'POST', path: '/admin/projects/:id/render', access: 'admin' },
  thumbnail: { method: 'GET', path: '/thumbnails/:name', access: 'public', answers: 'webp' },
  adminDownload: {
    method: 'GET',
    path: '/admin/projects/:id/download',
    access: 'admin',
    answers: 'zip',
  },
  stats: { method: 'GET', path: '/admin/stats', access: 'admin' },
  auditLogs: { method: 'GET', path: '/admin/audit-logs', access: 'admin' },
  adminConfig: { method: 'GET', path: '/admin/config', access: 'admin' },
  updateAdminConfig: {
    method: 'PUT',
    path: '/admin/config',
    access: 'admin',
  },

  openapi: {
    method: 'GET',
    path: '/openapi.json',
    access: 'public',
    answers: 'openapi',
  },
  docs: {
    method: 'GET',
    path: '/docs',
    access: 'public',
    answers: 'html',
  },
} as const satisfies Record<string, Endpoint>;

export type EndpointKey = keyof typeof endpoints;

/** The names of an endpoint's path parameters (`:id` → 'id'). */
export type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/** The path with its parameters filled in, each encoded. */
export function endpointPath(endpoint: Endpoint, params: Record<string, string | number> = {}): string {
  return endpoint.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${endpoint.path}: missing path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
}
