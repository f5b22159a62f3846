#!/usr/bin/env node
// Packs the built command into pack/sitehall-cli.tgz, the file the server offers at
// GET /cli/sitehall-cli.tgz (server/src/http/cli-download.ts), so that
// `npm install -g http://server/cli/sitehall-cli.tgz` installs it on any machine with Node.
// Run by `npm run build` after tsc; the name has no version, so the address never changes.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const here = path.resolve(import.meta.dirname, '..');
const out = path.join(here, 'pack');
fs.mkdirSync(out, { recursive: true });
const [packed] = JSON.parse(
  execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out], {
    cwd: here,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }),
);
fs.renameSync(path.join(out, packed.filename), path.join(out, 'sitehall-cli.tgz'));
