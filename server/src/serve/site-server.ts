/**
 * The HTTP/1 server Fastify runs on: Fastify's own (same options and timeouts) with the /sites
 * fast paths in front of it — on new connections (serve/fast-connections.ts) and on each request
 * Node parses (serve/fast-path.ts). Without a fast path (SITES_FAST_PATH=off) it is Fastify's
 * server and nothing more. The connection path stands on Node internals: they are checked on each
 * server made, and when they are missing the server runs without that path and says why
 * (SiteServerState.connectionsMissing), rather than falling back silently.
 */
import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { FastifyServerFactory } from 'fastify';
import { missingConnectionInternals, serveFastConnections } from './fast-connections.js';
import type { SiteFastPath } from './fast-path.js';

/** Answers a request itself (true) or leaves it to the fast path and Fastify (false). */
export type RequestListenerFirst = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface SiteServerOptions {
  /** Asked first on every request of every server made (the head's size, app.ts). */
  refuse?: RequestListenerFirst;
  /** The fast path, or null when it is off (SITES_FAST_PATH=off): Fastify answers everything. */
  fastPath: SiteFastPath | null;
  /**
   * Given a maker of more servers like this one (the sites port's, app.ts): same options, fast
   * path and Fastify behind it, with `first` asked before anything else on each request.
   */
  twin?: (make: (first: RequestListenerFirst) => http.Server) => void;
  /**
   * Applied to each server before its internals are checked. Tests take Node's internals away
   * with it to see the server say so; nothing else sets it.
   */
  alterServer?: (server: http.Server) => void;
  /** Answers a request whose `Expect` is not 100-continue (Node's 'checkExpectation'). */
  refuseExpectation?: RequestListener;
}

/** What the factory found while making its servers, for the start log and /readyz. */
export interface SiteServerState {
  /** Why the connection fast path is not used (Node internals missing), or null. */
  connectionsMissing: string | null;
}

export function siteServerFactory(
  opts: SiteServerOptions,
  state: SiteServerState = { connectionsMissing: null },
): FastifyServerFactory {
  const fastPath = opts.fastPath;
  return (handler, fastifyOptions) => {
    // Fastify's options after its defaults; typed loosely by Fastify.
    const fo = fastifyOptions as {
      http?: http.ServerOptions;
      keepAliveTimeout?: number;
      requestTimeout?: number;
      connectionTimeout?: number;
    };
    const refuse = opts.refuse;
    const make = (first?: RequestListenerFirst) => {
      const listener: RequestListener = fastPath
        ? (req, res) => {
            if (refuse?.(req, res)) return;
            toOriginForm(req);
            if (first?.(req, res)) return;
            if (!fastPath.serve(req, res)) handler(req, res);
          }
        : (req, res) => {
            if (refuse?.(req, res)) return;
            toOriginForm(req);
            if (first?.(req, res)) return;
            handler(req, res);
          };
      const server = http.createServer(fo.http ?? {}, listener);
      if (fo.keepAliveTimeout !== undefined) server.keepAliveTimeout = fo.keepAliveTimeout;
      if (fo.requestTimeout !== undefined) server.requestTimeout = fo.requestTimeout;
      if (fo.connectionTimeout !== undefined) server.setTimeout(fo.connectionTimeout);
      // "A half-closed TCP connection does not [...] imply that the client is no longer interested
      // in a response" (RFC 9112, Message Body Length): answer every request already read, then
      // close. Node's default closes at the client's end, dropping answers still being made or
      // queued behind a pipelined one. The switch is untyped; Node's own tests set it.
      (server as { httpAllowHalfOpen?: boolean }).httpAllowHalfOpen = true;
      if (opts.refuseExpectation) server.on('checkExpectation', opts.refuseExpectation);
      opts.alterServer?.(server);
      if (fastPath) {
        const missing = missingConnectionInternals(server);
        if (missing) state.connectionsMissing = missing;
        else serveFastConnections(server, () => fastPath);
      }
      return server;
    };
    opts.twin?.(make);
    return make();
  };
}

/** `http://host[:port]` and what follows, when a request's target is a full address. */
const ABSOLUTE_FORM = /^https?:\/\/([^/?#@\s]+)([/?][^#]*)?$/i;

/**
 * A request whose target is a full address (absolute-form, `GET http://p12.localhost:3001/x`) is
 * read as its origin-form (`/x`) with its address's host as Host: RFC 9112 §3.2.2 has a server
 * accept it and go by its authority, not the Host header. Fastify's router already found /api
 * routes under it, but the site code read the URL as it came, and every site address answered
 * 404 (docs/decisions/serving.md "Site paths"). Anything else (`*`, another scheme, an address
 * with credentials) is left as it came.
 */
function toOriginForm(req: IncomingMessage): void {
  const url = req.url;
  if (url === undefined || url.charCodeAt(0) === 47 /* '/' */) return;
  const m = ABSOLUTE_FORM.exec(url);
  if (!m) return;
  req.headers.host = m[1]!;
  const rest = m[2] ?? '';
  req.url = rest.startsWith('/') ? rest : `/${rest}`;
}
