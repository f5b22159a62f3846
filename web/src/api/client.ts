/**
 * The one HTTP client of the app (docs/product.md §7, §8): base /api, 10 s timeout, the stored bearer token on
 * every request, one error type with the server's Chinese message, and sign-out on HTTP 401.
 */
import {
  type ApiFailure,
  type ApiSuccess,
  commonMessages,
  type EndpointBody,
  type EndpointData,
  type EndpointKey,
  type EndpointQuery,
  endpointPath,
  endpoints,
  type PathParams,
} from '@sitehall/contracts';
import axios, { AxiosError, type AxiosRequestConfig } from 'axios';
import { clearSession, storedToken } from '../lib/session';

declare module 'axios' {
  interface AxiosRequestConfig {
    /** No time limit for this call (uploads of large archives). */
    noTimeout?: boolean;
    /** A 401 from this call is the caller's business: no sign-out, no redirect (the login call). */
    skipAuthRedirect?: boolean;
  }
}

/** A failed API call, with the message to show the user. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    message: string,
    /** HTTP status, or 0 when no response arrived (network failure, timeout). */
    readonly status: number,
    /** The message the server sent, if any; screens with their own fallback (登录失败) use this. */
    readonly serverMessage: string | null,
    /** Per-field messages from the server's `errors` object. */
    readonly fieldErrors: Record<string, string> = {},
    /** Seconds from the answer's Retry-After (a 429 or 503), or null without one. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

/** How long a request may wait for its answer before 请求超时 (the web app's own; the CLI's is longer). */
const REQUEST_TIMEOUT_MS = 10_000;

export const apiClient = axios.create({
  baseURL: '/api',
  timeout: REQUEST_TIMEOUT_MS,
  headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
});

apiClient.interceptors.request.use((config) => {
  const token = storedToken();
  if (token) config.headers.set('Authorization', `Bearer ${token}`);
  else config.headers.delete('Authorization');
  // The browser writes the multipart content type itself, with its boundary. `false` (rather
  // than deleting it) also stops axios from filling in a form-urlencoded default.
  if (typeof FormData !== 'undefined' && config.data instanceof FormData) {
    config.headers.set('Content-Type', false);
  }
  if (config.noTimeout) config.timeout = 0;
  return config;
});

/** Told the server's reason, when it gave one (账号已被停用 for a disabled account). */
type UnauthorizedListener = (reason: string | null) => void;
let unauthorizedListener: UnauthorizedListener | null = null;

/**
 * Registers what happens after a 401 once the stored session is cleared. The auth provider
 * routes to /login remembering the page; without one, the browser loads /login.
 */
export function onUnauthorized(listener: UnauthorizedListener): () => void {
  unauthorizedListener = listener;
  return () => {
    if (unauthorizedListener === listener) unauthorizedListener = null;
  };
}

let adminRefusedListener: (() => void) | null = null;

/**
 * Registers what happens when a call is refused 403 只有管理员可以执行此操作: the account was made a
 * user while the app still shows it the admin panel. The auth provider asks who it is again
 * (docs/decisions/web-app.md "A role taken away").
 */
export function onAdminRefused(listener: () => void): () => void {
  adminRefusedListener = listener;
  return () => {
    if (adminRefusedListener === listener) adminRefusedListener = null;
  };
}

function serverMessageOf(data: unknown): string | null {
  if (data && typeof data === 'object' && 'message' in data) {
    const message = (data as Partial<ApiFailure>).message;
    if (typeof message === 'string' && message.trim()) return message;
  }
  return null;
}

function fieldErrorsOf(data: unknown): Record<string, string> {
  if (data && typeof data === 'object' && 'errors' in data) {
    const errors = (data as Partial<ApiFailure>).errors;
    if (errors && typeof errors === 'object') return errors;
  }
  return {};
}

/** Retry-After in seconds (the server sends seconds, never a date), or null. */
function retryAfterOf(value: unknown): number | null {
  if (typeof value !== 'string' || !/^\d+$/.test(value.trim())) return null;
  return Number(value.trim());
}

/** Turns any failure of a call into an ApiError with a message fit to show. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (axios.isAxiosError(error)) {
    const status = error.response?.status ?? 0;
    const data = error.response?.data;
    const serverMessage = serverMessageOf(data);
    const timedOut = !error.response && error.code === AxiosError.ECONNABORTED;
    const fallback = timedOut ? commonMessages.timeout : commonMessages.network;
    return new ApiError(
      serverMessage ?? fallback,
      status,
      serverMessage,
      fieldErrorsOf(data),
      retryAfterOf(error.response?.headers?.['retry-after']),
    );
  }
  return new ApiError(commonMessages.network, 0, null);
}

apiClient.interceptors.response.use(
  (response) => response,
  (error: unknown) => {
    const apiError = toApiError(error);
    const config = axios.isAxiosError(error) ? error.config : undefined;
    if (apiError.status === 401 && !config?.skipAuthRedirect) {
      clearSession();
      if (unauthorizedListener) unauthorizedListener(apiError.serverMessage);
      else if (window.location.pathname !== '/login') window.location.assign('/login');
    }
    if (apiError.status === 403 && apiError.serverMessage === commonMessages.adminOnly)
      adminRefusedListener?.();
    return Promise.reject(apiError);
  },
);

/** The message to show for a failed call: the server's, else the network fallback. */
export function errorMessage(error: unknown): string {
  return toApiError(error).message;
}

async function unwrap<T>(request: Promise<{ data: ApiSuccess<T> }>): Promise<T> {
  const response = await request;
  return response.data.data;
}

export const http = {
  get: <T>(url: string, config?: AxiosRequestConfig) => unwrap<T>(apiClient.get(url, config)),
  post: <T>(url: string, body?: unknown, config?: AxiosRequestConfig) =>
    unwrap<T>(apiClient.post(url, body, config)),
  put: <T>(url: string, body?: unknown, config?: AxiosRequestConfig) =>
    unwrap<T>(apiClient.put(url, body, config)),
  patch: <T>(url: string, body?: unknown, config?: AxiosRequestConfig) =>
    unwrap<T>(apiClient.patch(url, body, config)),
  delete: <T>(url: string, config?: AxiosRequestConfig) => unwrap<T>(apiClient.delete(url, config)),
};

/** The path parameters of an endpoint, when its path has any. */
type ParamsArg<K extends EndpointKey> = [PathParams<(typeof endpoints)[K]['path']>] extends [never]
  ? { params?: undefined }
  : { params: Record<PathParams<(typeof endpoints)[K]['path']>, string | number> };

export type CallArgs<K extends EndpointKey> = ParamsArg<K> & {
  query?: EndpointQuery<K>;
  /** The JSON body, or a FormData for a multipart endpoint. */
  body?: EndpointBody<K> | FormData;
  config?: AxiosRequestConfig;
};

/**
 * Calls an endpoint of the table (packages/contracts/src/endpoints.ts) by its key: the method and
 * path come from the table, and the answer's `data` has the table's type, so no module restates a
 * URL or a response type.
 */
export function call<K extends EndpointKey>(
  key: K,
  // biome-ignore lint/complexity/noBannedTypes: `{} extends X` asks whether every field of X is optional
  ...[args]: {} extends CallArgs<K> ? [CallArgs<K>?] : [CallArgs<K>]
) {
  const endpoint = endpoints[key];
  const url = endpointPath(endpoint, args?.params);
  return unwrap<EndpointData<K>>(
    apiClient.request({
      ...args?.config,
      method: endpoint.method,
      url,
      ...(args?.query !== undefined ? { params: args.query } : {}),
      ...(args?.body !== undefined ? { data: args.body } : {}),
    }),
  );
}

/** The URL of an endpoint under /api (for calls that are not the JSON envelope, such as downloads). */
export function endpointUrl<K extends EndpointKey>(key: K, params?: Record<string, string | number>): string {
  return endpointPath(endpoints[key], params);
}
