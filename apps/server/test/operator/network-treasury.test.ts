// The operator's treasury commands with the guardian network (GUARDIAN_NETWORK=external): a real
// `guardian dkg` set, a signet server's configuration on a devnet instance playing the network. The
// treasury is `OP_1 <group key>`. `split` and `etch` with the network, against running guardians,
// are in test/guardian-network/treasury-split.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex } from '@noble/hashes/utils.js';
import { hex } from '@scure/base';
import { Address, TEST_NETWORK } from '@scure/btc-signer';
import { runOperator } from '../../src/operator/cli';
import { startTestApp, type RunningApp } from '../support';
import { startGuardianNetwork, type TestGuardianNetwork } from '../guardian-network/signer-harness';
import { signetEnvFor } from './network';

let network: RunningApp;
let guardians: TestGuardianNetwork;
let env: Record<string, string>;
let dataDir: string;

async function operator(args: string[]): Promise<string[]> {
  const lines: string[] = [];
  await runOperator(args, env, (line) => lines.push(line), 50);
  return lines;
}

beforeAll(async () => {
  network = await startTestApp();
  guardians = await startGuardianNetwork({ start: false });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-operator-network-'));
  env = {
    // With the network the app reads no feeds of its own: its price is the guardians' quorum.
    ...signetEnvFor(network.url, {
      unitRuneId: network.devnet!.unitRuneId,
      guardianKey: bytesToHex(network.keys.guardianSecretKey),
      guardianNetwork: 'external',
    }),
    DATA_DIR: dataDir,
    GUARDIAN_DIR: guardians.dir,
  };
}, 60_000);

afterAll(async () => {
  await network?.stop();
  await guardians?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run operator with the guardian network', () => {
  it('finds the treasury at OP_1 <group key>', async () => {
    const { groupKey } = JSON.parse(
      fs.readFileSync(path.join(guardians.dir, 'guardian-set.json'), 'utf8'),
    ) as { groupKey: string };
    const lines = await operator(['treasury']);
    const address = Address(TEST_NETWORK).encode({ type: 'tr', pubkey: hex.decode(groupKey) });
    expect(lines[0]).toBe(`treasury address  ${address}`);
    // Its genesis UNIT went to this server's own treasury key: the group's has none to split.
    await expect(operator(['split', '2'])).rejects.toThrow(
      'the treasury has no free UNIT to split',
    );
  }, 60_000);
});
