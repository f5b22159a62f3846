/**
 * The admin console's calls under /api/admin (admin only): review lists and detail, review
 * decisions and batch actions, downloads, the dashboard figures, the audit log and the settings.
 */
import type {
  AdminConfigBody,
  AdminProjectsQuery,
  AuditLogQuery,
  BatchAction,
  EndpointData,
  PendingProjectsQuery,
  ReviewAction,
} from '@sitehall/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { saveBlob } from '../lib/save-file';
import { call } from './client';
import { notificationKeys } from './notifications';
import { fetchProjectZip, type ProjectDownload, refetchWhileWaiting } from './projects';
import { queryKeys } from './query-keys';

export type PendingProjectsData = EndpointData<'pendingProjects'>;

export interface ReviewDecision {
  id: number;
  action: ReviewAction;
  comment?: string;
  /** The newest version the reviewer saw: the server refuses (409) when another came since. */
  version?: number | null;
}

export interface BatchRequest {
  projectIds: number[];
  action: BatchAction;
  comment?: string;
  /** Each project's newest version as the list showed it (project id → version). */
  versions?: Record<string, number>;
}

export type BatchResult = EndpointData<'batch'>;

/** The refetch interval of the dashboard figures: pending work shows up without a reload. */
const DASHBOARD_REFRESH_MS = 60_000;

export const adminApi = {
  projects: (query: AdminProjectsQuery) => call('adminProjects', { query }),
  pending: (query: PendingProjectsQuery) => call('pendingProjects', { query }),
  project: (id: number) => call('adminProject', { params: { id } }),
  /** Lines of a text file of the newest version around `line` (a content check finding). */
  source: (id: number, path: string, line: number | null) =>
    call('adminSource', { params: { id }, query: { path, ...(line ? { line } : {}) } }),
  /** One text file of the live and the newest version, for the version diff's line diff. */
  fileDiff: (id: number, path: string) => call('adminFileDiff', { params: { id }, query: { path } }),
  review: ({ id, action, comment, version }: ReviewDecision) =>
    call('review', {
      params: { id },
      body: {
        action,
        ...(comment?.trim() ? { comment: comment.trim() } : {}),
        ...(typeof version === 'number' ? { version } : {}),
      },
    }),
  batch: ({ projectIds, action, comment, versions }: BatchRequest) =>
    call('batch', {
      body: {
        projectIds,
        action,
        data: {
          ...(comment?.trim() ? { comment: comment.trim() } : {}),
          ...(versions && Object.keys(versions).length > 0 ? { versions } : {}),
        },
      },
    }),
  /** An admin's delete; the reason, when given, is what the owner reads in the deleted notice. */
  remove: ({ id, comment }: { id: number; comment?: string }) =>
    call('deleteProject', {
      params: { id },
      ...(comment?.trim() ? { body: { comment: comment.trim() } } : {}),
    }),
  /** A preview link for any project (the preview route lets admins in). */
  preview: (id: number) => call('previewToken', { params: { id } }),
  /** Renders the project's newest (and live) version again (docs/render.md). */
  render: (id: number) => call('rerenderProject', { params: { id } }),
  /**
   * A project's files as a zip, fetched with the session's token: the live version (else the
   * newest), or the version asked for (the review detail asks for the one under review). Named as
   * the server names it.
   */
  download: (request: ProjectDownload) => fetchProjectZip('adminDownload', request),
  stats: () => call('stats'),
  auditLogs: (query: AuditLogQuery) => call('auditLogs', { query }),
  config: () => call('adminConfig'),
  saveConfig: (body: AdminConfigBody) => call('updateAdminConfig', { body }),
};

export function useAdminProjects(query: AdminProjectsQuery) {
  return useQuery({
    queryKey: queryKeys.adminProjects.list(query),
    queryFn: () => adminApi.projects(query),
    placeholderData: keepPreviousData,
  });
}

export function usePendingProjects(query: PendingProjectsQuery) {
  return useQuery({
    queryKey: queryKeys.adminProjects.pending(query),
    queryFn: () => adminApi.pending(query),
    refetchInterval: DASHBOARD_REFRESH_MS,
  });
}

export function useAdminProject(id: number | null) {
  return useQuery({
    queryKey: queryKeys.adminProjects.detail(id ?? 0),
    queryFn: () => adminApi.project(id ?? 0),
    enabled: id !== null,
    // Another admin may decide it meanwhile.
    refetchInterval: refetchWhileWaiting((detail) => detail.project.status),
    refetchIntervalInBackground: false,
  });
}

/** The file a finding points at, fetched when its dialog opens. */
export function useAdminSource(id: number, path: string | null, line: number | null) {
  return useQuery({
    queryKey: queryKeys.adminProjects.source(id, path ?? '', line ?? 0),
    queryFn: () => adminApi.source(id, path ?? '', line),
    enabled: path !== null,
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** Loaded when the reviewer opens a changed file's line diff; kept while the pair of versions is the same. */
export function useAdminFileDiff(id: number, path: string, versions: string) {
  return useQuery({
    queryKey: queryKeys.adminProjects.fileDiff(id, path, versions),
    queryFn: () => adminApi.fileDiff(id, path),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useAdminStats() {
  return useQuery({
    queryKey: queryKeys.adminStats,
    queryFn: adminApi.stats,
    refetchInterval: DASHBOARD_REFRESH_MS,
  });
}

export function useAuditLogs(query: AuditLogQuery) {
  return useQuery({
    queryKey: queryKeys.auditLogs(query),
    queryFn: () => adminApi.auditLogs(query),
    placeholderData: keepPreviousData,
  });
}

export function useAdminConfig() {
  return useQuery({ queryKey: queryKeys.adminConfig, queryFn: adminApi.config });
}

/** A change to projects shows on every admin list, the figures, the showcase and the owner's screens. */
function useProjectsMutation<Vars, Result>(mutationFn: (vars: Vars) => Promise<Result>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.adminProjects.all }),
        queryClient.invalidateQueries({ queryKey: queryKeys.adminStats }),
        queryClient.invalidateQueries({ queryKey: queryKeys.showcase.all }),
        queryClient.invalidateQueries({ queryKey: queryKeys.projects.all }),
        // A decision marks the admins' notices of its upload read (docs/notifications.md): the bell
        // kept counting them for up to a minute after the last review.
        queryClient.invalidateQueries({ queryKey: notificationKeys.all }),
      ]),
  });
}

export function useReviewDecision() {
  return useProjectsMutation(adminApi.review);
}

export function useBatchAction() {
  return useProjectsMutation(adminApi.batch);
}

export function useDeleteProjectAsAdmin() {
  return useProjectsMutation(adminApi.remove);
}

export function useRerender() {
  return useMutation({ mutationFn: adminApi.render });
}

export function useCreatePreview() {
  return useMutation({ mutationFn: adminApi.preview });
}

/**
 * Downloads a project's files and hands them to the browser under the server's name
 * (project-{id}.zip, or project-{id}-v{n}.zip for a version asked for), which it returns.
 */
export function useDownloadProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (request: ProjectDownload) => {
      const { blob, filename } = await adminApi.download(request);
      saveBlob(blob, filename);
      return filename;
    },
    // The download is counted: the project list's 下载 column and the detail page's statistics show it.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.adminProjects.all }),
  });
}

export function useSaveAdminConfig() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: adminApi.saveConfig,
    // The upload screens check files against the public limits: they must hold the new ones too.
    onSuccess: (data) => {
      queryClient.setQueryData(queryKeys.adminConfig, data);
      return queryClient.invalidateQueries({ queryKey: queryKeys.publicConfig });
    },
  });
}
