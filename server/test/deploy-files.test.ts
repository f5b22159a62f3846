/**
 * The files an operator installs (deploy/) start the server the way `npm start` does, so what
 * the benchmarks and the tests measure is what runs in production.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const scripts = JSON.parse(fs.readFileSync(`${root}package.json`, 'utf8')).scripts as Record<string, string>;

describe('how the server is started', () => {
  it('npm start and npm run serve give node the same options', () => {
    // npm start builds only what changed since its last build (scripts/build-if-changed.mjs).
    expect(scripts.start).toBe(`node scripts/build-if-changed.mjs && ${scripts.serve}`);
    // The V8 heap setting of docs/decisions.md ("V8 heap").
    expect(scripts.serve).toMatch(/^node --initial-heap-size=\d+ server\/dist\/main\.js$/);
  });

  it('the systemd unit runs the same command as npm run serve', () => {
    const unit = fs.readFileSync(`${root}deploy/systemd/sitehall@.service`, 'utf8');
    const execStart = /^ExecStart=(.*)$/m.exec(unit)?.[1];
    expect(execStart).toBe(scripts.serve!.replace(/^node /, '/usr/bin/node '));
  });
});
