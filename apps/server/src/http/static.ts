// Serves the built web app with an SPA fallback: any GET that is not an API or chain-service path
// gets index.html, so client-side routes (/, /liquidations) survive a reload. The build writes
// brotli and gzip siblings of every asset (apps/web/scripts/precompress.mjs), sent as the client
// accepts; content-hashed assets are cached for a year, the page itself is revalidated each time.
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { notFound } from './errors';
import { loadPageTemplate, sendFirstPage } from './first-page';

/** Prefixes owned by the server itself; unknown paths under them are JSON 404s, not the SPA. */
const SERVER_PREFIXES = [
  '/api',
  '/guardian',
  '/esplora',
  '/mempool',
  '/ordinals',
  '/runes',
  '/explorer',
  // Metrics on a port of their own (METRICS_PORT) or not configured: a 404 here, never the page.
  '/metrics',
];

/** Vite names everything under /assets/ by its content hash: a new build is a new name. */
export const HASHED_ASSET_CACHE = 'public, max-age=31536000, immutable';
export const PAGE_CACHE = 'no-cache';

const MISSING_BUILD_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>UNIT vault: web app not built</title></head>
<body><h1>The web app is not built</h1>
<p>Run <code>npm run build</code> (or <code>npm start</code>, which builds it) from the repository
root, then reload this page. The API is up at <a href="/api/health">/api/health</a>.</p></body></html>`;

export async function registerStatic(app: FastifyInstance, distDir: string): Promise<void> {
  const indexFile = path.join(distDir, 'index.html');
  const built = fs.existsSync(indexFile);
  const manifestFile = path.join(distDir, '.vite', 'manifest.json');
  const template = built
    ? loadPageTemplate(
        fs.readFileSync(indexFile, 'utf8'),
        fs.existsSync(manifestFile) ? fs.readFileSync(manifestFile, 'utf8') : null,
        (file) => {
          const asset = path.join(distDir, file);
          return fs.existsSync(asset) ? fs.readFileSync(asset, 'utf8') : null;
        },
      )
    : null;
  if (built) {
    const assetsDir = path.join(distDir, 'assets') + path.sep;
    await app.register(fastifyStatic, {
      root: distDir,
      wildcard: false,
      index: false,
      preCompressed: true,
      // Set here instead, per file: the plugin's own header would be one max-age for all.
      cacheControl: false,
      setHeaders: (res, filePath) => {
        res.setHeader(
          'cache-control',
          filePath.startsWith(assetsDir) ? HASHED_ASSET_CACHE : PAGE_CACHE,
        );
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    const ownedByServer = SERVER_PREFIXES.some(
      (p) => pathname === p || pathname.startsWith(`${p}/`),
    );
    // A missing asset (a stale page asking for an old hashed bundle) is a 404: answering it with
    // index.html would surface as baffling MIME errors in the browser.
    const isAsset = pathname.startsWith('/assets/') || /\.[a-z0-9]+$/i.test(pathname);
    if (ownedByServer || isAsset || (request.method !== 'GET' && request.method !== 'HEAD')) {
      throw notFound(`No route ${request.method} ${pathname}`);
    }
    if (!template) {
      return reply.status(503).type('text/html; charset=utf-8').send(MISSING_BUILD_PAGE);
    }
    // The page carries its first data (first-page.ts), so it is never cached.
    return sendFirstPage(app, template, request, reply);
  });
}
