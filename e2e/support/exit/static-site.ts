// The built web app (apps/web/dist) served as plain files, as any static host would serve it: no
// app server, no /api. A path that is no file gets index.html (the app's own routes, /exit among
// them), as a single-page host is set up to do.
import { readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

export interface StaticSite {
  url: string;
  /** every path asked for, in order: the journey checks nothing reached for an API */
  requests: string[];
  close(): Promise<void>;
}

async function fileFor(root: string, urlPath: string): Promise<string> {
  const wanted = normalize(join(root, decodeURIComponent(urlPath)));
  if (wanted.startsWith(root)) {
    const found = await stat(wanted).catch(() => null);
    if (found?.isFile()) return wanted;
  }
  return join(root, 'index.html');
}

export async function serveStatic(dir: string): Promise<StaticSite> {
  const root = resolve(dir);
  await stat(join(root, 'index.html')).catch(() => {
    throw new Error(`${root} holds no built app: run npm run build first.`);
  });
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://static').pathname;
    requests.push(path);
    void fileFor(root, path)
      .then(async (file) => {
        const body = await readFile(file);
        res
          .writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' })
          .end(req.method === 'HEAD' ? undefined : body);
      })
      .catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
