import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { createServer, defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { criticalStyles } from './scripts/critical-styles.ts';
import { renderDocPages } from './scripts/docs-pages.ts';

/**
 * Prerenders the page's shell (src/app/Shell.tsx: header, welcome text, Create Vault) into the
 * built index.html, so a phone paints it before the script arrives (first contentful
 * paint, `npm run bench`). The shell is static markup beside #root; the app removes it as it takes
 * over (src/app/prerendered-shell.ts). Build only: development keeps the plain page.
 */
function prerenderShell(): Plugin {
  return {
    name: 'unit:prerender-shell',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      async handler(html, ctx) {
        const vite = await createServer({
          configFile: false,
          root: import.meta.dirname,
          logLevel: 'error',
          appType: 'custom',
          server: { middlewareMode: true, hmr: false, ws: false },
          plugins: [react()],
        });
        try {
          const shell = (await vite.ssrLoadModule(
            '/src/app/Shell.tsx',
          )) as typeof import('./src/app/Shell');
          const ids = (await vite.ssrLoadModule(
            '/src/app/prerendered-shell.ts',
          )) as typeof import('./src/app/prerendered-shell');
          const markup = renderToStaticMarkup(createElement(shell.Shell));
          const root = '<div id="root"></div>';
          if (!html.includes(root)) throw new Error('index.html has no empty #root');
          return criticalStyles(
            html.replace(root, `${root}<div id="${ids.SHELL_ID}">${markup}</div>`),
            ctx.bundle ?? {},
          );
        } finally {
          await vite.close();
        }
      },
    },
  };
}

// The server serves dist/ in production; in development Vite proxies every server route to it.
const server = process.env.UNIT_SERVER ?? 'http://127.0.0.1:8080';

/** The product's docs as static pages under /docs/ (scripts/docs-pages.ts). */
function docsPages(): Plugin {
  return {
    name: 'unit:docs-pages',
    apply: 'build',
    generateBundle() {
      for (const page of renderDocPages())
        this.emitFile({ type: 'asset', fileName: page.fileName, source: page.source });
    },
  };
}

export default defineConfig({
  plugins: [react(), prerenderShell(), docsPages()],
  // manifest: scripts/bundle-size.mjs reads which chunks the entry loads statically.
  // One stylesheet for the whole app (cssCodeSplit: false): the page inlines the shell's rules and
  // links it (scripts/critical-styles.ts), and no lazy chunk asks for a sheet of its own.
  build: {
    outDir: 'dist',
    sourcemap: true,
    chunkSizeWarningLimit: 600,
    manifest: true,
    cssCodeSplit: false,
    rolldownOptions: {
      output: {
        // The code the first render needs in one chunk beside the entry, not in a dozen small
        // ones each costing a request (and a round trip queued behind six per host on a slow link).
        codeSplitting: { groups: [{ name: 'first', tags: ['$initial'] }] },
      },
    },
  },
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
