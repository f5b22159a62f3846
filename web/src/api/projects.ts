/**
 * The owner's projects (/api/projects): lists with the dashboard counters, details, uploads of new
 * projects and new versions, metadata edits, delete, download, rollback and preview links.
 */
import type {
  DownloadQuery,
  MyProjectsQuery,
  PreviewTokenDto,
  ProjectStatus,
  SiteNameQuery,
  UpdateProjectBody,
} from '@sitehall/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef } from 'react';
import { filenameFromDisposition, saveBlob } from '../lib/save-file';
import { loadSession, USER_DATA_PREFIX } from '../lib/session';
import { apiClient, call, endpointUrl, toApiError } from './client';
import { queryKeys } from './query-keys';

/** What an upload call needs besides its body: progress in percent, and a way to stop it. */
export interface UploadOptions {
  onProgress?: (percent: number) => void;
  signal?: AbortSignal;
  /**
   * The same for every attempt at the same upload: a retry after a lost answer then gets the first
   * upload's answer instead of a duplicate (docs/decisions/review.md "An answer is never lost").
   */
  idempotencyKey?: string;
}

/** A project's download: the live version (else the newest), or the version of `deploymentId`. */
export interface ProjectDownload {
  id: number;
  /** The version's id, as the version history gives it (DeploymentDto.id). */
  deploymentId?: number;
}

/** A new idempotency key (getRandomValues: randomUUID needs a secure context, plain HTTP is not one). */
export function newUploadKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * The Idempotency-Key of an upload form, given the fields sent with the picked `files`: the same
 * while neither changes (sending again after a failure or a lost answer is a retry of the same
 * upload, answered once), a new one once either does (another upload: the server refuses a key
 * sent again with other files or fields, docs/decisions/review.md "An answer is never lost").
 */
export function useUploadKey(files: readonly unknown[]): (fields: Record<string, unknown>) => string {
  const last = useRef<{ files: readonly unknown[]; fields: string; key: string } | null>(null);
  return useCallback(
    (fields) => {
      const sent = JSON.stringify(fields);
      const kept = last.current;
      if (kept && kept.files === files && kept.fields === sent) return kept.key;
      const key = newUploadKey();
      last.current = { files, fields: sent, key };
      return key;
    },
    [files],
  );
}

function uploadConfig({ onProgress, signal, idempotencyKey }: UploadOptions) {
  return {
    // A large archive takes longer than the usual 10 s to send.
    noTimeout: true,
    signal,
    ...(idempotencyKey ? { headers: { 'Idempotency-Key': idempotencyKey } } : {}),
    onUploadProgress: (event: { loaded: number; total?: number }) => {
      if (!onProgress || !event.total) return;
      onProgress(Math.min(100, Math.round((event.loaded * 100) / event.total)));
    },
  };
}

/** Error bodies of a binary download arrive as bytes; decode them so the server's message shows. */
function decodeErrorBody(data: unknown, _headers: unknown, status?: number): unknown {
  if (!status || status < 400 || !data || typeof data !== 'object' || !('byteLength' in data)) return data;
  try {
    return JSON.parse(new TextDecoder().decode(data as ArrayBuffer));
  } catch {
    return null;
  }
}

export const projectsApi = {
  mine: (query: MyProjectsQuery) => call('myProjects', { query }),
  get: (id: number) => call('project', { params: { id } }),
  upload: (form: FormData, options: UploadOptions = {}) =>
    call('upload', { body: form, config: uploadConfig(options) }),
  uploadVersion: (id: number, form: FormData, options: UploadOptions = {}) =>
    call('updateProject', { params: { id }, body: form, config: uploadConfig(options) }),
  update: (id: number, body: UpdateProjectBody) => call('updateProject', { params: { id }, body }),
  /** Is a site name free (`name`), or which one to suggest for a project name (`from`). */
  siteName: (query: SiteNameQuery) => call('siteName', { query }),
  remove: (id: number) => call('deleteProject', { params: { id } }),
  rollback: (id: number, deploymentId: number) =>
    call('rollback', { params: { id }, body: { deployment_id: deploymentId } }),
  createPreview: (id: number) => call('previewToken', { params: { id } }),
  download: (request: ProjectDownload) => fetchProjectZip('download', request),
};

/**
 * A project's files as a zip, fetched with the bearer token (never put in a URL): the live version
 * (else the newest), or the version asked for, named as the server names it. The owner's route or
 * the admin's copy of it (api/admin.ts).
 */
export async function fetchProjectZip(
  endpoint: 'download' | 'adminDownload',
  { id, deploymentId }: ProjectDownload,
): Promise<{ blob: Blob; filename: string }> {
  const query: DownloadQuery = deploymentId === undefined ? {} : { deployment_id: deploymentId };
  const response = await apiClient.get<ArrayBuffer>(endpointUrl(endpoint, { id }), {
    params: query,
    responseType: 'arraybuffer',
    noTimeout: true,
    transformResponse: decodeErrorBody,
  });
  const type = String(response.headers['content-type'] ?? 'application/zip');
  const filename =
    filenameFromDisposition(response.headers['content-disposition'] as string | undefined) ??
    `project-${id}.zip`;
  return { blob: new Blob([response.data], { type }), filename };
}

/* ---- Reading ---- */

/** How often a page showing a project that waits for review asks for it again. */
const WAITING_REFRESH_MS = 10_000;

/**
 * The refetchInterval of a page about one project: every 10 s while it waits for review (待审核),
 * none once decided. The decision is someone else's (an admin's for the owner; another admin's on
 * the review detail), and the bell polls only every minute, so the page would say 待审核 for up to
 * a minute after it (docs/decisions/review.md "A decision reaches the pages"). With
 * refetchIntervalInBackground false, a hidden tab asks nothing.
 */
export function refetchWhileWaiting<T>(statusOf: (data: T) => ProjectStatus) {
  return (query: { state: { data: T | undefined } }) =>
    query.state.data !== undefined && statusOf(query.state.data) === 'pending' ? WAITING_REFRESH_MS : false;
}

export function useMyProjects(query: MyProjectsQuery) {
  return useQuery({
    queryKey: queryKeys.projects.mine(query),
    queryFn: () => projectsApi.mine(query),
    placeholderData: keepPreviousData,
  });
}

export function useProject(id: number) {
  return useQuery({
    queryKey: queryKeys.projects.detail(id),
    queryFn: async () => (await projectsApi.get(id)).project,
    enabled: Number.isInteger(id) && id > 0,
    refetchInterval: refetchWhileWaiting((project) => project.status),
    refetchIntervalInBackground: false,
  });
}

/* ---- Changing ---- */

/** After any change, every list and detail showing the owner's projects is read again. */
function useRefreshProjects() {
  const queryClient = useQueryClient();
  return useCallback(
    () => queryClient.invalidateQueries({ queryKey: queryKeys.projects.all }),
    [queryClient],
  );
}

export function useUploadProject() {
  const refresh = useRefreshProjects();
  return useMutation({
    mutationFn: ({ form, ...options }: { form: FormData } & UploadOptions) =>
      projectsApi.upload(form, options),
    onSuccess: refresh,
  });
}

export function useUploadVersion(id: number) {
  const refresh = useRefreshProjects();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ form, ...options }: { form: FormData } & UploadOptions) =>
      projectsApi.uploadVersion(id, form, options),
    onSuccess: async ({ project }) => {
      // A preview link shows the version it was made for; the new version needs a new one.
      forgetPreview(id);
      queryClient.setQueryData(queryKeys.preview(id), null);
      await refresh();
      return project;
    },
  });
}

export function useUpdateProject(id: number) {
  const refresh = useRefreshProjects();
  return useMutation({
    mutationFn: (body: UpdateProjectBody) => projectsApi.update(id, body),
    onSuccess: refresh,
  });
}

export function useDeleteProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => projectsApi.remove(id),
    onSuccess: async (_data, id) => {
      forgetPreview(id);
      queryClient.setQueryData(queryKeys.preview(id), null);
      // The open detail page keeps showing the project until it leaves (no refetch into a 404);
      // coming back to it later asks the server again.
      await queryClient.invalidateQueries({ queryKey: queryKeys.projects.detail(id), refetchType: 'none' });
      await queryClient.invalidateQueries({ queryKey: queryKeys.projects.lists });
    },
  });
}

/** Makes an earlier approved version live again (owner or admin). */
export function useRollbackProject(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deploymentId: number) => projectsApi.rollback(id, deploymentId),
    // The live files changed: the owner's screens, the admin's review screens and the showcase card.
    onSuccess: () =>
      Promise.all(
        [queryKeys.projects.all, queryKeys.adminProjects.all, queryKeys.showcase.all].map((queryKey) =>
          queryClient.invalidateQueries({ queryKey }),
        ),
      ),
  });
}

/**
 * Fetches the zip and hands it to the browser to save under the server's name (project-{id}.zip,
 * or project-{id}-v{n}.zip for a version asked for). The versions table uses it on the owner's
 * page and the review detail alike, as it does the rollback.
 */
export function useDownloadProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (request: ProjectDownload) => {
      const { blob, filename } = await projectsApi.download(request);
      saveBlob(blob, filename);
      return filename;
    },
    // The download counter went up: the owner's screens and the admin's show it.
    onSuccess: () =>
      Promise.all(
        [queryKeys.projects.all, queryKeys.adminProjects.all].map((queryKey) =>
          queryClient.invalidateQueries({ queryKey }),
        ),
      ),
  });
}

/* ---- Preview links ---- */

/**
 * Where a preview link is kept until it expires: localStorage, so a reload, another tab or the next
 * visit shows the link already shared instead of 生成预览 (which would make a new one and end it:
 * an outside review's student did so), under the signed-in user's id (another account on the same
 * browser never sees it) and cleared at sign-out (lib/session.ts).
 */
const previewKey = (projectId: number) => `${USER_DATA_PREFIX}${loadSession()?.user.id ?? 0}.${projectId}`;

function readStoredPreview(projectId: number): PreviewTokenDto | null {
  try {
    const raw = window.localStorage.getItem(previewKey(projectId));
    if (!raw) return null;
    const preview = JSON.parse(raw) as PreviewTokenDto;
    return typeof preview?.preview_url === 'string' && typeof preview.expires_at === 'string'
      ? preview
      : null;
  } catch {
    return null;
  }
}

function storePreview(projectId: number, preview: PreviewTokenDto): void {
  try {
    window.localStorage.setItem(previewKey(projectId), JSON.stringify(preview));
  } catch {
    // storage blocked or full: the link lasts as long as the page
  }
}

function forgetPreview(projectId: number): void {
  try {
    window.localStorage.removeItem(previewKey(projectId));
  } catch {
    // nothing stored
  }
}

export function isPreviewValid(preview: PreviewTokenDto | null | undefined, now = Date.now()): boolean {
  return Boolean(preview && Date.parse(preview.expires_at) > now);
}

/**
 * A project's preview link: reused while it has not expired (kept in the query cache and in
 * sessionStorage, so a reload or another card of the same project shows the same link), made on
 * demand, and forgotten when it runs out or is replaced.
 */
export function usePreviewLink(projectId: number) {
  const queryClient = useQueryClient();
  const key = queryKeys.preview(projectId);
  const stored = useQuery({
    queryKey: key,
    queryFn: () => readStoredPreview(projectId),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const create = useMutation({
    mutationFn: () => projectsApi.createPreview(projectId),
    onSuccess: (preview) => {
      storePreview(projectId, preview);
      queryClient.setQueryData(key, preview);
    },
    // Refused for the version's state (rejected, taken down meanwhile): the page shows it as it is now.
    onError: (error) => {
      if (toApiError(error).status === 409)
        void queryClient.invalidateQueries({ queryKey: queryKeys.projects.detail(projectId) });
    },
  });
  const clear = useCallback(() => {
    forgetPreview(projectId);
    queryClient.setQueryData(queryKeys.preview(projectId), null);
  }, [projectId, queryClient]);

  const preview = isPreviewValid(stored.data) ? (stored.data ?? null) : null;
  return {
    preview,
    generate: create.mutateAsync,
    generating: create.isPending,
    clear,
  };
}
