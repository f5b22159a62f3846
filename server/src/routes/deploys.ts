/**
 * Digest deploys under /api/deploys (docs/decisions/deploys.md "Digest deploys"): start with a manifest,
 * PUT each content the server lacks as a raw body, finish into a new pending version.
 */
import {
  DEPLOY_BATCH_FILES_MAX,
  DEPLOY_MANIFEST_MAX_BYTES,
  DEPLOY_STARTS_MAX,
  DEPLOY_STARTS_WINDOW_MS,
  format,
  formatBytes,
  messages,
  sha256Hex,
} from '@sitehall/contracts';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { Invalid, NotFound, TooManyRequests } from '../domain/errors.js';
import { deployIdParam } from '../domain/ids.js';
import { actorOf } from '../http/access.js';
import { answerRequestTimeout } from '../http/client-errors.js';
import { route } from '../http/endpoint-routes.js';
import { deployBatchParts, watchIdle } from '../http/multipart-upload.js';
import { metaOf, ok } from '../http/reply.js';
import { uploadDelivery } from '../http/upload-delivery.js';
import { presentProjectDetail } from '../presenters/project.js';

const m = messages.deploy;

/** The declared body length of a PUT, when it is a plain byte count. */
function declaredLength(request: FastifyRequest): number | undefined {
  const header = request.headers['content-length'];
  return header && /^\d{1,15}$/.test(header) ? Number(header) : undefined;
}

export const deployRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const { deploys } = ctx.services;
    /** The route's deploy id; anything that can't be one is a deploy that doesn't exist. */
    const deployId = (params: unknown) => {
      const id = deployIdParam((params as { id?: string }).id);
      if (id === null) throw new NotFound(m.deployNotFound);
      return id;
    };

    // Starts count per account, in a budget of their own (refused ones too), instead of the
    // per-address one: each start leases its manifest and may hold bytes until it ends.
    route(
      app,
      'startDeploy',
      async (request, _reply, { body }) => {
        const started = await deploys.start(actorOf(request), body);
        return ok(
          started,
          started.unchanged_version === undefined
            ? m.deployStarted
            : format(m.deployUnchanged, { version: started.unchanged_version }),
        );
      },
      {
        config: {
          rateLimit: {
            max: DEPLOY_STARTS_MAX,
            timeWindow: DEPLOY_STARTS_WINDOW_MS,
            keyGenerator: (request: FastifyRequest) => `deploy-start:${request.actor?.id ?? request.ip}`,
            // An AppError, so the error handler answers this message and Retry-After.
            errorResponseBuilder: (_request, context) =>
              new TooManyRequests(
                format(m.deployStartsExceeded, {
                  n: DEPLOY_STARTS_MAX,
                  window: DEPLOY_STARTS_WINDOW_MS / 60_000,
                  minutes: Math.max(1, Math.ceil(context.ttl / 60_000)),
                }),
                context.ttl / 1000,
              ),
          },
          tooLargeMessage: format(m.manifestTooLarge, { size: formatBytes(DEPLOY_MANIFEST_MAX_BYTES) }),
        },
        // A manifest of thousands of paths is larger than the API's other bodies (1 MiB).
        bodyLimit: DEPLOY_MANIFEST_MAX_BYTES,
      },
    );

    // The client ends a deploy it won't finish (a failure, Ctrl+C): nothing of it waits to expire.
    route(app, 'cancelDeploy', async (request) => {
      await deploys.cancel(actorOf(request), deployId(request.params));
      return ok(null, m.deployCancelled);
    });

    route(app, 'finishDeploy', async (request, reply) => {
      const actor = actorOf(request);
      const project = await deploys.finish(
        actor,
        deployId(request.params),
        metaOf(request),
        uploadDelivery(request, reply),
      );
      return ok({ project: presentProjectDetail(project, actor, ctx.urls) }, m.deployFinished);
    });

    // Several files in one multipart body, each part named by its SHA-256 (the CLI's way since
    // docs/decisions/deploys.md "Batched file uploads"; the PUT below stays for older clients). Per
    // address in the PUTs' budget: a batch is a few of them at most.
    route(
      app,
      'deployFiles',
      async (request) => {
        // One of the account's transfers under way, or 429 before the body is read.
        const ended = deploys.beginTransfer(actorOf(request));
        try {
          const { limits } = await ctx.services.settings.get();
          const batch = deployBatchParts(request, {
            maxFiles: DEPLOY_BATCH_FILES_MAX,
            maxFileBytes: limits.maxFileBytes,
          });
          const unwatch = cutWhenIdle(request, ctx.config.uploadIdleTimeoutMs);
          // A batch refused before the end of its body closes its connection (http/request-bodies.ts):
          // the rest is not read, so it can't carry another request.
          try {
            const n = await deploys.receiveBatch(
              actorOf(request),
              deployId(request.params),
              batch.parts,
              declaredLength(request),
              batch.signal,
            );
            await batch.drained();
            return ok(null, format(m.filesReceived, { n }));
          } finally {
            unwatch();
            batch.done();
          }
        } finally {
          ended();
        }
      },
      {
        config: {
          rateLimit: {
            max: ctx.config.deployPutsPerMinute,
            timeWindow: 60_000,
            keyGenerator: (request: FastifyRequest) => `deploy-put:${request.ip}`,
          },
        },
      },
    );

    // The raw body is the file: any content type, read as a stream by the service (never parsed,
    // never buffered, not bound by the JSON body limit: the upload limits bound it).
    await app.register(async (raw) => {
      raw.removeAllContentTypeParsers();
      raw.addContentTypeParser('*', (_request, _payload, done) => done(null));
      route(
        raw,
        'deployFile',
        async (request) => {
          const sha256 = (request.params as { sha256?: string }).sha256 ?? '';
          if (!sha256Hex.safeParse(sha256).success) throw new Invalid('sha256', m.hashInvalid);
          const ended = deploys.beginTransfer(actorOf(request));
          try {
            const unwatch = cutWhenIdle(request, ctx.config.uploadIdleTimeoutMs);
            try {
              await deploys.receiveFile(
                actorOf(request),
                deployId(request.params),
                sha256,
                request.raw,
                declaredLength(request),
              );
            } finally {
              unwatch();
            }
          } finally {
            ended();
          }
          return ok(null, m.fileReceived);
        },
        {
          // Per address, as every API call, in a budget of its own: a first deploy sends thousands
          // of files, more than the 600 a minute other calls get.
          config: {
            rateLimit: {
              max: ctx.config.deployPutsPerMinute,
              timeWindow: 60_000,
              keyGenerator: (request: FastifyRequest) => `deploy-put:${request.ip}`,
            },
          },
        },
      );
    });
  };

/**
 * A deploy's file body idle (silent, or a trickle: http/multipart-upload.ts watchIdle) for the
 * upload idle limit is answered 408 and its connection closed, as Node answers a request past its
 * timeout; the service then sees a client gone, and keeps nothing of the body (a byte every 20 s
 * had held a deploy's PUT for the 10-minute request limit).
 */
function cutWhenIdle(request: FastifyRequest, idleMs: number): () => void {
  return watchIdle(request, idleMs, () => {
    request.log.info('deploy file body idle: 408, connection closed');
    answerRequestTimeout(request.raw.socket);
  });
}
