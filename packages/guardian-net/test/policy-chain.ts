// The vault policy's unit tests' world: the keys of the oracle, the group and the treasury, and a
// stand-in for the guardian's chain view (its esplora and the app's routes) in memory, into which a
// test confirms drafted transactions or broadcasts signed ones to the mempool.
import { base64, hex } from '@scure/base';
import { OutScript, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { schnorr } from '@noble/curves/secp256k1.js';
import { hash160, pubSchnorr } from '@scure/btc-signer/utils.js';
import {
  parseTransaction,
  thresholdSecret,
  vaultOutput,
  type PaymentUtxo,
  type VaultUtxo,
} from '@unit/bitcoin';
import type { ChainTx, ChainTxOutput, ChainView } from '../src/vault-policy/chain-view';
import { signPrice, type SignedPrice } from '../src/price/signed-price';
import type { QuorumSet } from '../src/vault-policy/quote-quorum';
import { VaultPolicy } from '../src/vault-policy/policy';
import { keyOf, type Draft, type DraftParams, type Wallet } from './vault-requests';

export const NOW = Math.floor(Date.now() / 1000);
export const ORACLE_KEY = keyOf('oracle');
export const ORACLE_SECRET = keyOf('oracle secret');
export const GROUP_KEY = keyOf('group');
export const GROUP = pubSchnorr(GROUP_KEY);
// The treasury is the group key's own output (`OP_1 <group key>`), as in network mode.
export const TREASURY_SCRIPT = OutScript.encode({ type: 'tr', pubkey: GROUP });
export const RUNE_ID = '840000:1';
export const TREASURY_UNIT = 1_000_000_00n;
const PSBT_OPTS = { allowUnknownOutputs: true } as const;

/** Three guardians' identity keys and the 2-of-3 set a quote's guardian prices are checked with. */
export const IDENTITY_KEYS = [1, 2, 3].map((id) => keyOf(`guardian identity ${id}`));
export const QUORUM_SET: QuorumSet = {
  t: 2,
  version: 1,
  members: IDENTITY_KEYS.map((key, i) => ({
    id: i + 1,
    name: `guardian-${i + 1}`,
    identityKey: hex.encode(pubSchnorr(key)),
    url: `http://127.0.0.1:${7401 + i}`,
  })),
};

/** Guardian `id`'s signed price (ids 1..3), for QUORUM_SET. */
export const guardianPrice = (id: number, priceCents: number, time = NOW): SignedPrice =>
  signPrice(IDENTITY_KEYS[id - 1]!, { guardian: id, setVersion: 1, priceCents, time });

/** The chain as the guardian's esplora and the app's routes would answer, in memory. */
export class StandInChain implements ChainView {
  readonly txs = new Map<string, ChainTxOutput[]>();
  /** outpoint -> the txid spending it */
  readonly spentOutputs = new Map<string, string>();
  readonly units = new Map<string, bigint>();
  /** whole transactions broadcast to the mempool (and mined, once `mine`d) */
  readonly whole = new Map<string, ChainTx>();
  /** the chain's tip height, as esplora's /blocks/tip/height answers it */
  tip = 1_000;

  async txOutputs(txid: string) {
    return this.txs.get(txid) ?? null;
  }
  async spentBy(txid: string, vout: number) {
    return this.spentOutputs.get(`${txid}:${vout}`) ?? null;
  }
  async transaction(txid: string) {
    return this.whole.get(txid) ?? null;
  }
  async unitAmount(_address: string, txid: string, vout: number) {
    return this.units.get(`${txid}:${vout}`) ?? 0n;
  }
  async tipHeight() {
    return this.tip;
  }
  async thresholdHashes(th: number, ts: number) {
    return { hashes: [hash160(thresholdSecret(ORACLE_SECRET, BigInt(th), ts))], statements: [] };
  }

  /** A funding transaction: a wallet payment and a treasury UNIT output. */
  fund(wallet: Wallet): { payments: PaymentUtxo[]; treasury: DraftParams['treasury'] } {
    const txid = hex.encode(keyOf(`funding ${this.txs.size}`));
    this.txs.set(txid, [
      { script: wallet.vaultWallet.satsScript, value: 20_000_000n, address: 'payment' },
      { script: TREASURY_SCRIPT, value: 10_000n, address: 'treasury' },
    ]);
    this.units.set(`${txid}:1`, TREASURY_UNIT);
    return {
      payments: [{ txid, vout: 0, value: 20_000_000n, script: wallet.vaultWallet.satsScript }],
      treasury: {
        txid,
        vout: 1,
        value: 10_000n,
        script: TREASURY_SCRIPT,
        unitAmount: TREASURY_UNIT,
      },
    };
  }

  /** A transaction's outputs join the chain and its inputs are spent by it. */
  private add(tx: Transaction): void {
    const outputs: ChainTxOutput[] = [];
    for (let i = 0; i < tx.outputsLength; i++) {
      const o = tx.getOutput(i);
      outputs.push({ script: o.script!, value: o.amount!, address: null });
    }
    this.txs.set(tx.id, outputs);
    for (let i = 0; i < tx.inputsLength; i++) {
      const input = tx.getInput(i);
      this.spentOutputs.set(`${hex.encode(input.txid!)}:${input.index}`, tx.id);
    }
  }

  /** A drafted transaction confirmed (only its outputs and spends are known). */
  confirm(draft: Draft): void {
    this.add(Transaction.fromPSBT(base64.decode(draft.request.psbt), PSBT_OPTS));
  }

  /** A signed transaction (raw hex) into the mempool, whole, as esplora would serve it. */
  broadcast(raw: string): string {
    const tx = parseTransaction(raw);
    const prevouts = Array.from({ length: tx.inputsLength }, (_, i) => {
      const input = tx.getInput(i);
      const output = this.txs.get(hex.encode(input.txid!))![input.index!]!;
      return { script: output.script, amount: output.value };
    });
    this.add(tx);
    this.whole.set(tx.id, { hex: raw, confirmed: false, prevouts });
    return tx.id;
  }

  mine(txid: string): void {
    this.whole.set(txid, { ...this.whole.get(txid)!, confirmed: true });
  }
}

/** The vault an opening created, as the wallet reads it back. */
export function vaultOf(wallet: Wallet, draft: Draft): VaultUtxo {
  const { state } = draft.built;
  return {
    txid: draft.txid,
    vout: 0,
    value: state.vaultSats,
    unitDebt: state.unitDebt,
    output: vaultOutput({
      vaultPubkey: hex.decode(wallet.vaultPubkey),
      guardPubkey: GROUP,
      thresholdHash: hash160(
        thresholdSecret(ORACLE_SECRET, state.thresholdCents, state.quoteStamp),
      ),
      network: TEST_NETWORK,
      // Layout 2: the term its record carries.
      ...(state.term
        ? { term: { settleHeight: state.term.settleHeight, exitHeight: state.term.exitHeight } }
        : {}),
    }),
  };
}

/** The group's key-path signature of the treasury input `index`, as t guardians would make it. */
export function signTreasuryAsGroup(psbt: Uint8Array, index: number): Uint8Array {
  const tx = Transaction.fromPSBT(psbt, PSBT_OPTS);
  const prevouts = Array.from({ length: tx.inputsLength }, (_, i) => tx.getInput(i).witnessUtxo!);
  const sighash = tx.preimageWitnessV1(
    index,
    prevouts.map((p) => p.script),
    0,
    prevouts.map((p) => p.amount),
  );
  tx.updateInput(index, { tapKeySig: schnorr.sign(sighash, GROUP_KEY) }, true);
  return tx.toPSBT();
}

/**
 * A stand-in chain funding the treasury (two outputs of 10,000 sats holding `units` UNIT and one of
 * 100,000 plain sats) and a devnet vault policy reading it, which lets a treasury move or split pay
 * at most 50 sat/vB; the funding's txid.
 */
export function fundedTreasury(units: bigint[]): {
  chain: StandInChain;
  policy: VaultPolicy;
  txid: string;
} {
  const chain = new StandInChain();
  const policy = new VaultPolicy({
    chain,
    facts: { network: 'devnet', unitRuneId: RUNE_ID, oraclePubkey: '00'.repeat(32) },
    maxTreasuryFeeRate: 50,
  });
  const txid = hex.encode(keyOf(`treasury funding ${Math.random()}`));
  chain.txs.set(txid, [
    { script: TREASURY_SCRIPT, value: 10_000n, address: 'treasury' },
    { script: TREASURY_SCRIPT, value: 10_000n, address: 'treasury' },
    { script: TREASURY_SCRIPT, value: 100_000n, address: 'treasury' },
  ]);
  units.forEach((amount, vout) => chain.units.set(`${txid}:${vout}`, amount));
  return { chain, policy, txid };
}
