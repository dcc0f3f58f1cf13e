// `npm run devnet -- serve`: the devnet playing a network answers a network's services and its
// faucet and mine controls, nothing of the product, and premines its UNIT to the address given.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UnitOutputDto } from '@unit/protocol';
import { serveNetwork, type ServedNetwork } from '../../src/devnet/serve';
import { TREASURY } from './fixtures';

let served: ServedNetwork;
let dataDir: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-serve-'));
  served = await serveNetwork({
    dataDir,
    host: '127.0.0.1',
    port: 0,
    blockIntervalMs: 0,
    unitTo: TREASURY.trAddress,
  });
});

afterAll(async () => {
  await served.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('the devnet serving a network', () => {
  it("answers the chain's services, readable from another origin, and premines UNIT to the address", async () => {
    const tip = await fetch(`${served.url}/esplora/blocks/tip/height`);
    expect(tip.headers.get('access-control-allow-origin')).toBe('*');
    const height = Number(await tip.text());
    const fees = await fetch(`${served.url}/mempool/signet/api/v1/fees/recommended`);
    expect(fees.status).toBe(200);
    const units = (await (
      await fetch(`${served.url}/runes/address/${TREASURY.trAddress}/outputs`)
    ).json()) as UnitOutputDto[];
    expect(units.reduce((sum, o) => sum + o.unit_amount, 0)).toBeGreaterThan(0);
    const rune = await fetch(`${served.url}/ord/rune/1:1`, {
      headers: { accept: 'application/json' },
    });
    expect(((await rune.json()) as { id: string }).id).toBe(served.devnet.unitRuneId);
    // Its controls: a block on demand.
    const mined = await fetch(`${served.url}/api/devnet/mine`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ blocks: 1 }),
    });
    expect(((await mined.json()) as { height: number }).height).toBe(height + 1);
  });

  it('serves nothing of the product', async () => {
    for (const route of ['/api/config', '/api/bitcoin-price', '/guardian', '/'])
      expect((await fetch(`${served.url}${route}`)).status, route).toBe(404);
  });
});
