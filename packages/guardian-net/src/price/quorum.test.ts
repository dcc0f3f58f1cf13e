// The coordinator's side of the price quorum against guardians that answer badly: each stands in
// as a local HTTP server on /v1/price (the real guardian is in test/price-quorum.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GuardianSetBody } from '../guardian-set';
import { newIdentity } from '../identity';
import { collectPriceQuorum, PRICE_PATH } from './quorum';
import { priceQuorumCommitment, signPrice } from './signed-price';

const ids = [1, 2, 3, 4, 5].map(() => newIdentity());
const now = Math.floor(Date.now() / 1000);
const price = (guardian: number, priceCents = 9_500_000, by = guardian) =>
  signPrice(ids[by - 1]!.secretKey, { guardian, setVersion: 3, priceCents, time: now });
let answer: Record<number, (res: ServerResponse) => void> = {};
const servers: Server[] = [];
let set: GuardianSetBody;

beforeAll(async () => {
  const members = [];
  for (const [i, id] of ids.entries()) {
    const server = createServer((req, res) => {
      if (req.url !== PRICE_PATH) return void res.writeHead(404).end();
      answer[i + 1]!(res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    const { port } = server.address() as AddressInfo;
    members.push({
      id: i + 1,
      name: `g${i + 1}`,
      identityKey: id.publicKey,
      url: `http://127.0.0.1:${port}`,
    });
  }
  set = { kind: 'unit/guardian-set', version: 3, t: 3, n: 5, members, coordinators: [] };
});

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const json =
  (body: unknown, status = 200) =>
  (res: ServerResponse) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

describe('collecting a price quorum from guardians that misbehave', () => {
  it('counts only each guardian’s own valid signature for this set, and names the rest', async () => {
    answer = {
      1: json(price(1)),
      2: json(price(2, 9_510_000)),
      3: json(price(3, 9_490_000)),
      4: json(price(1)), // another guardian's genuine price
      5: json({ ...price(5), priceCents: 1_000_000 }), // altered after signing
    };
    const q = await collectPriceQuorum(set, { timeoutMs: 2_000 });
    expect(q.valid).toBe(true);
    if (!q.valid) return;
    expect(q.priceCents).toBe(9_500_000);
    expect(q.prices.map((p) => p.guardian)).toEqual([1, 2, 3]);
    expect(q.commitment).toBe(priceQuorumCommitment(q.prices));
    expect(q.left).toEqual([
      { guardian: 4, reason: "answered with guardian 1's price" },
      { guardian: 5, reason: 'price signature does not verify' },
    ]);
  });

  it('refuses a quote with fewer than t good prices, naming hangs, oversize, garbage and refusals', async () => {
    answer = {
      1: json(price(1)),
      2: json(price(2)),
      3: () => {}, // hangs
      4: (res) => res.writeHead(200).end('x'.repeat(10_000)),
      5: json(
        { error: { code: 'no-price', message: 'no fresh price: 0 fresh price sources' } },
        503,
      ),
    };
    // Long enough that the four who do answer are in on a loaded machine; the hang costs it whole.
    const q = await collectPriceQuorum(set, { timeoutMs: 1_500 });
    expect(q).toMatchObject({ valid: false, reason: '2 guardian prices agree, 3 needed' });
    expect(q.left).toEqual([
      { guardian: 3, reason: 'no answer within 1500 ms' },
      { guardian: 4, reason: 'answer too large' },
      { guardian: 5, reason: 'no fresh price: 0 fresh price sources' },
    ]);
  });

  it('refuses a price signed for another set version or with a malformed shape', async () => {
    const old = signPrice(ids[0]!.secretKey, {
      guardian: 1,
      setVersion: 2,
      priceCents: 9_500_000,
      time: now,
    });
    answer = {
      1: json(old),
      2: json({ ...price(2), extra: true }),
      3: (res) => res.writeHead(200).end('<html>'),
      4: json(price(4)),
      5: json(price(5)),
    };
    const q = await collectPriceQuorum(set, { timeoutMs: 2_000 });
    expect(q.valid).toBe(false);
    expect(q.left).toEqual([
      { guardian: 1, reason: 'signed for set version 2' },
      { guardian: 2, reason: 'not a signed price' },
      { guardian: 3, reason: 'non-JSON answer (HTTP 200)' },
    ]);
  });
});
