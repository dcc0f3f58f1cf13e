// The guardian's keys: `guard_pubkey` co-signs vault spends, a second key holds the UNIT treasury
// (docs/protocol.md, Keys). On the devnet they are generated and stored at first start; elsewhere
// GUARDIAN_KEY must be given, so a real network never runs on a key that lives only in a database.
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import type { Kysely } from 'kysely';
import type { Network } from '@unit/protocol';
import type { Database } from './schema';
import { getOrCreateSetting } from './settings';

export interface GuardianKeys {
  guardianSecretKey: Uint8Array;
  /** x-only, hex */
  guardPubkey: string;
  treasurySecretKey: Uint8Array;
  /** x-only, hex */
  treasuryPubkey: string;
  /**
   * true when `treasuryPubkey` is the guardian network's group key, whose treasury output is
   * `OP_1 <key>` (guardian/treasury-output.ts); unset for this server's own treasury key.
   */
  treasuryIsGroupKey?: boolean;
}

/** One configured secret yields both keys: the treasury key is derived under its own tag. */
function deriveTreasuryKey(guardianSecretKey: Uint8Array): Uint8Array {
  const tag = new TextEncoder().encode('unit/treasury');
  for (let counter = 0; ; counter++) {
    const candidate = hmac(sha256, guardianSecretKey, new Uint8Array([...tag, counter]));
    if (secp256k1.utils.isValidSecretKey(candidate)) return candidate;
  }
}

export async function loadGuardianKeys(
  db: Kysely<Database>,
  options: { guardianKey: string | null; network: Network },
): Promise<GuardianKeys> {
  let secretHex = options.guardianKey;
  if (secretHex === null) {
    if (options.network !== 'devnet') {
      throw new Error(`GUARDIAN_KEY is required on ${options.network}`);
    }
    secretHex = await getOrCreateSetting(db, 'guardian_key', () =>
      bytesToHex(schnorr.utils.randomSecretKey()),
    );
  }
  const guardianSecretKey = hexToBytes(secretHex);
  if (!secp256k1.utils.isValidSecretKey(guardianSecretKey)) {
    throw new Error('GUARDIAN_KEY is not a valid secp256k1 secret key');
  }
  const treasurySecretKey = deriveTreasuryKey(guardianSecretKey);
  return {
    guardianSecretKey,
    guardPubkey: bytesToHex(schnorr.getPublicKey(guardianSecretKey)),
    treasurySecretKey,
    treasuryPubkey: bytesToHex(schnorr.getPublicKey(treasurySecretKey)),
  };
}
