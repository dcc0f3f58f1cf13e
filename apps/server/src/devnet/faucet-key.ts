// The devnet faucet's key: given by the caller (tests), or kept in its own file (0600), made at the
// devnet's first start. Never in the database: an older devnet's `faucet_secret` row is moved into
// the file at start and deleted (store/secret-files.ts). The database keeps the key's public half,
// so a file of another devnet is refused rather than leaving a faucet that owns nothing.
import fs from 'node:fs';
import type { Kysely } from 'kysely';
import { hex } from '@scure/base';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ConfigError } from '../config';
import { moveSecretOut, readSecretFile, writeNewSecretFile } from '../store/secret-files';
import type { DevnetDatabase } from './tables';

type Db = Kysely<Pick<DevnetDatabase, 'devnet_meta'>>;

const WHAT = "The devnet faucet's key file";

async function moveRowOut(db: Db, row: string, file: string): Promise<void> {
  await moveSecretOut({
    row: 'devnet_meta faucet_secret',
    what: WHAT,
    file,
    text: `${row.toLowerCase()}\n`,
    matches: (text) => text.trim().toLowerCase() === row.toLowerCase(),
    remove: async () => {
      await db.deleteFrom('devnet_meta').where('key', '=', 'faucet_secret').execute();
    },
  });
}

function readKeyFile(file: string): Uint8Array {
  const text = readSecretFile(file, WHAT).trim().toLowerCase();
  const key = /^[0-9a-f]{64}$/.test(text) ? hex.decode(text) : null;
  if (!key || !secp256k1.utils.isValidSecretKey(key))
    throw new ConfigError([
      `${WHAT} ${file} must hold a secp256k1 secret key in 64 hex characters`,
    ]);
  return key;
}

/**
 * The faucet's secret key. `meta` is the devnet_meta table as read at start; `given` wins (a
 * test's fixed key), else `file` (made when missing). Throws when neither is given.
 */
export async function faucetSecretOf(
  db: Db,
  meta: ReadonlyMap<string, string>,
  o: { given?: Uint8Array; file?: string },
): Promise<Uint8Array> {
  const row = meta.get('faucet_secret');
  if (o.file && row !== undefined) await moveRowOut(db, row, o.file);
  let secret: Uint8Array;
  if (o.given) secret = o.given;
  else if (o.file) {
    if (!fs.existsSync(o.file))
      writeNewSecretFile(o.file, `${hex.encode(secp256k1.utils.randomSecretKey())}\n`);
    secret = readKeyFile(o.file);
  } else throw new Error('the devnet needs its faucet key: faucetSecret or faucetKeyFile');
  const pubkey = hex.encode(secp256k1.getPublicKey(secret, true));
  const known = meta.get('faucet_pubkey');
  if (known === undefined)
    await db.insertInto('devnet_meta').values({ key: 'faucet_pubkey', value: pubkey }).execute();
  else if (known !== pubkey)
    throw new ConfigError([
      `${WHAT} ${o.file ?? '(given)'} holds another key than this devnet's faucet (${known}); restore this devnet's key file, or remove the devnet's database to start a new chain`,
    ]);
  return secret;
}
