/**
 * Every /api endpoint, once: method, path (under /api, `:id` for a path parameter), who may call
 * it, and a Chinese summary. The server registers its routes from this table
 * (server/src/http/endpoint-routes.ts), the web client builds its URLs from it
 * (web/src/api/client.ts `call`), and GET /api/openapi.json is generated from it. The request and
 * response schemas of each entry are in endpoint-schemas.ts, under the same key: this half holds no
 * zod, so the web app's pages pay only for the paths they call. How to add an endpoint:
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
  /** The area it belongs to (the OpenAPI tag). */
  tag: string;
  summary: string;
  /** The request body: JSON (the default when a body schema exists), multipart files, or either. */
  body?: 'multipart' | 'json-or-multipart';
  /** What a success answers: the JSON envelope (default), a zip file, or an HTML page. */
  answers?: 'zip' | 'html' | 'openapi';
  /** The success status when it is not 200. */
  status?: 201;
}

export const endpoints = {
  login: { method: 'POST', path: '/auth/login', access: 'public', tag: '账号', summary: '登录' },
  logout: { method: 'POST', path: '/auth/logout', access: 'user', tag: '账号', summary: '退出登录' },
  refresh: { method: 'POST', path: '/auth/refresh', access: 'user', tag: '账号', summary: '续期会话' },
  profile: { method: 'GET', path: '/auth/profile', access: 'user', tag: '账号', summary: '当前用户资料' },
  updateProfile: {
    method: 'PUT',
    path: '/auth/profile',
    access: 'user',
    tag: '账号',
    summary: '修改资料或密码',
  },
  register: {
    method: 'POST',
    path: '/auth/register',
    access: 'admin',
    tag: '账号',
    summary: '创建用户（返回初始密码）',
    status: 201,
  },

  users: { method: 'GET', path: '/admin/users', access: 'admin', tag: '用户管理', summary: '用户列表' },
  updateUser: {
    method: 'PATCH',
    path: '/admin/users/:id',
    access: 'admin',
    tag: '用户管理',
    summary: '修改用户（角色、停用、存储配额）',
  },
  resetPassword: {
    method: 'POST',
    path: '/admin/users/:id/reset-password',
    access: 'admin',
    tag: '用户管理',
    summary: '重置密码（返回新密码）',
  },
  deleteUser: {
    method: 'DELETE',
    path: '/admin/users/:id',
    access: 'admin',
    tag: '用户管理',
    summary: '删除用户',
  },

  publicConfig: {
    method: 'GET',
    path: '/config/public',
    access: 'public',
    tag: '配置',
    summary: '上传限制与允许的文件类型',
  },
  showcase: {
    method: 'GET',
    path: '/projects/public',
    access: 'public',
    tag: '展厅',
    summary: '展厅项目列表',
  },

  upload: {
    method: 'POST',
    path: '/projects/upload',
    access: 'user',
    tag: '我的项目',
    summary: '上传新项目（multipart：文件或压缩包）',
    body: 'multipart',
    status: 201,
  },
  myProjects: {
    method: 'GET',
    path: '/projects/my',
    access: 'user',
    tag: '我的项目',
    summary: '我的项目与统计',
  },
  project: { method: 'GET', path: '/projects/:id', access: 'user', tag: '我的项目', summary: '项目详情' },
  updateProject: {
    method: 'PUT',
    path: '/projects/:id',
    access: 'user',
    tag: '我的项目',
    summary: '修改项目信息（JSON），或上传新版本（multipart）',
    body: 'json-or-multipart',
  },
  deleteProject: {
    method: 'DELETE',
    path: '/projects/:id',
    access: 'user',
    tag: '我的项目',
    summary: '删除项目',
  },
  rollback: {
    method: 'POST',
    path: '/projects/:id/rollback',
    access: 'user',
    tag: '我的项目',
    summary: '回滚到已通过的旧版本',
  },
  download: {
    method: 'GET',
    path: '/projects/:id/download',
    access: 'user',
    tag: '我的项目',
    summary: '下载项目文件（zip）',
    answers: 'zip',
  },
  previewToken: {
    method: 'POST',
    path: '/projects/:id/preview-token',
    access: 'user',
    tag: '我的项目',
    summary: '生成预览链接',
  },

  adminProjects: {
    method: 'GET',
    path: '/admin/projects',
    access: 'admin',
    tag: '审核',
    summary: '项目列表（审核）',
  },
  pendingProjects: {
    method: 'GET',
    path: '/admin/projects/pending',
    access: 'admin',
    tag: '审核',
    summary: '待审核项目',
  },
  adminProject: {
    method: 'GET',
    path: '/admin/projects/:id',
    access: 'admin',
    tag: '审核',
    summary: '审核详情（内容检查、版本差异、访问统计）',
  },
  adminSource: {
    method: 'GET',
    path: '/admin/projects/:id/source',
    access: 'admin',
    tag: '审核',
    summary: '查看最新版本的源文件片段',
  },
  review: {
    method: 'POST',
    path: '/admin/projects/:id/review',
    access: 'admin',
    tag: '审核',
    summary: '审核操作（通过、驳回、发布、下架…）',
  },
  batch: { method: 'POST', path: '/admin/projects/batch', access: 'admin', tag: '审核', summary: '批量操作' },
  adminDownload: {
    method: 'GET',
    path: '/admin/projects/:id/download',
    access: 'admin',
    tag: '审核',
    summary: '下载项目文件（zip）',
    answers: 'zip',
  },
  stats: { method: 'GET', path: '/admin/stats', access: 'admin', tag: '管理', summary: '仪表盘统计' },
  auditLogs: { method: 'GET', path: '/admin/audit-logs', access: 'admin', tag: '管理', summary: '操作日志' },
  adminConfig: { method: 'GET', path: '/admin/config', access: 'admin', tag: '管理', summary: '平台设置' },
  updateAdminConfig: {
    method: 'PUT',
    path: '/admin/config',
    access: 'admin',
    tag: '管理',
    summary: '修改平台设置',
  },

  openapi: {
    method: 'GET',
    path: '/openapi.json',
    access: 'public',
    tag: '接口文档',
    summary: '本接口的 OpenAPI 3.1 描述',
    answers: 'openapi',
  },
  docs: {
    method: 'GET',
    path: '/docs',
    access: 'public',
    tag: '接口文档',
    summary: '接口文档页面',
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
