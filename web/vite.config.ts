import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The app reads the contracts' sources directly, as the tests do, so no contracts build is needed first.
const contracts = fileURLToPath(new URL('../packages/contracts/src/index.ts', import.meta.url));
const backend = 'http://localhost:3000';

export default defineConfig({
  plugins: [react()],
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
