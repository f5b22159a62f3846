/** Every TanStack Query key of the app, so invalidation after a change reaches every screen showing the data. */
import type {
  AdminProjectsQuery,
  AuditLogQuery,
  MyProjectsQuery,
  PendingProjectsQuery,
  ShowcaseQuery,
  UserListQuery,
} from '@sitehall/contracts';

export const queryKeys = {
  profile: ['auth', 'profile'] as const,
  /** Limits and allowed types the upload screens check against (GET /api/config/public). */
  publicConfig: ['config', 'public'] as const,
  /** The owner's projects: lists (dashboard, my projects) and details. */
  projects: {
    all: ['projects'] as const,
    lists: ['projects', 'mine'] as const,
    mine: (query: MyProjectsQuery) => ['projects', 'mine', query] as const,
    detail: (id: number) => ['projects', 'detail', id] as const,
  },
  /** A project's current preview link, kept apart so changes to the project keep it. */
  preview: (projectId: number) => ['preview', projectId] as const,
  adminUsers: {
    all: ['admin', 'users'] as const,
    list: (query: UserListQuery) => ['admin', 'users', 'list', query] as const,
    tokens: (id: number) => ['admin', 'users', 'tokens', id] as const,
  },
  /** Review lists, pending list and review detail: every screen a review decision changes. */
  adminProjects: {
    all: ['admin', 'projects'] as const,
    list: (query: AdminProjectsQuery) => ['admin', 'projects', 'list', query] as const,
    pending: (query: PendingProjectsQuery) => ['admin', 'projects', 'pending', query] as const,
    detail: (id: number) => ['admin', 'projects', 'detail', id] as const,
    source: (id: number, path: string, line: number) =>
      ['admin', 'projects', 'source', id, path, line] as const,
    fileDiff: (id: number, path: string, versions: string) =>
      ['admin', 'projects', 'file-diff', id, path, versions] as const,
  },
  adminStats: ['admin', 'stats'] as const,
  adminConfig: ['admin', 'config'] as const,
  auditLogs: (query: AuditLogQuery) => ['admin', 'audit-logs', query] as const,
  showcase: {
    all: ['showcase'] as const,
    list: (query: Omit<ShowcaseQuery, 'page'>) => ['showcase', 'list', query] as const,
  },
};
