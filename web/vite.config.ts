import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

// The app reads the contracts' sources directly, as the tests do, so no contracts build is needed first.
const contracts = fileURLToPath(new URL('../packages/contracts/src/index.ts', import.meta.url));
const backend = 'http://localhost:3000';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** The types worth compressing; the server sends the copies (server/src/http/web-app.ts). */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt)$/;

/**
 * Writes a brotli (.br, best quality) and a gzip (.gz) copy beside every text file of the build,
 * once, so the server never compresses the app per request. A copy that saves nothing is skipped.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'sitehall-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async writeBundle() {
      const files = (await readdir(outDir, { recursive: true })).filter((name) => COMPRESSIBLE.test(name));
      await Promise.all(
        files.map(async (name) => {
          const file = path.join(outDir, name);
          if (!(await stat(file)).isFile()) return;
          const plain = await readFile(file);
          const [br, gz] = await Promise.all([
            brotli(plain, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
                [constants.BROTLI_PARAM_SIZE_HINT]: plain.length,
              },
            }),
            gzipped(plain, { level: 9 }),
          ]);
          if (br.length < plain.length) await writeFile(`${file}.br`, br);
          if (gz.length < plain.length) await writeFile(`${file}.gz`, gz);
        }),
      );
    },
  };
}

/**
 * The public pages whose code, antd's chunks above all, the server names in index.html's answer
 * (`modulepreload` links): the browser fetches it alongside the main bundle instead of in waves
 * once that has run. Route → the modules its first view imports on demand (web/src/router.tsx:
 * the page, and AntdShell and AntdFeedback when lazyInShell brings them). Not the home page: it
 * carries no antd, and its script budget counts what it preloads (docs/benchmarks.md). The
 * showcase's first view is plain markup: its antd controls load after the cards, unannounced, so
 * they take no bandwidth from them.
 */
const ROUTE_PRELOADS: Record<string, string[]> = {
  '/public': ['src/pages/showcase/ShowcasePage.tsx'],
  '/login': ['src/pages/login/LoginPage.tsx', 'src/AntdShell.tsx', 'src/AntdFeedback.tsx'],
  '/register': ['src/pages/register/RegisterPage.tsx', 'src/AntdShell.tsx', 'src/AntdFeedback.tsx'],
};
/** Read by the server at start (server/src/http/web-app.ts); never sent. */
const ROUTE_PRELOADS_FILE = 'route-preloads.json';

/**
 * Writes ROUTE_PRELOADS_FILE: for each route of ROUTE_PRELOADS, the script files of its modules and
 * everything they import statically, less what index.html already loads, and their stylesheets.
 */
function routePreloads(): Plugin {
  let root = '';
  return {
    name: 'sitehall-route-preloads',
    apply: 'build',
    configResolved(config) {
      root = config.root;
    },
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((file) => file.type === 'chunk');
      const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
      const withImports = (fileName: string, into: Set<string>) => {
        if (into.has(fileName)) return;
        into.add(fileName);
        for (const imported of byName.get(fileName)?.imports ?? []) withImports(imported, into);
      };
      const loadedByIndex = new Set<string>();
      for (const chunk of chunks) if (chunk.isEntry) withImports(chunk.fileName, loadedByIndex);

      const preloads: Record<string, { scripts: string[]; styles: string[] }> = {};
      for (const [route, modules] of Object.entries(ROUTE_PRELOADS)) {
        const files = new Set<string>();
        for (const source of modules) {
          const id = path.resolve(root, source);
          const chunk = chunks.find((c) => c.facadeModuleId === id);
          if (!chunk) this.error(`${source} (ROUTE_PRELOADS ${route}) is no chunk of its own`);
          withImports(chunk.fileName, files);
        }
        const scripts = [...files].filter((file) => !loadedByIndex.has(file));
        const styles = scripts.flatMap((file) => [...(byName.get(file)?.viteMetadata?.importedCss ?? [])]);
        preloads[route] = {
          scripts: scripts.map((file) => `/${file}`),
          styles: styles.map((file) => `/${file}`),
        };
      }
      this.emitFile({ type: 'asset', fileName: ROUTE_PRELOADS_FILE, source: JSON.stringify(preloads) });
    },
  };
}

export default defineConfig({
  plugins: [react(), precompress(), routePreloads()],
  // Every script, module preload and style tag of the built index.html carries this placeholder as
  // its nonce, and Vite's chunk preloader copies it from <meta property="csp-nonce">: the server
  // puts a fresh nonce in its place for each answer, and its CSP allows only scripts with that
  // nonce and those they load (server/src/http/web-app.ts).
  html: { cspNonce: 'SITEHALL_CSP_NONCE' },
  resolve: { alias: { '@sitehall/contracts': contracts } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rolldownOptions: {
      output: {
        // React changes rarely: its own long-cached chunk. Everything else (antd, zod, the data
        // libraries) is left to the automatic splitting, so each page loads only what it uses: a
        // forced group would put a library any page uses into every page's first load.
        codeSplitting: {
          groups: [
            {
              name: 'react',
              test: /node_modules[\\/](react|react-dom|react-router|react-router-dom|scheduler)[\\/]/,
            },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': backend,
      '/sites': backend,
      '/preview': backend,
    },
  },
});
