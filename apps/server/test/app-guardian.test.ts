// The guardian as `npm start` serves it: mounted at /guardian on the real app, on the devnet whose
// treasury the app's keys own, with the liquidation sweep following the oracle's ticks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestApp, type RunningApp } from './support';

function call(url: string, method: string, params: unknown): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('error', reject);
    socket.once('open', () =>
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })),
    );
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as Record<string, unknown>;
      if (message.id !== 1) return;
      socket.close();
      resolve(message);
    });
  });
}

describe('the app serves the guardian', () => {
  let unit: RunningApp;
  let guardianUrl: string;
  beforeAll(async () => {
    unit = await startTestApp();
    guardianUrl = `${unit.url.replace('http', 'ws')}/guardian`;
  });
  afterAll(() => unit.stop());

  it('reserves the devnet treasury UNIT output for a new vault over /guardian', async () => {
    const reply = await call(guardianUrl, 'unit.reserve', {
      unit_amount: 10_000,
      vault_action: 'open',
      vault_pubkey: 'ab'.repeat(32),
    });
    const result = reply.result as {
      treasury_utxo: { unit_amount: number };
      treasury_address: string;
    };
    expect(reply.error).toBeUndefined();
    expect(result.treasury_utxo.unit_amount).toBeGreaterThanOrEqual(10_000);
    expect(result.treasury_address).toBe(unit.guardian.treasuryAddress);
  });

  it('answers malformed params with a bad_request error, not a dropped socket', async () => {
    const reply = await call(guardianUrl, 'unit.reserve', { unit_amount: -1 });
    expect(reply.error).toMatchObject({ code: -32602, data: { code: 'bad_request' } });
  });

  it('serves the guardian key it co-signs with in /api/config', async () => {
    const config = (await (await fetch(`${unit.url}/api/config`)).json()) as {
      guardPubkey: string;
    };
    expect(config.guardPubkey).toBe(unit.guardian.guardPubkey);
  });
});
