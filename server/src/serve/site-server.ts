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
            if (refuse?.(req, res) || first?.(req, res)) return;
            if (!fastPath.serve(req, res)) handler(req, res);
          }
        : (req, res) => {
            if (refuse?.(req, res) || first?.(req, res)) return;
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
