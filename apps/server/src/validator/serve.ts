// `--serve <port>`: the validator answers `GET /ledger/<height>` (and `/ledger/tip`) with the
// ledger it rebuilt, in the app's `/api/ledger` form, so the app (VALIDATOR_URLS) or anyone can
// compare. Read-only, GET only, a bounded path, and a per-address limit on reads.
import http from 'node:http';
import { ledgerJson } from '@unit/bitcoin';
import type { Validator } from './follow';

/** Reads per client address per minute. */
export const VALIDATOR_READS_PER_MINUTE = 120;
const MAX_CLIENTS_TRACKED = 10_000;

export function serveLedger(validator: Validator, port: number, host = '127.0.0.1'): http.Server {
  const reads = new Map<string, { count: number; since: number }>();
  const limited = (address: string) => {
    const now = Date.now();
    const entry = reads.get(address);
    if (!entry || now - entry.since >= 60_000) {
      if (reads.size >= MAX_CLIENTS_TRACKED) reads.clear();
      reads.set(address, { count: 1, since: now });
      return false;
    }
    return ++entry.count > VALIDATOR_READS_PER_MINUTE;
  };
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, {
        'content-type': 'application/json',
        'access-control-allow-origin': '*',
      });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET') return send(405, { error: 'Only GET is answered here.' });
    if (limited(req.socket.remoteAddress ?? '')) {
      res.setHeader('retry-after', '60');
      return send(429, { error: 'Too many reads from this address; try again in a minute.' });
    }
    const match = /^\/ledger\/(tip|\d{1,9})$/.exec(req.url ?? '');
    if (!match) return send(404, { error: 'Not found; ask for /ledger/<height> or /ledger/tip.' });
    const height = match[1] === 'tip' ? validator.height - 1 : Number(match[1]);
    const ledger = validator.ledgerAt(height);
    if (!ledger)
      return send(404, {
        error: `This validator has not read block ${height} yet; it has read up to ${validator.height - 1}.`,
      });
    return send(200, ledgerJson(height, ledger));
  });
  server.listen(port, host);
  return server;
}
