// The devnet's own checks keep a vault's exit shut until its height (docs/protocol.md, "Leaving
// without the guardians"): a spend whose nLockTime is below the exit height fails the script check
// (OP_CHECKLOCKTIMEVERIFY), one at the exit height waits as non-final until the chain reaches it, and
// then the owner's key alone moves the whole vault.
import { describe, expect, it } from 'vitest';
import { schnorr } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { planExit, signExit, thresholdHash, vaultOutput, type ExitRequest } from '@unit/bitcoin';
import { ALICE, devnetPerTest, refusal } from './fixtures';

const openDevnet = devnetPerTest();

const owner = sha256(new TextEncoder().encode('exit-leaf owner'));
const guardian = sha256(new TextEncoder().encode('exit-leaf guardian'));

/** The same spend with another nLockTime: what an owner who cannot wait would send. */
function withLockTime(tx: Transaction, lockTime: number): Transaction {
  const copy = new Transaction({ lockTime, allowUnknownInputs: true });
  copy.addInput(tx.getInput(0));
  copy.addOutput(tx.getOutput(0));
  return copy;
}

describe("a vault's exit on the devnet", () => {
  it('is refused by the script check and by finality before its height, taken from it', async () => {
    const { devnet } = await openDevnet();
    const tip = (await devnet.tip()).height;
    const term = { settleHeight: tip + 3, exitHeight: tip + 5 };
    const vault = vaultOutput({
      vaultPubkey: schnorr.getPublicKey(owner),
      guardPubkey: schnorr.getPublicKey(guardian),
      thresholdHash: thresholdHash(new Uint8Array(32).fill(1)),
      network: TEST_NETWORK,
      term,
    });
    const txid = await devnet.fund(vault.address, 200_000n);
    await devnet.mine(1);
    const vout = (await devnet.getTx(txid))!.outputs.findIndex((o) => o.address === vault.address);
    const request = (exitHeight: number): ExitRequest => ({
      vaultPubkey: schnorr.getPublicKey(owner),
      exitHeight,
      exitBranch: vault.exitBranch!,
      utxo: { txid, vout, script: vault.script, amount: 200_000n },
      toAddress: ALICE.address,
      feeRate: 2,
      tipHeight: exitHeight,
      network: TEST_NETWORK,
    });

    const short = planExit(request(term.exitHeight));
    const exit = signExit(short, owner);
    // Our own builder refuses it first, with the blocks left.
    expect(() => planExit({ ...request(term.exitHeight), tipHeight: tip + 1 })).toThrow(
      /wait 4 more blocks/,
    );
    // At the exit height, before the chain reaches it: not final.
    expect(await refusal(devnet.broadcast(exit.hex))).toBe('non-final');

    // A lock one block short is final once the chain is there, and the script check refuses it:
    // the leaf commits to the exit height, and OP_CHECKLOCKTIMEVERIFY compares the two.
    while ((await devnet.tip()).height < term.exitHeight - 1) await devnet.mine(1);
    const cheat = planExit(request(term.exitHeight));
    const early = signExit({ ...cheat, tx: withLockTime(cheat.tx, term.exitHeight - 1) }, owner);
    expect(await refusal(devnet.broadcast(early.hex))).toBe(
      'mandatory-script-verify-flag-failed (input 0: unsatisfied-locktime)',
    );
    expect(await refusal(devnet.broadcast(exit.hex))).toBe('non-final');

    while ((await devnet.tip()).height < term.exitHeight) await devnet.mine(1);
    expect(await devnet.broadcast(exit.hex)).toBe(exit.id);
    await devnet.mine(1);
    expect((await devnet.txStatus(exit.id))?.confirmed).toBe(true);
    const paid = (await devnet.getTx(exit.id))!.outputs[0]!;
    expect(paid.address).toBe(ALICE.address);
    expect(BigInt(paid.value)).toBe(200_000n - short.feeSats);
  });
});
