import { describe, expect, it } from 'vitest';
import { hex } from '@scure/base';
import { schnorr } from '@noble/curves/secp256k1.js';
import { Transaction } from '@scure/btc-signer';
import { hash160 } from '@scure/btc-signer/utils.js';
import { encodeRunestone, parseRuneId, vaultOutput } from '@unit/bitcoin';
import {
  ALICE,
  BOB,
  GUARDIAN,
  devnetPerTest,
  refusal,
  signedSpend,
  TREASURY,
  type Devnet,
} from './fixtures';

const openDevnet = devnetPerTest();
const fresh = async () => (await openDevnet()).devnet;

const SECRET = new TextEncoder().encode('threshold secret of the test vault');
const vault = vaultOutput({
  vaultPubkey: ALICE.xonly,
  guardPubkey: GUARDIAN.xonly,
  thresholdHash: hash160(SECRET),
  network: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef },
});

async function fundVault(devnet: Devnet) {
  const txid = await devnet.fund(vault.address, 200_000n);
  await devnet.mine(1);
  const vout = (await devnet.getTx(txid))!.outputs.findIndex((o) => o.address === vault.address);
  return { txid, vout, amount: 200_000n };
}

/** A liquidation-leaf spend assembled by hand: guardian signature, revealed preimage, script, control block. */
function liquidationSpend(
  coin: { txid: string; vout: number; amount: bigint },
  preimage: Uint8Array,
) {
  const tx = new Transaction({
    allowUnknownOutputs: true,
    allowUnknownInputs: true,
    disableScriptCheck: true,
  });
  tx.addInput({
    txid: coin.txid,
    index: coin.vout,
    witnessUtxo: { script: vault.script, amount: coin.amount },
  });
  tx.addOutput({ script: BOB.script, amount: coin.amount - 1_000n });
  const sighash = tx.preimageWitnessV1(
    0,
    [vault.script],
    0,
    [coin.amount],
    -1,
    vault.liquidationLeaf.script,
    0xc0,
  );
  const signature = schnorr.sign(sighash, GUARDIAN.secret);
  tx.updateInput(
    0,
    {
      finalScriptWitness: [
        signature,
        preimage,
        vault.liquidationLeaf.script,
        vault.liquidationLeaf.controlBlock,
      ],
    },
    true,
  );
  return tx;
}

/**
 * An update-leaf spend of the vault's coin to Bob, signed by the guardian and the leaf's owner:
 * the vault's own leaf and key unless a test gives another.
 */
function updateSpend(
  coin: { txid: string; vout: number; amount: bigint },
  { leaf = vault.tapLeafScript[0]!, owner = ALICE, opts = {} } = {},
): Transaction {
  const tx = new Transaction(opts);
  tx.addInput({
    txid: coin.txid,
    index: coin.vout,
    witnessUtxo: { script: vault.script, amount: coin.amount },
    tapLeafScript: [leaf],
  });
  tx.addOutput({ script: BOB.script, amount: coin.amount - 1_000n });
  tx.signIdx(owner.secret, 0);
  tx.signIdx(GUARDIAN.secret, 0);
  tx.finalize();
  return tx;
}

describe('devnet vault script paths', () => {
  it('accepts an update-leaf spend signed by the vault key and the guardian', async () => {
    const devnet = await fresh();
    const coin = await fundVault(devnet);
    const tx = updateSpend(coin);
    expect(await devnet.broadcast(tx.hex)).toBe(tx.id);
  });

  it('refuses an update-leaf spend that lacks the guardian signature', async () => {
    const devnet = await fresh();
    const coin = await fundVault(devnet);
    const signed = updateSpend(coin);
    // Swap the guardian's signature for Alice's own over the same sighash.
    const [guardSig, aliceSig, script, control] = signed.getInput(0).finalScriptWitness!;
    expect(guardSig).toHaveLength(64);
    const forged = Transaction.fromRaw(signed.toBytes(true, true), {
      allowUnknownInputs: true,
      disableScriptCheck: true,
    });
    forged.updateInput(0, { finalScriptWitness: [aliceSig!, aliceSig!, script!, control!] }, true);
    expect(await refusal(devnet.broadcast(forged.hex))).toBe(
      'mandatory-script-verify-flag-failed (input 0: bad-signature)',
    );
  });

  it('refuses a leaf that is not in the vault output tree', async () => {
    const devnet = await fresh();
    const coin = await fundVault(devnet);
    // Bob's own vault leaf, signed by Bob and the guardian, offered against Alice's vault output.
    const bobVault = vaultOutput({
      vaultPubkey: BOB.xonly,
      guardPubkey: GUARDIAN.xonly,
      thresholdHash: hash160(SECRET),
      network: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef },
    });
    const leaf = bobVault.tapLeafScript[0]!;
    const tx = updateSpend(coin, { leaf, owner: BOB, opts: { disableScriptCheck: true } });
    expect(await refusal(devnet.broadcast(tx.hex))).toBe(
      'mandatory-script-verify-flag-failed (input 0: bad-control-block)',
    );
  });

  it('accepts a liquidation-leaf spend with the revealed secret', async () => {
    const devnet = await fresh();
    const coin = await fundVault(devnet);
    const tx = liquidationSpend(coin, SECRET);
    expect(await devnet.broadcast(tx.hex)).toBe(tx.id);
  });

  it('refuses a liquidation-leaf spend with the wrong preimage', async () => {
    const devnet = await fresh();
    const coin = await fundVault(devnet);
    const tx = liquidationSpend(coin, new TextEncoder().encode('a guess'));
    expect(await refusal(devnet.broadcast(tx.hex))).toBe(
      'mandatory-script-verify-flag-failed (input 0: wrong-preimage)',
    );
  });

  it('refuses a bare script it does not know as non-standard', async () => {
    const devnet = await fresh();
    // OP_TRUE: anyone can spend it, so only policy keeps it out.
    const coinTx = signedSpend(
      [{ ...(await fundedCoin(devnet)), key: ALICE }],
      [{ script: new Uint8Array([0x51]), amount: 90_000n }],
    );
    await devnet.broadcast(coinTx.hex);
    const spend = new Transaction({
      allowUnknownInputs: true,
      allowUnknownOutputs: true,
      disableScriptCheck: true,
    });
    spend.addOutput({ script: BOB.script, amount: 80_000n });
    spend.addInput({ txid: coinTx.id, index: 0, finalScriptSig: new Uint8Array([0x00]) });
    expect(await refusal(devnet.broadcast(spend.hex))).toBe('bad-txns-nonstandard-inputs');
  });
});

async function fundedCoin(devnet: Devnet) {
  const txid = await devnet.fund(ALICE.address, 100_000n);
  const vout = (await devnet.getTx(txid))!.outputs.findIndex((o) => o.address === ALICE.address);
  return { txid, vout, value: 100_000n };
}

describe('devnet UNIT balances', () => {
  const SUPPLY = 100_000_000_000n;

  async function treasuryCoin(devnet: Devnet) {
    const [out] = await devnet.unitOutputs(TREASURY.trAddress);
    const fee = await fundedCoin(devnet);
    return { unit: out!, fee };
  }

  /** Genesis splits the supply over 8 treasury outputs; these tests spend the first one. */
  const SHARE = SUPPLY / 8n;
  /** The treasury's UNIT outputs less the 7 genesis outputs a test leaves alone. */
  async function treasuryOutputsTouched(devnet: Devnet, spent: { txid: string; vout: number }) {
    return (await devnet.unitOutputs(TREASURY.trAddress)).filter(
      (o) => o.txid !== spent.txid || o.vout === spent.vout,
    );
  }

  it('moves UNIT exactly through an edict and keeps the rest at the pointer', async () => {
    const devnet = await fresh();
    const { unit, fee } = await treasuryCoin(devnet);
    const id = parseRuneId(devnet.unitRuneId);
    const tx = signedSpend(
      [
        {
          txid: unit.txid,
          vout: unit.vout,
          value: BigInt(unit.btc_amount),
          key: TREASURY,
          taproot: true,
        },
        { ...fee, key: ALICE },
      ],
      [
        { script: TREASURY.trScript, amount: 10_000n },
        { script: ALICE.script, amount: 10_000n },
        {
          script: encodeRunestone({ edicts: [{ id, amount: 12_345n, output: 1 }], pointer: 0 }),
          amount: 0n,
        },
        { script: ALICE.script, amount: 80_000n },
      ],
    );
    await devnet.broadcast(tx.hex);
    expect(await devnet.unitOutputs(ALICE.address)).toEqual([
      {
        txid: tx.id,
        vout: 1,
        script_hex: hex.encode(ALICE.script),
        btc_amount: 10_000,
        unit_amount: 12_345,
        spent: false,
      },
    ]);
    const treasury = await treasuryOutputsTouched(devnet, unit);
    // The genesis output is shown spent while the transfer waits, the change unspent.
    expect(treasury.map((o) => [o.unit_amount, o.spent])).toEqual([
      [Number(SHARE), true],
      [Number(SHARE - 12_345n), false],
    ]);
    expect(await devnet.paymentUtxos(ALICE.address)).toEqual([
      expect.objectContaining({ txid: tx.id, vout: 3, value: 80_000 }),
    ]);

    // A second hop: Alice sends 345 to Bob, keeps 12,000 by the default (first non-OP_RETURN) output.
    await devnet.mine(1);
    const hop = signedSpend(
      [
        { txid: tx.id, vout: 1, value: 10_000n, key: ALICE },
        { txid: tx.id, vout: 3, value: 80_000n, key: ALICE },
      ],
      [
        { script: ALICE.script, amount: 10_000n },
        { script: BOB.script, amount: 10_000n },
        { script: encodeRunestone({ edicts: [{ id, amount: 345n, output: 1 }] }), amount: 0n },
        { script: ALICE.script, amount: 69_000n },
      ],
    );
    await devnet.broadcast(hop.hex);
    await devnet.mine(1);
    expect((await devnet.unitOutputs(BOB.address)).map((o) => o.unit_amount)).toEqual([345]);
    expect((await devnet.unitOutputs(ALICE.address)).map((o) => o.unit_amount)).toEqual([12_000]);
    expect((await treasuryOutputsTouched(devnet, unit)).map((o) => o.unit_amount)).toEqual([
      Number(SHARE - 12_345n),
    ]);
  });

  it('burns every UNIT of the inputs when the runestone is a cenotaph', async () => {
    const devnet = await fresh();
    const { unit, fee } = await treasuryCoin(devnet);
    // OP_RETURN OP_13 with an unrecognised even tag (126) makes a cenotaph.
    const cenotaph = new Uint8Array([0x6a, 0x5d, 0x02, 0x7e, 0x01]);
    const tx = signedSpend(
      [
        {
          txid: unit.txid,
          vout: unit.vout,
          value: BigInt(unit.btc_amount),
          key: TREASURY,
          taproot: true,
        },
        { ...fee, key: ALICE },
      ],
      [
        { script: TREASURY.trScript, amount: 10_000n },
        { script: cenotaph, amount: 0n },
        { script: ALICE.script, amount: 90_000n },
      ],
    );
    await devnet.broadcast(tx.hex);
    await devnet.mine(1);
    expect(await treasuryOutputsTouched(devnet, unit)).toEqual([]);
    const stored = await devnet.getTx(tx.id);
    expect(stored!.outputs.map((o) => o.unit_amount)).toEqual([0, 0, 0]);
    expect(stored!.unit_burned).toBe(Number(SHARE));
  });
});
