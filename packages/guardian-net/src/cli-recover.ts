// `npm run guardian -- recover --dir <guardian dir> --transcript <dkg-transcript.json> [--set
// <guardian-set.json>]`: a guardian that lost its share after its network's first DKG rebuilds it
// from its identity key (restored from its backup into <guardian dir>) and the DKG's public
// transcript, which the coordinator keeps in its network directory (dkg-recovery.ts). It writes the
// share and the set only when the share is the guardian's verifying share in the certified set, and
// never into a directory that already holds a share or a set. The set is the transcript's
// certificate: by default set 1 of the network directory beside the transcript.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { recoverShare } from './dkg-recovery';
import { loadIdentity } from './identity';
import { installFilesIn } from './installed-dir';
import { writeInstalledSet } from './set-files';

function readJson(path: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`${path} is not ${what}: ${(e as Error).message}.`);
  }
}

export function recoverCommand(
  args: string[],
  log: (event: Record<string, unknown>) => void,
): void {
  const { values } = parseArgs({
    args,
    options: { dir: { type: 'string' }, transcript: { type: 'string' }, set: { type: 'string' } },
  });
  if (!values.dir || !values.transcript)
    throw new Error(
      'recover needs --dir <guardian dir> and --transcript <the DKG transcript file>.',
    );
  const dir = resolve(values.dir);
  const transcript = resolve(values.transcript);
  const taken = installFilesIn(dir);
  if (taken.length > 0)
    throw new Error(`${dir} already holds ${taken.join(', ')}; nothing was changed. Recover into the directory of a guardian that lost its share.`); // prettier-ignore
  if (!existsSync(join(dir, 'identity.json')))
    throw new Error(`${dir} has no identity.json: restore it from this guardian's backup first.`);
  // The DKG's certificate: set 1 of the network directory (kept as guardian-set-v1.json after a change).
  const first = join(dirname(transcript), 'guardian-set-v1.json');
  const setPath = values.set ? resolve(values.set) : existsSync(first) ? first : join(dirname(transcript), 'guardian-set.json'); // prettier-ignore
  const identity = loadIdentity(join(dir, 'identity.json'));
  const { set, id, secret } = recoverShare(
    identity,
    readJson(transcript, 'a DKG transcript'),
    readJson(setPath, 'a guardian set'),
  );
  writeInstalledSet(dir, set, { guardianId: id, secret, groupKey: set.groupKey! });
  log({
    event: 'share-recovered',
    guardian: id,
    version: set.version,
    groupKey: set.groupKey,
    dir,
  });
}
