/**
 * Digest deploys under /api/deploys (docs/decisions.md "Digest deploys"): start with a manifest,
 * PUT each content the server lacks as a raw body, finish into a new pending version.
 */
import { messages, sha256Hex } from '@sitehall/contracts';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { Invalid } from '../domain/errors.js';
import { actorOf } from '../http/access.js';
import { route } from '../http/endpoint-routes.js';
import { metaOf, ok } from '../http/reply.js';
import { uploadDelivery } from '../http/upload-delivery.js';

const m = messages.deploy;

/** A file PUT a minute per deploy: each sends one content, and a first deploy may send thousands. */
const FILE_PUTS_PER_MINUTE = 20_000;

export const deployRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const { deploys } = ctx.services;
    const deployId = (params: unknown) => String((params as { id?: string }).id ?? '');

    route(app, 'startDeploy', async (request, _reply, { body }) => {
      const started = await deploys.start(actorOf(request), body);
      return ok(started, m.deployStarted);
    });

    route(app, 'finishDeploy', async (request, reply) => {
      const project = await deploys.finish(
        actorOf(request),
        deployId(request.params),
        metaOf(request),
        uploadDelivery(request, reply),
      );
      return ok({ project }, m.deployFinished);
    });

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
          await deploys.receiveFile(actorOf(request), deployId(request.params), sha256, request.raw);
          return ok(null, m.fileReceived);
        },
        {
          config: {
            rateLimit: {
              max: FILE_PUTS_PER_MINUTE,
              timeWindow: 60_000,
              keyGenerator: (request: FastifyRequest) => `deploy:${deployId(request.params)}`,
            },
          },
        },
      );
    });
  };
