// The state record: one OP_RETURN output on every vault transaction carrying the vault state after
// it (docs/protocol.md, "The state record"). 63 bytes, big-endian.
import type { ActionCode } from '@unit/protocol';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { transactionOutputs, type TransactionLike, type TxOutputScript } from './transaction';

/** Action codes a vault transaction can record; `l` (liquidated) is history-only, never on chain. */
export type StateAction = Exclude<ActionCode, 'l'>;
const STATE_ACTIONS: readonly StateAction[] = ['o', 'b', 'd', 'r', 'w', 'x'];

export const STATE_RECORD_MAGIC = new TextEncoder().encode('UNITV');
export const STATE_RECORD_VERSION = 1;
export const STATE_RECORD_LENGTH = 63;
export const STATE_NONCE_LENGTH = 16;

const OP_RETURN = 0x6a;
const U64_MAX = (1n << 64n) - 1n;

export interface StateRecord {
  action: StateAction;
  /** UNIT debt after the action, hundredths. */
  unitDebt: bigint;
  /** BTC in the vault after the action, sats. */
  vaultSats: bigint;
  quotePriceCents: bigint;
  /** `th_cents`: the liquidation price the threshold hash was derived from. */
  thresholdCents: bigint;
  /** Quote stamp, unix seconds. */
  quoteStamp: number;
  /** 16-byte request nonce: the guardian refuses one it has seen. */
  nonce: Uint8Array;
  /** Request expiry, unix seconds. */
  expiry: number;
}

function checkU64(value: bigint, field: string): void {
  if (value < 0n || value > U64_MAX) throw new Error(`state record ${field} out of u64 range`);
}

function checkU32(value: number, field: string): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
    throw new Error(`state record ${field} out of u32 range`);
}

/** The 63 record bytes. Throws on a value that does not fit its field. */
export function encodeStateRecord(record: StateRecord): Uint8Array {
  if (!STATE_ACTIONS.includes(record.action))
    throw new Error(`unknown state action ${record.action}`);
  if (record.nonce.length !== STATE_NONCE_LENGTH)
    throw new Error('state record nonce must be 16 bytes');
  checkU64(record.unitDebt, 'unitDebt');
  checkU64(record.vaultSats, 'vaultSats');
  checkU64(record.quotePriceCents, 'quotePriceCents');
  checkU64(record.thresholdCents, 'thresholdCents');
  checkU32(record.quoteStamp, 'quoteStamp');
  checkU32(record.expiry, 'expiry');
  const out = new Uint8Array(STATE_RECORD_LENGTH);
  const view = new DataView(out.buffer);
  out.set(STATE_RECORD_MAGIC, 0);
  out[5] = STATE_RECORD_VERSION;
  out[6] = record.action.charCodeAt(0);
  view.setBigUint64(7, record.unitDebt);
  view.setBigUint64(15, record.vaultSats);
  view.setBigUint64(23, record.quotePriceCents);
  view.setBigUint64(31, record.thresholdCents);
  view.setUint32(39, record.quoteStamp);
  out.set(record.nonce, 43);
  view.setUint32(59, record.expiry);
  return out;
}

/** The record in 63 bytes, or null when they are not one (length, magic, version or action). */
export function decodeStateRecord(bytes: Uint8Array): StateRecord | null {
  if (bytes.length !== STATE_RECORD_LENGTH) return null;
  if (!equalBytes(bytes.subarray(0, 5), STATE_RECORD_MAGIC)) return null;
  if (bytes[5] !== STATE_RECORD_VERSION) return null;
  const action = String.fromCharCode(bytes[6] ?? 0) as StateAction;
  if (!STATE_ACTIONS.includes(action)) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    action,
    unitDebt: view.getBigUint64(7),
    vaultSats: view.getBigUint64(15),
    quotePriceCents: view.getBigUint64(23),
    thresholdCents: view.getBigUint64(31),
    quoteStamp: view.getUint32(39),
    nonce: bytes.slice(43, 59),
    expiry: view.getUint32(59),
  };
}

/** `OP_RETURN <63 bytes>`: the output script of the record (63 < 76, so a direct push). */
export function stateRecordScript(record: StateRecord): Uint8Array {
  const script = new Uint8Array(2 + STATE_RECORD_LENGTH);
  script[0] = OP_RETURN;
  script[1] = STATE_RECORD_LENGTH;
  script.set(encodeStateRecord(record), 2);
  return script;
}

/** The record an output script carries, or null. */
export function parseStateRecordScript(script: Uint8Array): StateRecord | null {
  if (script.length !== 2 + STATE_RECORD_LENGTH) return null;
  if (script[0] !== OP_RETURN || script[1] !== STATE_RECORD_LENGTH) return null;
  return decodeStateRecord(script.subarray(2));
}

/** The first state record among a transaction's outputs, with its output index. */
export function findStateRecord(
  tx: TransactionLike | readonly Pick<TxOutputScript, 'script'>[],
): { vout: number; record: StateRecord } | null {
  const outputs = Array.isArray(tx) ? tx : transactionOutputs(tx as TransactionLike);
  for (let vout = 0; vout < outputs.length; vout++) {
    const record = parseStateRecordScript(outputs[vout]!.script);
    if (record) return { vout, record };
  }
  return null;
}
