// A guardian reads a spent vault of either layout from its record: layout 1 (no term) as always,
// layout 2 with the record's term; a record whose term or exit branch is not its output's is refused.
import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { TEST_NETWORK } from '@scure/btc-signer';
import { stateRecordScript, vaultOutput, type StateRecord } from '@unit/bitcoin';
import type { ChainView } from './chain-view';
import { Refused, vaultOnChain, type ChainTxs } from './reads';

const vaultPubkey = schnorr.getPublicKey(new Uint8Array(32).fill(21));
const guardPubkey = schnorr.getPublicKey(new Uint8Array(32).fill(22));
const hashes = [new Uint8Array(20).fill(23)];
const keys = { vaultPubkey, guardPubkey, network: TEST_NETWORK };
const TERM = { settleHeight: 900, exitHeight: 920 };
const base: StateRecord = {
  action: 'd',
  unitDebt: 0n,
  vaultSats: 50_000n,
  quotePriceCents: 1n,
  thresholdCents: 0n,
  quoteStamp: 7,
  nonce: new Uint8Array(16),
  expiry: 8,
};
// The stand-in at the edge: the oracles' hashes for the record's threshold and stamp.
const chain = { thresholdHashes: async () => ({ hashes, statements: [] }) } as unknown as ChainView;

function read(script: Uint8Array, record: StateRecord) {
  const txs: ChainTxs = new Map([
    [
      'aa'.repeat(32),
      [
        { script, value: 50_000n, address: null },
        { script: stateRecordScript(record), value: 0n, address: null },
      ],
    ],
  ]);
  const input = { txid: 'aa'.repeat(32), vout: 0, script, amount: 50_000n };
  return vaultOnChain(chain, txs, input, 'the vault input', keys);
}

describe('a spent vault of either layout', () => {
  const layout1 = vaultOutput({ ...keys, thresholdHash: hashes });
  const layout2 = vaultOutput({ ...keys, thresholdHash: hashes, term: TERM });
  const term = { ...TERM, exitBranch: layout2.exitBranch! };

  it('is read with its record: layout 1 without a term, layout 2 with it', async () => {
    expect((await read(layout1.script, base)).record.term).toBeUndefined();
    expect((await read(layout2.script, { ...base, term })).record.term).toEqual(term);
  });

  it('is refused when the record and the output disagree on the term or the branch', async () => {
    await expect(read(layout2.script, base)).rejects.toThrow(Refused);
    await expect(read(layout1.script, { ...base, term })).rejects.toThrow(
      /not this vault key's vault/,
    );
    await expect(
      read(layout2.script, { ...base, term: { ...term, exitHeight: TERM.exitHeight + 1 } }),
    ).rejects.toThrow(/not this vault key's vault/);
    await expect(
      read(layout2.script, { ...base, term: { ...term, exitBranch: new Uint8Array(32) } }),
    ).rejects.toThrow(/exit branch/);
  });
});
