// The vault's Taproot output: an unspendable internal key and two script leaves (docs/protocol.md,
// "The vault output"). The leaf scripts are written byte by byte so that every party (wallet,
// guardian, devnet) derives the very same output from the same three values.
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { p2tr, TAPROOT_UNSPENDABLE_KEY, TaprootControlBlock } from '@scure/btc-signer';
import type { TransactionInput } from '@scure/btc-signer/psbt.js';
import { concatBytes, equalBytes, hash160, type BTC_NETWORK } from '@scure/btc-signer/utils.js';

/** BIP342 tapscript leaf version; the only one our leaves use. */
export const TAPSCRIPT_LEAF_VERSION = 0xc0;

const OP_EQUALVERIFY = 0x88;
const OP_HASH160 = 0xa9;
const OP_CHECKSIGVERIFY = 0xad;
const OP_CHECKSIG = 0xac;
const PUSH_20 = 0x14;
const PUSH_32 = 0x20;

function assertLength(bytes: Uint8Array, length: number, what: string): void {
  if (bytes.length !== length)
    throw new Error(`${what} must be ${length} bytes, got ${bytes.length}`);
}

/** `<vault_pubkey> OP_CHECKSIGVERIFY <guard_pubkey> OP_CHECKSIG`: user and guardian together. */
export function updateLeafScript(vaultPubkey: Uint8Array, guardPubkey: Uint8Array): Uint8Array {
  assertLength(vaultPubkey, 32, 'vault_pubkey');
  assertLength(guardPubkey, 32, 'guard_pubkey');
  return concatBytes(
    new Uint8Array([PUSH_32]),
    vaultPubkey,
    new Uint8Array([OP_CHECKSIGVERIFY, PUSH_32]),
    guardPubkey,
    new Uint8Array([OP_CHECKSIG]),
  );
}

/** `OP_HASH160 <threshold_hash> OP_EQUALVERIFY <guard_pubkey> OP_CHECKSIG`: opens once the oracle reveals the secret. */
export function liquidationLeafScript(
  thresholdHash: Uint8Array,
  guardPubkey: Uint8Array,
): Uint8Array {
  assertLength(thresholdHash, 20, 'threshold_hash');
  assertLength(guardPubkey, 32, 'guard_pubkey');
  return concatBytes(
    new Uint8Array([OP_HASH160, PUSH_20]),
    thresholdHash,
    new Uint8Array([OP_EQUALVERIFY, PUSH_32]),
    guardPubkey,
    new Uint8Array([OP_CHECKSIG]),
  );
}

export type TapLeafKind =
  | { kind: 'update'; vaultPubkey: Uint8Array; guardPubkey: Uint8Array }
  | { kind: 'liquidation'; thresholdHash: Uint8Array; guardPubkey: Uint8Array };

/** Recognises exactly the two vault leaves; anything else is `null`. */
export function classifyTapLeaf(script: Uint8Array): TapLeafKind | null {
  if (
    script.length === 68 &&
    script[0] === PUSH_32 &&
    script[33] === OP_CHECKSIGVERIFY &&
    script[34] === PUSH_32 &&
    script[67] === OP_CHECKSIG
  ) {
    return { kind: 'update', vaultPubkey: script.slice(1, 33), guardPubkey: script.slice(35, 67) };
  }
  if (
    script.length === 57 &&
    script[0] === OP_HASH160 &&
    script[1] === PUSH_20 &&
    script[22] === OP_EQUALVERIFY &&
    script[23] === PUSH_32 &&
    script[56] === OP_CHECKSIG
  ) {
    return {
      kind: 'liquidation',
      thresholdHash: script.slice(2, 22),
      guardPubkey: script.slice(24, 56),
    };
  }
  return null;
}

export interface VaultOutputParams {
  vaultPubkey: Uint8Array;
  guardPubkey: Uint8Array;
  thresholdHash: Uint8Array;
  network: BTC_NETWORK;
}

/** One `[control block, script || leaf version]` pair, the shape btc-signer takes as `tapLeafScript`. */
export type TapLeafScript = NonNullable<TransactionInput['tapLeafScript']>[number];

export interface VaultOutput {
  script: Uint8Array;
  address: string;
  /** The Taproot output key (x-only) the script commits to. */
  tweakedPubkey: Uint8Array;
  tapInternalKey: Uint8Array;
  tapMerkleRoot: Uint8Array;
  /** Ready for `tx.addInput({ ..., tapLeafScript })`; index 0 update, 1 liquidation. */
  tapLeafScript: TapLeafScript[];
  updateLeaf: { script: Uint8Array; controlBlock: Uint8Array };
  liquidationLeaf: { script: Uint8Array; controlBlock: Uint8Array };
}

/** The vault output of docs/protocol.md: `p2tr(TAPROOT_UNSPENDABLE_KEY, [updateLeaf, liquidationLeaf])`. */
export function vaultOutput({
  vaultPubkey,
  guardPubkey,
  thresholdHash,
  network,
}: VaultOutputParams): VaultOutput {
  const update = updateLeafScript(vaultPubkey, guardPubkey);
  const liquidation = liquidationLeafScript(thresholdHash, guardPubkey);
  // The liquidation leaf is no template btc-signer knows, hence allowUnknownOutputs.
  const out = p2tr(
    TAPROOT_UNSPENDABLE_KEY,
    [{ script: update }, { script: liquidation }],
    network,
    true,
  );
  const tapLeafScript = [...(out.tapLeafScript ?? [])];
  const leafFor = (script: Uint8Array) => {
    const leaf = tapLeafScript.find(([, s]) => equalBytes(s.subarray(0, -1), script));
    if (!leaf) throw new Error('vault leaf missing from the Taproot tree');
    return { script, controlBlock: TaprootControlBlock.encode(leaf[0]) };
  };
  return {
    script: out.script,
    address: out.address,
    tweakedPubkey: out.tweakedPubkey,
    tapInternalKey: out.tapInternalKey,
    tapMerkleRoot: out.tapMerkleRoot,
    tapLeafScript,
    updateLeaf: leafFor(update),
    liquidationLeaf: leafFor(liquidation),
  };
}

const THRESHOLD_TAG = new TextEncoder().encode('unit/threshold');

function u64be(value: bigint): Uint8Array {
  if (value < 0n || value >= 1n << 64n) throw new Error('value out of u64 range');
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, value);
  return out;
}

function u32be(value: number): Uint8Array {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
    throw new Error('value out of u32 range');
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value);
  return out;
}

/** `HMAC-SHA256(oracle_secret, "unit/threshold" || u64be(th_cents) || u32be(stamp))` (docs/protocol.md). */
export function thresholdSecret(
  oracleSecret: Uint8Array,
  thCents: bigint,
  stamp: number,
): Uint8Array {
  return hmac(sha256, oracleSecret, concatBytes(THRESHOLD_TAG, u64be(thCents), u32be(stamp)));
}

/** `threshold_hash = hash160(secret)`: what the liquidation leaf commits to. */
export function thresholdHash(secret: Uint8Array): Uint8Array {
  return hash160(secret);
}
