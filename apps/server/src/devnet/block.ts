// Real block headers for the devnet: a merkle root over the txids and a double-SHA256 header hash,
// so block hashes look and behave like Bitcoin's (display order = reversed internal bytes).
import { sha256 } from '@noble/hashes/sha2.js';
import { hex } from '@scure/base';

const sha256d = (data: Uint8Array): Uint8Array => sha256(sha256(data));

/** Display-order hex (txid, block hash) to internal byte order, and back. */
export const internalBytes = (displayHex: string): Uint8Array => hex.decode(displayHex).reverse();
export const displayHex = (internal: Uint8Array): string =>
  hex.encode(Uint8Array.from(internal).reverse());

export function merkleRoot(txids: readonly string[]): Uint8Array {
  if (txids.length === 0) throw new Error('a block holds at least its coinbase');
  let level = txids.map(internalBytes);
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i]!;
      // Bitcoin pairs an odd last node with itself.
      const right = level[i + 1] ?? left;
      const pair = new Uint8Array(64);
      pair.set(left, 0);
      pair.set(right, 32);
      next.push(sha256d(pair));
    }
    level = next;
  }
  return level[0]!;
}

// Regtest's proof-of-work limit: any nonce satisfies it, so no mining loop is needed.
export const REGTEST_BITS = 0x207fffff;
/** Core's GetDifficulty of REGTEST_BITS: 0xffff / 0x7fffff, shifted three bytes down. */
export const REGTEST_DIFFICULTY = 0xffff / 0x7fffff / 256 ** 3;
export const VERSION = 0x20000000;

export function blockHash(prevHash: string, txids: readonly string[], time: number): string {
  const header = new Uint8Array(80);
  const view = new DataView(header.buffer);
  view.setUint32(0, VERSION, true);
  header.set(internalBytes(prevHash), 4);
  header.set(merkleRoot(txids), 36);
  view.setUint32(68, time, true);
  view.setUint32(72, REGTEST_BITS, true);
  view.setUint32(76, 0, true);
  return displayHex(sha256d(header));
}

export const ZERO_HASH = '0'.repeat(64);
