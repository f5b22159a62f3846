import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The app reads the contracts' sources directly, as the tests do, so no contracts build is needed first.
const contracts = fileURLToPath(new URL('../packages/contracts/src/index.ts', import.meta.url));
const backend = 'http://localhost:3000';

export default defineConfig({
  plugins: [react()],
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
        // React and the data libraries change rarely: their own long-cached chunks. antd is left to the
        // automatic splitting, so each lazy page only loads the components it uses.
        codeSplitting: {
          groups: [
            {
              name: 'react',
              test: /node_modules[\\/](react|react-dom|react-router|react-router-dom|scheduler)[\\/]/,
            },
            { name: 'data', test: /node_modules[\\/](axios|@tanstack|zod)[\\/]/ },
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
