// Starts the built server for the browser tests on a fresh data folder. E2E_PORT, E2E_WEB_DIST and
// E2E_SERVER_DIST let several runs (or a run against another build) go side by side.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const port = process.env.E2E_PORT ?? '3210';
const dataDir = path.resolve(`.tmp/e2e-data-${port}`);
fs.rmSync(dataDir, { recursive: true, force: true });
fs.mkdirSync(dataDir, { recursive: true });
process.env.DATA_DIR = dataDir;
process.env.PORT = port;
process.env.HOST = '127.0.0.1';
// Warnings and errors only, unless told (playwright.config.ts asks for the request log).
process.env.LOG_LEVEL ??= 'warn';
if (process.env.E2E_WEB_DIST) process.env.WEB_DIST = path.resolve(process.env.E2E_WEB_DIST);
const serverDist = process.env.E2E_SERVER_DIST ? path.resolve(process.env.E2E_SERVER_DIST) : null;
await import(serverDist ? pathToFileURL(path.join(serverDist, 'main.js')).href : '../server/dist/main.js');
