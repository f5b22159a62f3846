/**
 * A server in a child process, for tests that kill it (kill -9) mid-work or run several at once.
 * Reads its config from SITEHALL_TEST_CONFIG (JSON: dataDir, database, and env: more environment
 * variables for loadConfig) and prints "PORT <n>" once listening.
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
    ...spec.env,
  },
  spec.database ? { database: spec.database } : {},
);
const { app } = await buildApp(config, { logger: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`PORT ${typeof address === 'object' && address ? address.port : 0}\n`);
