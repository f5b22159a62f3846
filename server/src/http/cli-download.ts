/**
 * GET /cli/sitehall-cli.tgz: the `sitehall` command as an npm package, packed from packages/cli by
 * the build (packages/cli/scripts/pack.mjs), so that `npm install -g {server}/cli/sitehall-cli.tgz`
 * installs it on any machine with Node (docs/notifications.md "The CLI from the server"). Read once at start
 * (a few tens of KB) and served from memory; the same bytes to everyone, nothing of the account.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CLI_DOWNLOAD_PATH, messages } from '@sitehall/contracts';
import type { FastifyInstance } from 'fastify';

/** Where the build leaves the package. */
export const DEFAULT_CLI_PACKAGE = path.resolve(
  import.meta.dirname,
  '../../../packages/cli/pack/sitehall-cli.tgz',
);

export function registerCliDownload(app: FastifyInstance, file = DEFAULT_CLI_PACKAGE): void {
  let body: Buffer | null = null;
  try {
    body = fs.readFileSync(file);
  } catch {
    app.log.warn(
      { file },
      'CLI package not built: GET /cli/sitehall-cli.tgz answers 404 (run npm run build)',
    );
  }
  const etag = body && `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
  app.route({
    method: ['GET', 'HEAD'],
    url: CLI_DOWNLOAD_PATH,
    config: { access: 'public' },
    handler: async (request, reply) => {
      if (!body || !etag) {
        return reply.code(404).send({ success: false, message: messages.notification.cliNotBuilt });
      }
      reply
        .header('content-type', 'application/gzip')
        .header('content-disposition', 'attachment; filename="sitehall-cli.tgz"')
        .header('etag', etag)
        // A new server version may bring a new package: checked each time, cheap when unchanged.
        .header('cache-control', 'no-cache');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.send(body);
    },
  });
}
