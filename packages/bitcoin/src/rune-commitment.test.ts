import { describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { encodeRunestone as libEncode } from '@magiceden-oss/runestone-lib';
import { p2tr, Transaction, TEST_NETWORK, TaprootControlBlock } from '@scure/btc-signer';
import { equalBytes, pubSchnorr } from '@scure/btc-signer/utils.js';
import { testKey } from '../test/testKeys';
import { classifyCommitmentLeaf, commitmentLeafScript, runeCommitment } from './rune-commitment';
import { verifyInputs } from './verify';

describe('rune commitments', () => {
  it('encodes the name as ord does (runestone-lib), and the leaf round-trips', () => {
    for (const name of ['UNIT•RUNE•TOKEN', 'AAAAAAAAAAAAA', 'ZZZZZZZZZZZZZZZZZZZZZZZZZZ']) {
      const { etchingCommitment } = libEncode({ etching: { runeName: name } });
      expect(hex.encode(runeCommitment(name.replace(/•/g, '')))).toBe(
        etchingCommitment!.toString('hex'),
      );
    }
    const key = pubSchnorr(testKey('treasury').privateKey);
    const commitment = runeCommitment('UNITRUNETOKEN');
    const leaf = commitmentLeafScript(key, commitment);
    expect(classifyCommitmentLeaf(leaf)).toEqual({ pubkey: key, commitment });
    expect(classifyCommitmentLeaf(leaf.subarray(0, -1))).toBeNull();
  });

  it('a reveal by the leaf verifies with its key and is refused signed by another', () => {
    const secret = testKey('treasury').privateKey;
    const leaf = commitmentLeafScript(pubSchnorr(secret), runeCommitment('UNITRUNETOKEN'));
    const out = p2tr(pubSchnorr(secret), { script: leaf }, TEST_NETWORK, true);
    const tapLeaf = out.tapLeafScript!.find(([, s]) => equalBytes(s.subarray(0, -1), leaf))!;
    const reveal = (signer: Uint8Array) => {
      const tx = new Transaction({ allowUnknownOutputs: true });
      tx.addInput({
        txid: '11'.repeat(32),
        index: 0,
        witnessUtxo: { script: out.script, amount: 20_000n },
        tapLeafScript: [tapLeaf],
      });
      tx.addOutput({ script: out.script, amount: 19_000n });
      // The leaf is signed as the key's: a foreign signer's signature stands in its place.
      tx.signIdx(secret, 0);
      let signature = tx.getInput(0).tapScriptSig![0]![1];
      if (signer !== secret) {
        const other = new Transaction({ allowUnknownOutputs: true });
        const otherLeaf = commitmentLeafScript(pubSchnorr(signer), runeCommitment('UNITRUNETOKEN'));
        const otherOut = p2tr(pubSchnorr(signer), { script: otherLeaf }, TEST_NETWORK, true);
        other.addInput({
          txid: '11'.repeat(32),
          index: 0,
          witnessUtxo: { script: otherOut.script, amount: 20_000n },
          tapLeafScript: [otherOut.tapLeafScript![0]!],
        });
        other.addOutput({ script: out.script, amount: 19_000n });
        other.signIdx(signer, 0);
        signature = other.getInput(0).tapScriptSig![0]![1];
      }
      tx.updateInput(
        0,
        { finalScriptWitness: [signature, leaf, TaprootControlBlock.encode(tapLeaf[0])] },
        true,
      );
      return verifyInputs(tx, [{ script: out.script, amount: 20_000n }]);
    };
    expect(reveal(secret)).toEqual({ ok: true });
    expect(reveal(testKey('stranger').privateKey)).toEqual({
      ok: false,
      input: 0,
      reason: 'bad-signature',
    });
  });
});
