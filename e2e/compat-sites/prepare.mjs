// The generated sites of the browser compatibility suite (e2e/compat.e2e.ts), built at test time
// from npm packages: Docusaurus's classic template, VitePress's default theme as `vitepress init`
// writes it, and pdf.js's viewer (pdfjs-dist's viewer components with its fonts and maps).
//
// The generators (1,400 packages, Docusaurus's bundlers among them) are installed apart from the
// app's tree, from this folder's package.json and lock, into a cache folder named by their hash
// (~/.cache/sitehall-compat/{hash}, or COMPAT_SITES_CACHE); each site is built there once. A second
// run, and CI on the same machine, reuse both: `node e2e/compat-sites/prepare.mjs` prints the folder
// of each built site as JSON. docs/decisions/tests.md "Generated sites are built at test time".
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MANIFESTS = ['package.json', 'package-lock.json'];
const BUILDERS = fs.readFileSync(fileURLToPath(import.meta.url));

const hashOf = (...parts) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex').slice(0, 16);
};

/** The generators' folder by the manifests' hash; the built sites' by this file's too. */
function cacheRoot() {
  const manifests = MANIFESTS.map((name) => fs.readFileSync(path.join(HERE, name)));
  const base = process.env.COMPAT_SITES_CACHE ?? path.join(os.homedir(), '.cache', 'sitehall-compat');
  return path.join(base, hashOf(...manifests));
}

const log = (text) => process.stderr.write(`[compat-sites] ${text}\n`);

function run(cmd, args, cwd) {
  execFileSync(cmd, args, {
    cwd,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, CI: 'true' },
  });
}

/** Once per folder: `make` writes into a temporary folder, renamed into place when it succeeded. */
function once(dir, make) {
  if (fs.existsSync(dir)) return dir;
  const tmp = `${dir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  const started = Date.now();
  make(tmp);
  fs.renameSync(tmp, dir);
  log(`${path.basename(dir)}: ${Math.round((Date.now() - started) / 1000)} s`);
  return dir;
}

function install(root) {
  return once(path.join(root, 'generators'), (tmp) => {
    for (const name of MANIFESTS) fs.copyFileSync(path.join(HERE, name), path.join(tmp, name));
    // `install`, not `ci`: npm 11 leaves some platforms' optional packages (@swc/html-*) out of a
    // lock it writes, and `ci` then refuses it. No install scripts: none of these needs one.
    run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save'],
      tmp,
    );
  });
}

function docusaurus(root, generators) {
  return once(path.join(root, 'docusaurus'), (out) => {
    // What `create-docusaurus my-site classic` writes: the shared files, then the template's own.
    const src = path.join(generators, 'site-docusaurus');
    fs.rmSync(src, { recursive: true, force: true });
    const templates = path.join(generators, 'node_modules/create-docusaurus/templates');
    fs.cpSync(path.join(templates, 'shared'), src, { recursive: true });
    fs.cpSync(path.join(templates, 'classic'), src, { recursive: true });
    fs.rmSync(path.join(src, 'package.json'));
    const bin = path.join(generators, 'node_modules/@docusaurus/core/bin/docusaurus.mjs');
    run(process.execPath, [bin, 'build', src, '--out-dir', out], generators);
  });
}

function vitepress(root, generators) {
  return once(path.join(root, 'vitepress'), (out) => {
    const src = path.join(generators, 'site-vitepress');
    fs.rmSync(src, { recursive: true, force: true });
    fs.mkdirSync(src);
    // `vitepress init` with its defaults (./docs is here ./site-vitepress, the default theme).
    const script = `
      import { build, scaffold, ScaffoldThemeType } from 'vitepress';
      scaffold({ root: 'site-vitepress', title: 'VitePress 兼容性', description: '站点展厅的兼容性测试',
        theme: ScaffoldThemeType.Default, useTs: false, injectNpmScripts: false });
      await build('site-vitepress', { outDir: ${JSON.stringify(out)} });
    `;
    fs.writeFileSync(path.join(generators, 'build-vitepress.mjs'), script);
    run(process.execPath, ['build-vitepress.mjs'], generators);
  });
}

/** pdf.js's viewer laid out as its generic viewer is (build/ and web/, fonts and maps under web/). */
function pdfjs(root, generators) {
  return once(path.join(root, 'pdfjs'), (out) => {
    const dist = path.join(generators, 'node_modules/pdfjs-dist');
    fs.cpSync(path.join(dist, 'build'), path.join(out, 'build'), { recursive: true });
    fs.cpSync(path.join(dist, 'web'), path.join(out, 'web'), { recursive: true });
    for (const dir of ['standard_fonts', 'cmaps', 'wasm', 'iccs'])
      fs.cpSync(path.join(dist, dir), path.join(out, 'web', dir), { recursive: true });
    fs.copyFileSync(path.join(dist, 'LICENSE'), path.join(out, 'LICENSE'));
  });
}

export function prepareCompatSites() {
  const root = cacheRoot();
  fs.mkdirSync(root, { recursive: true });
  const generators = install(root);
  const built = path.join(root, `built-${hashOf(BUILDERS)}`);
  fs.mkdirSync(built, { recursive: true });
  return {
    docusaurus: docusaurus(built, generators),
    vitepress: vitepress(built, generators),
    pdfjs: pdfjs(built, generators),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${JSON.stringify(prepareCompatSites())}\n`);
}
