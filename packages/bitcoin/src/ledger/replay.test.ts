import { hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { liquidationThresholdCents, sats as satsOf, unitCents } from '@unit/protocol';
import { describe, expect, it } from 'vitest';
import {
  buildBorrowPsbt,
  buildDepositPsbt,
  buildOpenPsbt,
  buildRepossessPsbt,
  buildWithdrawPsbt,
  type BuiltVaultTx,
  type VaultUtxo,
} from '../flows/builders';
import {
  guardPub,
  paymentUtxo,
  stateFields,
  treasuryScript,
  treasuryUtxo,
  unitRuneId,
  vaultAt,
  vaultPub,
  wallet,
} from '../flows/test-fixtures';
import { VAULT_TX_OPTS } from '../flows/vault-tx';
import { parseStateRecordScript } from '../state-record';
import { ledgerDigest } from './digest';
import { exitLeafScript, settlementLeafScript } from '../term-leaves';
import { LedgerReplay, type LedgerTx } from './replay';

const feeRate = 2;

/** The transaction a PSBT becomes (its txid does not depend on the witnesses). */
function ledgerTx(built: BuiltVaultTx): LedgerTx {
  const tx = Transaction.fromPSBT(built.psbt, VAULT_TX_OPTS);
  return {
    txid: tx.id,
    inputs: Array.from({ length: tx.inputsLength }, (_, i) => {
      const input = tx.getInput(i);
      const { script, amount } = input.witnessUtxo!;
      return {
        txid: hex.encode(input.txid!),
        vout: input.index!,
        prevout: { script, value: amount },
      };
    }),
    outputs: Array.from({ length: tx.outputsLength }, (_, i) => {
      const o = tx.getOutput(i);
      return { script: o.script!, value: o.amount! };
    }),
  };
}

/** The state fields of a vault holding `sats` with `debt`, its threshold computed as the oracle does. */
function state(sats: bigint, debt: bigint, extra: { vaultPubkey?: Uint8Array } = {}) {
  const thresholdCents = BigInt(liquidationThresholdCents(satsOf(sats), unitCents(debt)));
  const { vaultPubkey: _key, ...rest } = stateFields;
  return { ...rest, ...extra, thresholdCents };
}

const vaultOf = (tx: LedgerTx, value: bigint, unitDebt: bigint, th: bigint): VaultUtxo => ({
  txid: tx.txid,
  vout: 0,
  value,
  unitDebt,
  output: vaultAt(th, stateFields.quoteStamp).output,
});

function opened(sats: bigint, debt: bigint) {
  const s = state(sats, debt, { vaultPubkey: vaultPub });
  const built = buildOpenPsbt({
    ...{ wallet, feeRate, state: s, newVault: vaultAt(s.thresholdCents, s.quoteStamp).output },
    utxos: [paymentUtxo(sats + 100_000n)],
    ...{ depositAmount: sats, borrowAmount: debt, treasury: treasuryUtxo(), unitRuneId },
  });
  const tx = ledgerTx(built);
  return { tx, vault: vaultOf(tx, sats, debt, s.thresholdCents) };
}

const options = { treasuryScripts: [treasuryScript], unitRuneId };

describe('LedgerReplay', () => {
  it('rebuilds a vault through open, deposit, borrow and withdraw with no finding', () => {
    const replay = new LedgerReplay(options);
    const open = opened(1_000_000n, 50_000n);
    expect(replay.apply(open.tx).findings).toEqual([]);
    const s1 = state(1_500_000n, 50_000n);
    const deposit = ledgerTx(
      buildDepositPsbt({
        ...{ wallet, feeRate, state: s1, vault: open.vault, depositAmount: 500_000n },
        newVault: vaultAt(s1.thresholdCents, s1.quoteStamp).output,
        utxos: [paymentUtxo(600_000n)],
      }),
    );
    expect(replay.apply(deposit).findings).toEqual([]);
    const s2 = state(1_500_000n, 80_000n);
    const borrow = ledgerTx(
      buildBorrowPsbt({
        ...{ wallet, feeRate, state: s2, borrowAmount: 30_000n, unitRuneId },
        vault: vaultOf(deposit, 1_500_000n, 50_000n, s1.thresholdCents),
        newVault: vaultAt(s2.thresholdCents, s2.quoteStamp).output,
        utxos: [paymentUtxo(100_000n)],
        treasury: treasuryUtxo(),
      }),
    );
    expect(replay.apply(borrow).findings).toEqual([]);
    expect(replay.ledger()).toEqual([
      { vaultId: open.tx.txid, collateralSats: 1_500_000n, debt: 80_000n, status: 'open' },
    ]);
    // Withdrawing to under the ratio is a broken rule; the chain's state is the ledger anyway.
    const withdrawOf = (s3: ReturnType<typeof state>) =>
      buildWithdrawPsbt({
        ...{ wallet, feeRate, state: s3, withdrawAmount: 1_290_000n },
        vault: vaultOf(borrow, 1_500_000n, 80_000n, s2.thresholdCents),
        newVault: vaultAt(s3.thresholdCents, s3.quoteStamp).output,
      });
    // The fee comes out of the vault: the record's threshold is of what is left.
    const left = withdrawOf(state(200_000n, 80_000n)).state.vaultSats;
    const withdraw = ledgerTx(withdrawOf(state(left, 80_000n)));
    const { findings } = replay.apply(withdraw);
    expect(findings).toEqual([
      {
        kind: 'broken-rule',
        txid: withdraw.txid,
        vaultId: open.tx.txid,
        message: 'This would leave the collateral ratio under 160%',
      },
    ]);
    expect(replay.ledger()[0]!.collateralSats).toBe(left);
  });

  it('closes a repossessed vault and moves its collateral and debt to the claimant', () => {
    const replay = new LedgerReplay(options);
    const victim = opened(1_000_000n, 50_000n);
    const claimant = opened(2_000_000n, 10_000n);
    replay.apply(victim.tx);
    replay.apply(claimant.tx);
    const tax = 150_000n;
    const s = state(2_000_000n + 1_000_000n - tax, 60_000n);
    const repossess = ledgerTx(
      buildRepossessPsbt({
        ...{ wallet, feeRate, state: s, treasuryScript },
        vault: claimant.vault,
        liquidated: victim.vault,
        newVault: vaultAt(s.thresholdCents, s.quoteStamp).output,
        utxos: [paymentUtxo(100_000n)],
      }),
    );
    expect(replay.apply(repossess).findings).toEqual([]);
    const byId = new Map(replay.ledger().map((v) => [v.vaultId, v]));
    expect(byId.get(victim.tx.txid)).toEqual({
      ...{ vaultId: victim.tx.txid, collateralSats: 0n, debt: 0n, status: 'repossessed' },
    });
    expect(byId.get(claimant.tx.txid)).toMatchObject({ collateralSats: 2_850_000n, debt: 60_000n });
  });

  it('names and skips a malformed record, and a record that spends no vault', () => {
    const replay = new LedgerReplay(options);
    const open = opened(1_000_000n, 50_000n);
    replay.apply(open.tx);
    const before = ledgerDigest(replay.ledger());
    const recordOut = open.tx.outputs.findIndex((o) => parseStateRecordScript(o.script));
    const broken = structuredClone(open.tx);
    broken.txid = 'ab'.repeat(32);
    // OP_RETURN OP_PUSHDATA1 <95> "UNITV" <version>: version 63 is none.
    broken.outputs[recordOut]!.script[8] = 0x3f;
    expect(replay.apply(broken).findings).toEqual([
      { kind: 'unparseable', txid: broken.txid, vaultId: null, message: 'unreadable state record' },
    ]);
    const foreign = structuredClone(open.tx);
    foreign.txid = 'cd'.repeat(32);
    foreign.inputs[0]!.prevout!.script = wallet.satsScript; // not the treasury's
    expect(replay.apply(foreign).findings).toEqual([
      {
        kind: 'unparseable',
        txid: foreign.txid,
        vaultId: null,
        message: 'input 0 is not a treasury output',
      },
    ]);
    expect(ledgerDigest(replay.ledger())).toBe(before);
  });

  it('reports a record whose threshold is not its state’s liquidation price', () => {
    const replay = new LedgerReplay(options);
    const s = { ...state(1_000_000n, 50_000n, { vaultPubkey: vaultPub }), thresholdCents: 1n };
    const tx = ledgerTx(
      buildOpenPsbt({
        ...{ wallet, feeRate, state: s, newVault: vaultAt(1n, s.quoteStamp).output },
        utxos: [paymentUtxo(1_100_000n)],
        ...{
          depositAmount: 1_000_000n,
          borrowAmount: 50_000n,
          treasury: treasuryUtxo(),
          unitRuneId,
        },
      }),
    );
    const { findings } = replay.apply(tx);
    expect(findings.map((f) => [f.vaultId, f.message])).toEqual([
      [
        tx.txid,
        `the recorded threshold 1 is not the new state's liquidation price ${liquidationThresholdCents(satsOf(1_000_000n), unitCents(50_000n))}`,
      ],
    ]);
  });

  it('closes a vault its guardians settled at its term, one its owner left by the exit, and an unrecorded spend otherwise', () => {
    const term = { settleHeight: 5_000, exitHeight: 5_020, exitBranch: new Uint8Array(32) };
    const s = { ...state(1_000_000n, 50_000n, { vaultPubkey: vaultPub }), term };
    const built = buildOpenPsbt({
      ...{ wallet, feeRate, state: s, newVault: vaultAt(s.thresholdCents, s.quoteStamp).output },
      utxos: [paymentUtxo(1_100_000n)],
      ...{ depositAmount: 1_000_000n, borrowAmount: 50_000n, treasury: treasuryUtxo() },
      unitRuneId,
    });
    const open = ledgerTx(built);
    const spend = (leaf: Uint8Array, txid: string): LedgerTx => ({
      txid,
      inputs: [
        {
          ...{ txid: open.txid, vout: 0, prevout: open.outputs[0]! },
          witness: [new Uint8Array(64), leaf, new Uint8Array(33)],
        },
      ],
      outputs: [
        { script: treasuryScript, value: 600_000n },
        { script: open.outputs[0]!.script, value: 399_000n },
      ],
    });
    const settled = new LedgerReplay(options);
    settled.apply(open);
    const settling = spend(settlementLeafScript(term.settleHeight, guardPub), 'aa'.repeat(32));
    expect(settled.apply(settling).findings).toEqual([]);
    expect(settled.ledger()).toEqual([
      { vaultId: open.txid, collateralSats: 0n, debt: 0n, status: 'settled' },
    ]);
    // The owner's key alone at the exit height: the vault is closed, exited, with no finding.
    const exited = new LedgerReplay(options);
    exited.apply(open);
    const leaving = spend(exitLeafScript(term.exitHeight, vaultPub), 'bb'.repeat(32));
    expect(exited.apply(leaving).findings).toEqual([]);
    expect(exited.ledger()).toEqual([
      { vaultId: open.txid, collateralSats: 0n, debt: 0n, status: 'exited' },
    ]);
    // A timelocked leaf at another height, or at the exit height with a key the opening's record
    // does not name, is neither: the vault was spent without a record.
    for (const leaf of [
      exitLeafScript(term.exitHeight + 1, vaultPub),
      exitLeafScript(term.exitHeight, guardPub),
    ]) {
      const other = new LedgerReplay(options);
      other.apply(open);
      expect(other.apply(spend(leaf, 'cc'.repeat(32))).findings).toMatchObject([
        { kind: 'broken-rule', message: 'the vault was spent without a state record' },
      ]);
      expect(other.ledger()[0]).toMatchObject({ status: 'unrecorded', collateralSats: 1_000_000n });
    }
  });
});
