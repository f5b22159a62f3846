/**
 * A server in a child process, for tests that kill it (kill -9) mid-work or run several at once.
 * Reads its config from SITEHALL_TEST_CONFIG (JSON: dataDir, database, and optionally port, env —
 * more environment such as REDIS_URL — and viewFlushMs) and prints "PORT <n>" once listening.
 * SIGTERM closes it as main.ts does (counted views are flushed first).
 */
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';

const spec = JSON.parse(process.env.SITEHALL_TEST_CONFIG ?? '{}');
const config = loadConfig(
  {
    NODE_ENV: 'test',
    DATA_DIR: spec.dataDir,
    LOG_LEVEL: 'silent',
    WEB_DIST: `${spec.dataDir}/no-web`,
    // Listens on one port only (a sites port would be PORT + 1 of the default PORT).
    SITES_PORT: '0',
    ...spec.env,
  },
  spec.database ? { database: spec.database } : {},
);
const { app } = await buildApp(config, {
  logger: false,
  ...(spec.viewFlushMs ? { viewFlushMs: spec.viewFlushMs } : {}),
});
process.on('SIGTERM', () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
await app.listen({ port: spec.port ?? 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`PORT ${typeof address === 'object' && address ? address.port : 0}\n`);
