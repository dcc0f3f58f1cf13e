// The state record: one OP_RETURN output on every vault transaction carrying the vault state after
// it (docs/protocol.md, "The state record"). 63 bytes, big-endian; an opening's (version 2) adds the
// vault's key, 95 bytes, so a vault never spent since its opening can be rebuilt from the chain.
// Version 1 records (openings before version 2 among them) are still read.
import type { ActionCode } from '@unit/protocol';
import { equalBytes } from '@scure/btc-signer/utils.js';
import { transactionOutputs, type TransactionLike, type TxOutputScript } from './transaction';

/** Action codes a vault transaction can record; `l` (liquidated) is history-only, never on chain. */
export type StateAction = Exclude<ActionCode, 'l'>;
const STATE_ACTIONS: readonly StateAction[] = ['o', 'b', 'd', 'r', 'w', 'x'];

export const STATE_RECORD_MAGIC = new TextEncoder().encode('UNITV');
/** Version 1: every action's record, 63 bytes. */
export const STATE_RECORD_VERSION = 1;
export const STATE_RECORD_LENGTH = 63;
/** Version 2: an opening's record with the vault's x-only key after the 63 bytes. */
export const STATE_RECORD_VERSION_KEYED = 2;
export const STATE_RECORD_KEYED_LENGTH = STATE_RECORD_LENGTH + 32;
export const STATE_NONCE_LENGTH = 16;

const OP_RETURN = 0x6a;
const OP_PUSHDATA1 = 0x4c;
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
  /**
   * The vault's x-only key (32 bytes): written only in an opening's record (version 2); absent
   * from every other record, and from an opening of version 1.
   */
  vaultPubkey?: Uint8Array;
}

function checkU64(value: bigint, field: string): void {
  if (value < 0n || value > U64_MAX) throw new Error(`state record ${field} out of u64 range`);
}

function checkU32(value: number, field: string): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
    throw new Error(`state record ${field} out of u32 range`);
}

/**
 * The record bytes: 63, or 95 for an opening that carries its vault key. Throws on a value that
 * does not fit its field, and on a key given to another action than an opening.
 */
export function encodeStateRecord(record: StateRecord): Uint8Array {
  if (!STATE_ACTIONS.includes(record.action))
    throw new Error(`unknown state action ${record.action}`);
  if (record.nonce.length !== STATE_NONCE_LENGTH)
    throw new Error('state record nonce must be 16 bytes');
  const key = record.vaultPubkey;
  if (key !== undefined && record.action !== 'o')
    throw new Error('only an opening records the vault key');
  if (key !== undefined && key.length !== 32)
    throw new Error('state record vault key must be 32 bytes (x-only)');
  checkU64(record.unitDebt, 'unitDebt');
  checkU64(record.vaultSats, 'vaultSats');
  checkU64(record.quotePriceCents, 'quotePriceCents');
  checkU64(record.thresholdCents, 'thresholdCents');
  checkU32(record.quoteStamp, 'quoteStamp');
  checkU32(record.expiry, 'expiry');
  const out = new Uint8Array(key ? STATE_RECORD_KEYED_LENGTH : STATE_RECORD_LENGTH);
  const view = new DataView(out.buffer);
  out.set(STATE_RECORD_MAGIC, 0);
  out[5] = key ? STATE_RECORD_VERSION_KEYED : STATE_RECORD_VERSION;
  out[6] = record.action.charCodeAt(0);
  view.setBigUint64(7, record.unitDebt);
  view.setBigUint64(15, record.vaultSats);
  view.setBigUint64(23, record.quotePriceCents);
  view.setBigUint64(31, record.thresholdCents);
  view.setUint32(39, record.quoteStamp);
  out.set(record.nonce, 43);
  view.setUint32(59, record.expiry);
  if (key) out.set(key, STATE_RECORD_LENGTH);
  return out;
}

/**
 * The record in its bytes, or null when they are not one: 63 bytes of version 1, or 95 of version
 * 2 for an opening (magic, version, length and action must agree).
 */
export function decodeStateRecord(bytes: Uint8Array): StateRecord | null {
  if (bytes.length < STATE_RECORD_LENGTH) return null;
  if (!equalBytes(bytes.subarray(0, 5), STATE_RECORD_MAGIC)) return null;
  const keyed = bytes[5] === STATE_RECORD_VERSION_KEYED;
  if (!keyed && bytes[5] !== STATE_RECORD_VERSION) return null;
  if (bytes.length !== (keyed ? STATE_RECORD_KEYED_LENGTH : STATE_RECORD_LENGTH)) return null;
  const action = String.fromCharCode(bytes[6] ?? 0) as StateAction;
  if (!STATE_ACTIONS.includes(action)) return null;
  if (keyed && action !== 'o') return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const record: StateRecord = {
    action,
    unitDebt: view.getBigUint64(7),
    vaultSats: view.getBigUint64(15),
    quotePriceCents: view.getBigUint64(23),
    thresholdCents: view.getBigUint64(31),
    quoteStamp: view.getUint32(39),
    nonce: bytes.slice(43, 59),
    expiry: view.getUint32(59),
  };
  if (keyed) record.vaultPubkey = bytes.slice(STATE_RECORD_LENGTH, STATE_RECORD_KEYED_LENGTH);
  return record;
}

/**
 * The output script of the record, one minimal push: `OP_RETURN <63 bytes>` (a direct push, 63 <
 * 76), or for a keyed opening `OP_RETURN OP_PUSHDATA1 95 <95 bytes>`.
 */
export function stateRecordScript(record: StateRecord): Uint8Array {
  const bytes = encodeStateRecord(record);
  const head =
    bytes.length < OP_PUSHDATA1
      ? [OP_RETURN, bytes.length]
      : [OP_RETURN, OP_PUSHDATA1, bytes.length];
  const script = new Uint8Array(head.length + bytes.length);
  script.set(head, 0);
  script.set(bytes, head.length);
  return script;
}

/** The record an output script carries (its one push, minimally encoded), or null. */
export function parseStateRecordScript(script: Uint8Array): StateRecord | null {
  if (script[0] !== OP_RETURN) return null;
  if (script.length === 2 + STATE_RECORD_LENGTH && script[1] === STATE_RECORD_LENGTH)
    return decodeStateRecord(script.subarray(2));
  if (
    script.length === 3 + STATE_RECORD_KEYED_LENGTH &&
    script[1] === OP_PUSHDATA1 &&
    script[2] === STATE_RECORD_KEYED_LENGTH
  )
    return decodeStateRecord(script.subarray(3));
  return null;
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
