/**
 * A tiny fake of the server, plugged in as the axios adapter of the app's client: the app's own
 * request and response handling (headers, interceptors, error messages) runs for real.
 */
import { AxiosError, AxiosHeaders, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { apiClient } from '../src/api/client';

export interface FakeRequest {
  method: string;
  url: string;
  params: Record<string, unknown> | undefined;
  body: unknown;
  headers: AxiosHeaders;
  config: InternalAxiosRequestConfig;
}

export interface FakeReply {
  status?: number;
  body?: unknown;
  /** Response headers (e.g. Retry-After). */
  headers?: Record<string, string>;
  /** Simulate a failure without an answer (network down). */
  networkError?: boolean;
}

export type FakeHandler = FakeReply | ((request: FakeRequest) => FakeReply | Promise<FakeReply>);

export const ok = (data: unknown, message?: string): FakeReply => ({
  status: 200,
  body: { success: true, data, ...(message ? { message } : {}) },
});

export const fail = (status: number, message?: string, errors?: Record<string, string>): FakeReply => ({
  status,
  body: { success: false, ...(message !== undefined ? { message } : {}), ...(errors ? { errors } : {}) },
});

/** Routes are keyed "METHOD /path" (without /api and without the query string). */
export function fakeApi(routes: Record<string, FakeHandler> = {}) {
  const requests: FakeRequest[] = [];
  const table = new Map(Object.entries(routes));

  apiClient.defaults.adapter = async (config) => {
    const method = (config.method ?? 'get').toUpperCase();
    const url = (config.url ?? '').split('?')[0] ?? '';
    let body: unknown = config.data;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        // not JSON: keep the raw string
      }
    }
    const request: FakeRequest = {
      method,
      url,
      params: config.params as Record<string, unknown> | undefined,
      body,
      headers: AxiosHeaders.from(config.headers),
      config,
    };
    requests.push(request);

    const handler = table.get(`${method} ${url}`);
    const reply: FakeReply = !handler
      ? fail(404, '接口不存在')
      : typeof handler === 'function'
        ? await handler(request)
        : handler;

    if (reply.networkError) {
      throw new AxiosError('Network Error', AxiosError.ERR_NETWORK, config, {});
    }
    const response: AxiosResponse = {
      data: reply.body,
      status: reply.status ?? 200,
      statusText: String(reply.status ?? 200),
      headers: new AxiosHeaders(reply.headers ?? {}),
      config,
      request: {},
    };
    const validate = config.validateStatus;
    if (!validate || validate(response.status)) return response;
    throw new AxiosError(
      `Request failed with status code ${response.status}`,
      response.status >= 500 ? AxiosError.ERR_BAD_RESPONSE : AxiosError.ERR_BAD_REQUEST,
      config,
      {},
      response,
    );
  };

  return {
    requests,
    /** Adds or replaces a route. */
    on(key: string, handler: FakeHandler) {
      table.set(key, handler);
    },
    calls(key: string) {
      return requests.filter((r) => `${r.method} ${r.url}` === key);
    },
  };
}

export type FakeApi = ReturnType<typeof fakeApi>;
