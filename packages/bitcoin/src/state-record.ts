// The state record: one OP_RETURN output on every vault transaction carrying the vault state after
// it (docs/protocol.md, "The state record"). 63 bytes, big-endian; an opening's (version 2) adds the
// vault's key, 95 bytes, so a vault never spent since its opening can be rebuilt from the chain.
// Version 1 records (openings before version 2 among them) are still read. With the guardian network
// the record also commits to the quote's price quorum: versions 3 (an update) and 4 (an opening) are
// the bytes of versions 1 and 2 followed by the 32-byte commitment (priceQuorumCommitment). A
// record of a vault output with a term (layout 2) is version 5 to 8: the bytes of versions 1 to 4
// followed by the 40-byte term (settlement height, exit height, the exit leaf's sibling hash), so
// the owner's exit can be built from the chain alone.
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
/** Version 3: version 1's 63 bytes, then the 32-byte price quorum commitment (network mode). */
export const STATE_RECORD_VERSION_COMMITTED = 3;
/** Version 4: an opening's version 2 bytes (95), then the 32-byte price quorum commitment. */
export const STATE_RECORD_VERSION_KEYED_COMMITTED = 4;
export const STATE_RECORD_COMMITMENT_LENGTH = 32;
/** Versions 5 to 8: versions 1 to 4 with the term after everything else (layout 2). */
export const STATE_RECORD_TERM_OFFSET = 4;
/** u32be settle height, u32be exit height, the exit leaf's 32-byte sibling. */
export const STATE_RECORD_TERM_LENGTH = 40;
export const STATE_NONCE_LENGTH = 16;

/** Each version's length and whether it carries the vault key, the quorum commitment and a term. */
const BASE_VERSIONS: Record<number, { length: number; keyed: boolean; committed: boolean }> = {
  [STATE_RECORD_VERSION]: { length: STATE_RECORD_LENGTH, keyed: false, committed: false },
  [STATE_RECORD_VERSION_KEYED]: {
    length: STATE_RECORD_KEYED_LENGTH,
    keyed: true,
    committed: false,
  },
  [STATE_RECORD_VERSION_COMMITTED]: {
    length: STATE_RECORD_LENGTH + STATE_RECORD_COMMITMENT_LENGTH,
    keyed: false,
    committed: true,
  },
  [STATE_RECORD_VERSION_KEYED_COMMITTED]: {
    length: STATE_RECORD_KEYED_LENGTH + STATE_RECORD_COMMITMENT_LENGTH,
    keyed: true,
    committed: true,
  },
};
const VERSIONS: Record<
  number,
  { length: number; keyed: boolean; committed: boolean; termed: boolean }
> = Object.fromEntries(
  Object.entries(BASE_VERSIONS).flatMap(([version, shape]) => [
    [version, { ...shape, termed: false }],
    [
      Number(version) + STATE_RECORD_TERM_OFFSET,
      { ...shape, length: shape.length + STATE_RECORD_TERM_LENGTH, termed: true },
    ],
  ]),
);

/** The record's byte length: 63, +32 for an opening's key, +32 for a quorum commitment, +40 for a term. */
export const stateRecordLength = (keyed: boolean, committed: boolean, termed = false): number =>
  STATE_RECORD_LENGTH +
  (keyed ? STATE_RECORD_KEYED_LENGTH - STATE_RECORD_LENGTH : 0) +
  (committed ? STATE_RECORD_COMMITMENT_LENGTH : 0) +
  (termed ? STATE_RECORD_TERM_LENGTH : 0);

/** What a record of a layout 2 vault output carries: its term and the exit leaf's sibling. */
export interface StateRecordTerm {
  settleHeight: number;
  exitHeight: number;
  /** The hash of the vault tree beside the exit leaf (`VaultOutput.exitBranch`). */
  exitBranch: Uint8Array;
}

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
  /**
   * With the guardian network: `priceQuorumCommitment` of the quote's signed prices (32 bytes),
   * after everything else (versions 3 and 4). Absent in off mode.
   */
  quorumCommitment?: Uint8Array;
  /** The term of the vault output the transaction writes (layout 2, versions 5 to 8). */
  term?: StateRecordTerm;
}

function checkU64(value: bigint, field: string): void {
  if (value < 0n || value > U64_MAX) throw new Error(`state record ${field} out of u64 range`);
}

function checkU32(value: number, field: string): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
    throw new Error(`state record ${field} out of u32 range`);
}

/**
 * The record bytes: 63, or 95 for an opening that carries its vault key, each +32 with a quorum
 * commitment. Throws on a value that does not fit its field, on a key given to another action than
 * an opening, and on a commitment given to an opening without its key (version 4 is version 2's
 * bytes and the commitment).
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
  const commitment = record.quorumCommitment;
  if (commitment !== undefined && commitment.length !== STATE_RECORD_COMMITMENT_LENGTH)
    throw new Error('state record quorum commitment must be 32 bytes');
  if (commitment !== undefined && record.action === 'o' && key === undefined)
    throw new Error('a committed opening records the vault key too');
  const term = record.term;
  if (term) {
    checkU32(term.settleHeight, 'settleHeight');
    checkU32(term.exitHeight, 'exitHeight');
    if (term.exitBranch.length !== 32) throw new Error('state record exit branch must be 32 bytes');
  }
  checkU64(record.unitDebt, 'unitDebt');
  checkU64(record.vaultSats, 'vaultSats');
  checkU64(record.quotePriceCents, 'quotePriceCents');
  checkU64(record.thresholdCents, 'thresholdCents');
  checkU32(record.quoteStamp, 'quoteStamp');
  checkU32(record.expiry, 'expiry');
  const out = new Uint8Array(
    stateRecordLength(key !== undefined, commitment !== undefined, term !== undefined),
  );
  const view = new DataView(out.buffer);
  out.set(STATE_RECORD_MAGIC, 0);
  out[5] =
    (commitment
      ? key
        ? STATE_RECORD_VERSION_KEYED_COMMITTED
        : STATE_RECORD_VERSION_COMMITTED
      : key
        ? STATE_RECORD_VERSION_KEYED
        : STATE_RECORD_VERSION) + (term ? STATE_RECORD_TERM_OFFSET : 0);
  out[6] = record.action.charCodeAt(0);
  view.setBigUint64(7, record.unitDebt);
  view.setBigUint64(15, record.vaultSats);
  view.setBigUint64(23, record.quotePriceCents);
  view.setBigUint64(31, record.thresholdCents);
  view.setUint32(39, record.quoteStamp);
  out.set(record.nonce, 43);
  view.setUint32(59, record.expiry);
  if (key) out.set(key, STATE_RECORD_LENGTH);
  const tail = term ? STATE_RECORD_TERM_LENGTH : 0;
  if (commitment) out.set(commitment, out.length - tail - STATE_RECORD_COMMITMENT_LENGTH);
  if (term) {
    const at = out.length - STATE_RECORD_TERM_LENGTH;
    view.setUint32(at, term.settleHeight);
    view.setUint32(at + 4, term.exitHeight);
    out.set(term.exitBranch, at + 8);
  }
  return out;
}

/**
 * The record in its bytes, or null when they are not one: 63 bytes of version 1, 95 of version 2
 * for an opening, 95 of version 3 or 127 of version 4 for an opening (magic, version, length and
 * action must agree).
 */
export function decodeStateRecord(bytes: Uint8Array): StateRecord | null {
  if (bytes.length < STATE_RECORD_LENGTH) return null;
  if (!equalBytes(bytes.subarray(0, 5), STATE_RECORD_MAGIC)) return null;
  const version = VERSIONS[bytes[5] ?? 0];
  if (!version || bytes.length !== version.length) return null;
  const { keyed, committed, termed } = version;
  const action = String.fromCharCode(bytes[6] ?? 0) as StateAction;
  if (!STATE_ACTIONS.includes(action)) return null;
  // Only an opening carries its key, and a committed opening always does (version 4).
  if (keyed !== (action === 'o') && (keyed || committed)) return null;
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
  const tail = termed ? STATE_RECORD_TERM_LENGTH : 0;
  if (committed)
    record.quorumCommitment = bytes.slice(
      bytes.length - tail - STATE_RECORD_COMMITMENT_LENGTH,
      bytes.length - tail,
    );
  if (termed) {
    const at = bytes.length - STATE_RECORD_TERM_LENGTH;
    const term = {
      settleHeight: view.getUint32(at),
      exitHeight: view.getUint32(at + 4),
      exitBranch: bytes.slice(at + 8),
    };
    // A term the script could not hold is no record's.
    if (
      term.settleHeight < 1 ||
      term.exitHeight <= term.settleHeight ||
      term.exitHeight >= 500_000_000
    )
      return null;
    record.term = term;
  }
  return record;
}

/**
 * The output script of the record, one minimal push: `OP_RETURN <63 bytes>` (a direct push, 63 <
 * 76), or for a longer one (95 to 167 bytes) `OP_RETURN OP_PUSHDATA1 <length> <bytes>`.
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
  if (script[0] !== OP_RETURN || script.length < 2) return null;
  // A direct push below 76 bytes, OP_PUSHDATA1 from 76: only the minimal push is a record.
  const direct = script[1]! < OP_PUSHDATA1;
  if (!direct && script[1] !== OP_PUSHDATA1) return null;
  const length = direct ? script[1]! : (script[2] ?? 0);
  const start = direct ? 2 : 3;
  if (length < OP_PUSHDATA1 !== direct || script.length !== start + length) return null;
  return decodeStateRecord(script.subarray(start));
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
