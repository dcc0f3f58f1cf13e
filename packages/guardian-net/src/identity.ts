// A party's identity key: a BIP-340 key that signs every message it sends. Its public half is
// listed in the guardian set; its secret half lives in a 0600 file next to the party's store.
import { schnorr } from '@noble/curves/secp256k1.js';
import { existsSync } from 'node:fs';
import { bytesToHex, parseHex } from './canonical';
import { readSecretFile, writeSecretFile } from './secret-file';

export interface Identity {
  /** x-only, 32 bytes, hex */
  publicKey: string;
  secretKey: Uint8Array;
}

export function newIdentity(): Identity {
  const secretKey = schnorr.utils.randomSecretKey();
  return { secretKey, publicKey: bytesToHex(schnorr.getPublicKey(secretKey)) };
}

export function loadIdentity(path: string): Identity {
  const raw = JSON.parse(readSecretFile(path)) as { secretKey?: unknown };
  const secretKey = parseHex(raw.secretKey, 32, 'identity secretKey');
  return { secretKey, publicKey: bytesToHex(schnorr.getPublicKey(secretKey)) };
}

/** Loads the identity at `path`, creating a new one (0600) when there is none. */
export function ensureIdentity(path: string): Identity {
  if (existsSync(path)) return loadIdentity(path);
  const id = newIdentity();
  writeSecretFile(path, JSON.stringify({ secretKey: bytesToHex(id.secretKey) }) + '\n');
  return id;
}
