import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The server serves dist/ in production; in development Vite proxies every server route to it.
const server = process.env.UNIT_SERVER ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [react()],
  // manifest: scripts/bundle-size.mjs reads which chunks the entry loads statically.
  build: { outDir: 'dist', sourcemap: true, chunkSizeWarningLimit: 600, manifest: true },
  server: {
    port: 5173,
    proxy: {
      '/api': server,
      '/esplora': server,
      '/mempool': server,
      '/ordinals': server,
      '/runes': server,
      '/explorer': server,
      '/guardian': { target: server.replace(/^http/, 'ws'), ws: true },
    },
  },
});
