// Standardness and consensus checks of a submitted transaction, with Bitcoin Core's reject reasons
// (what esplora relays back), so clients see the same texts on the devnet as on a real network.
import { Transaction } from '@scure/btc-signer';
import { hex } from '@scure/base';
import { BroadcastError } from '../chain/port';

/** Below this an output is dust (standard P2PKH limit; CONSTANTS.md dust limit). */
export const DUST_LIMIT_SATS = 546n;
/** Minimum relay fee rate, sat/vB. */
export const MIN_RELAY_FEE_RATE = 1n;
const MAX_MONEY = 21_000_000n * 100_000_000n;

export const REJECT = {
  decode: 'TX decode failed',
  vinEmpty: 'bad-txns-vin-empty',
  voutEmpty: 'bad-txns-vout-empty',
  coinbase: 'coinbase',
  duplicateInputs: 'bad-txns-inputs-duplicate',
  tooLarge: 'bad-txns-vout-toolarge',
  dust: 'dust',
  inMempool: 'txn-already-in-mempool',
  inChain: 'transaction already in block chain',
  missingOrSpent: 'bad-txns-inputs-missingorspent',
  mempoolConflict: 'txn-mempool-conflict',
  spendsConflicting: 'bad-txns-spends-conflicting-tx',
  addsUnconfirmed: 'replacement-adds-unconfirmed',
  nonStandardInputs: 'bad-txns-nonstandard-inputs',
  nonFinal: 'non-final',
  nonBip68Final: 'non-BIP68-final',
  tooLongMempoolChain: 'too-long-mempool-chain',
} as const;

export const refuse = (reason: string): never => {
  throw new BroadcastError(reason);
};

const TX_OPTS = { allowUnknownInputs: true, allowUnknownOutputs: true, disableScriptCheck: true };

/** Parses raw hex strictly: the bytes must re-serialise to exactly what was sent. */
export function decodeRawTx(rawHex: string): Transaction {
  const text = rawHex.trim().toLowerCase();
  if (text.length === 0 || text.length % 2 !== 0 || !/^[0-9a-f]+$/.test(text))
    refuse(REJECT.decode);
  let tx: Transaction;
  try {
    tx = Transaction.fromRaw(hex.decode(text), TX_OPTS);
  } catch {
    return refuse(REJECT.decode);
  }
  if (tx.hex !== text) refuse(REJECT.decode);
  return tx;
}

/** Re-reads a transaction the devnet stored itself (no strictness needed, it was checked on entry). */
export const parseStoredTx = (rawHex: string): Transaction =>
  Transaction.fromRaw(hex.decode(rawHex), TX_OPTS);

export const isOpReturn = (script: Uint8Array): boolean => script[0] === 0x6a;

export const outpointKey = (txid: string, vout: number): string => `${txid}:${vout}`;

export function isCoinbaseInput(txid: string, index: number): boolean {
  return index === 0xffffffff && /^0+$/.test(txid);
}

/** Checks that need nothing but the transaction itself: shape, amounts, dust (Core's IsStandardTx). */
export function checkShape(tx: Transaction): void {
  if (tx.inputsLength === 0) refuse(REJECT.vinEmpty);
  if (tx.outputsLength === 0) refuse(REJECT.voutEmpty);
  const seen = new Set<string>();
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i);
    const txid = hex.encode(input.txid!);
    if (isCoinbaseInput(txid, input.index!)) refuse(REJECT.coinbase);
    const key = outpointKey(txid, input.index!);
    if (seen.has(key)) refuse(REJECT.duplicateInputs);
    seen.add(key);
  }
  let total = 0n;
  for (let i = 0; i < tx.outputsLength; i++) {
    const out = tx.getOutput(i);
    const amount = out.amount ?? 0n;
    total += amount;
    if (amount < 0n || amount > MAX_MONEY || total > MAX_MONEY) refuse(REJECT.tooLarge);
    // Core 30 policy: any number of OP_RETURN outputs, none of them subject to the dust rule.
    if (!isOpReturn(out.script!) && amount < DUST_LIMIT_SATS) refuse(REJECT.dust);
  }
}

const btcText = (sats: bigint): string => {
  const whole = sats / 100_000_000n;
  const frac = (sats % 100_000_000n).toString().padStart(8, '0').replace(/0+$/, '');
  return frac.length > 0 ? `${whole}.${frac}` : `${whole}.00`;
};

export function checkAmounts(valueIn: bigint, valueOut: bigint, vsize: number): bigint {
  if (valueOut > valueIn) {
    refuse(
      `bad-txns-in-belowout, value in (${btcText(valueIn)}) < value out (${btcText(valueOut)})`,
    );
  }
  const fee = valueIn - valueOut;
  const minFee = BigInt(vsize) * MIN_RELAY_FEE_RATE;
  if (fee < minFee) refuse(`min relay fee not met, ${fee} < ${minFee}`);
  return fee;
}
