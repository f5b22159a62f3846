// Starts the built server for the browser tests on a fresh data folder. E2E_PORT and E2E_WEB_DIST
// let several runs (or a run against another web build) go side by side.
import fs from 'node:fs';
import path from 'node:path';

const port = process.env.E2E_PORT ?? '3210';
const dataDir = path.resolve(`.tmp/e2e-data-${port}`);
fs.rmSync(dataDir, { recursive: true, force: true });
fs.mkdirSync(dataDir, { recursive: true });
process.env.DATA_DIR = dataDir;
process.env.PORT = port;
process.env.HOST = '127.0.0.1';
process.env.LOG_LEVEL = 'warn';
if (process.env.E2E_WEB_DIST) process.env.WEB_DIST = path.resolve(process.env.E2E_WEB_DIST);
await import('../server/dist/main.js');
