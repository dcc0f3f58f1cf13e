// One instance plays the network (a devnet serving esplora, mempool and ord routes); a second runs
// as an operator would on signet with RUNES_API=ord against it, and its web app reads runes through
// the second server, which reads them from ord's JSON API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigDto, UnitOutputDto, UtxoDto } from '@unit/protocol';
import { getJson, startTestApp, type RunningApp } from './support';
import { signetEnvFor } from './operator/network';

describe('an instance on signet reading runes through ord, the devnet playing the network', () => {
  let network: RunningApp;
  let signet: RunningApp;
  let treasuryAddress: string;

  beforeAll(async () => {
    network = await startTestApp({});
    const devnet = network.devnet!;
    const [id] = [devnet.unitRuneId];
    const [block, tx] = id.split(':').map(Number);
    const etching = (await devnet.getTx((await devnet.txidAt(block!, tx!))!))!;
    treasuryAddress = etching.outputs[0]!.address!;
    signet = await startTestApp({
      ...signetEnvFor(network.url, { unitRuneId: id, guardianKey: '22'.repeat(32) }),
      ORDINALS_URL: `${network.url}/ord`,
      RUNES_URL: `${network.url}/ord`,
      RUNES_API: 'ord',
    });
  });
  afterAll(async () => {
    await signet?.stop();
    await network?.stop();
  });

  it('points its page at its own indexer routes', async () => {
    const config = (await getJson(`${signet.url}/api/config`)).body as ConfigDto;
    expect(config.runesUrl).toBe('/api/indexer');
    expect(config.ordinalsUrl).toBe('/api/indexer');
    expect(config.esploraUrl).toBe(`${network.url}/esplora`);
    // The devnet itself keeps its own routes.
    const own = (await getJson(`${network.url}/api/config`)).body as ConfigDto;
    expect(own.runesUrl).toBe('/runes');
  });

  it('answers UNIT outputs and payment outputs as the network books them', async () => {
    const devnet = network.devnet!;
    const outputs = await getJson(`${signet.url}/api/indexer/address/${treasuryAddress}/outputs`);
    expect(outputs.status).toBe(200);
    const expected = await devnet.unitOutputs(treasuryAddress);
    expect(expected.length).toBeGreaterThan(0);
    expect(outputs.body as UnitOutputDto[]).toEqual(expected);

    const faucet = devnet.faucetAddress;
    const utxos = await getJson(`${signet.url}/api/indexer/address/${faucet}/utxos`);
    expect(utxos.status).toBe(200);
    const confirmed = (await devnet.paymentUtxos(faucet)).filter((u) => u.status.confirmed);
    expect((utxos.body as UtxoDto[]).map((u) => `${u.txid}:${u.vout}`).sort()).toEqual(
      confirmed.map((u) => `${u.txid}:${u.vout}`).sort(),
    );
  });

  it('refuses an address that does not parse, and is not there on the devnet', async () => {
    expect((await getJson(`${signet.url}/api/indexer/address/nonsense/outputs`)).status).toBe(400);
    expect(
      (await fetch(`${network.url}/api/indexer/address/${treasuryAddress}/outputs`)).status,
    ).toBe(404);
  });
});
