// A guardian's directory once it joined a set holds the files that make it that member: its
// identity key (named in the set), its oracle secret (its threshold hashes are in vaults' leaves)
// and a share per set. A start never makes a new identity or oracle secret there: a new one would
// not match the set, and would stand in the way of the backup the operator restores.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureIdentity, type Identity } from './identity';
import { ensureOracleSecret } from './oracle/threshold-oracle';

/** A share or set file (set-files.ts): the directory belongs to an installed guardian. */
const INSTALL_FILE = /^(share|guardian-set)(-v[1-9][0-9]{0,9})?\.json$/;

export class LostGuardianFileError extends Error {}

/** The share and set files in `dir` (none when it is missing or empty). */
export function installFilesIn(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((name) => INSTALL_FILE.test(name)) : [];
}

/**
 * Throws when `dir` belongs to an installed guardian (it holds a share or set file, or
 * `namedInSet`: a published set names this guardian) and a file that makes it that member is
 * missing, naming the files and what to do. A new guardian's directory passes.
 */
export function refuseLostGuardianFiles(dir: string, o: { id: number; namedInSet: boolean }): void {
  const installed = installFilesIn(dir);
  if (installed.length === 0 && !o.namedInSet) return;
  const missing = ['identity.json', 'oracle.json'].filter((f) => !existsSync(join(dir, f)));
  if (installed.length === 0) missing.push('share.json', 'guardian-set.json');
  if (missing.length === 0) return;
  const why =
    installed.length > 0
      ? `it holds ${installed.join(', ')}`
      : 'a published guardian set names this guardian';
  throw new LostGuardianFileError(
    `${o.id > 0 ? `guardian ${o.id}'s directory` : 'the guardian directory'} ${dir} has no ${missing.join(', ')}, but it belongs to an installed guardian (${why}); ` +
      `a new one would not match its set, so none is made. Restore ${missing.join(', ')} from this guardian's backup into ${dir} and start it again.`,
  );
}

/**
 * A guardian's identity at its start: made with its oracle secret at the first start of a new
 * guardian; an installed guardian's lost identity or oracle secret is restored from backup, never
 * made (refuseLostGuardianFiles).
 */
export function openGuardianDir(dir: string, o: { id: number; namedInSet: boolean }): Identity {
  refuseLostGuardianFiles(dir, o);
  const identity = ensureIdentity(join(dir, 'identity.json'));
  ensureOracleSecret(join(dir, 'oracle.json'));
  return identity;
}
