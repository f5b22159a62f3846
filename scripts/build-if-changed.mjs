#!/usr/bin/env node
// `npm start`'s build step: runs `npm run build` only when a source the build reads changed since the
// last build it made (or an output is missing), so a second start begins at once. The fingerprint of
// the sources (each file's path, size and modification time) is kept beside the outputs.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** What the build reads: the workspaces' sources and configuration, and the installed versions. */
export const BUILD_INPUTS = [
  'package.json',
  'package-lock.json',
  'tsconfig.base.json',
  'packages/contracts/src',
  'packages/contracts/package.json',
  'packages/contracts/tsconfig.build.json',
  'packages/cli/src',
  'packages/cli/bin',
  'packages/cli/scripts',
  'packages/cli/package.json',
  'packages/cli/tsconfig.build.json',
  'server/src',
  'server/package.json',
  'server/tsconfig.build.json',
  'web/src',
  'web/public',
  'web/index.html',
  'web/package.json',
  'web/vite.config.ts',
  'web/tsconfig.json',
];
/** What the build makes that starting needs. */
export const BUILD_OUTPUTS = [
  'server/dist/main.js',
  'web/dist/index.html',
  'packages/contracts/dist/index.js',
];
const STAMP = 'server/dist/.build-fingerprint';

/** The fingerprint of `inputs` under `dir`: missing ones count too, so adding one changes it. */
export function fingerprint(dir, inputs = BUILD_INPUTS) {
  const hash = createHash('sha256');
  const visit = (rel) => {
    let st;
    try {
      st = fs.statSync(path.join(dir, rel));
    } catch {
      hash.update(`${rel}\0missing\n`);
      return;
    }
    if (st.isDirectory()) {
      for (const name of fs.readdirSync(path.join(dir, rel)).sort()) visit(`${rel}/${name}`);
    } else {
      hash.update(`${rel}\0${st.size}\0${st.mtimeMs}\n`);
    }
  };
  for (const rel of inputs) visit(rel);
  return hash.digest('hex');
}

/** Whether the outputs under `dir` are missing or older than the sources. */
export function needsBuild(dir, { inputs = BUILD_INPUTS, outputs = BUILD_OUTPUTS, stamp = STAMP } = {}) {
  if (outputs.some((rel) => !fs.existsSync(path.join(dir, rel)))) return true;
  let kept = '';
  try {
    kept = fs.readFileSync(path.join(dir, stamp), 'utf8').trim();
  } catch {}
  return kept !== fingerprint(dir, inputs);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  if (!needsBuild(root)) {
    console.log('构建产物已是最新，跳过构建 (build is up to date)');
  } else {
    const before = fingerprint(root);
    const status = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' }).status;
    if (status !== 0) process.exit(status ?? 1);
    // The sources as they were when the build read them: an edit during the build rebuilds next time.
    fs.writeFileSync(path.join(root, STAMP), `${before}\n`);
  }
}
