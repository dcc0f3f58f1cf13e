// The sets a guardian holds a share of, on disk in its own directory. The first set it joined is
// `guardian-set.json` with `share.json` (the layout before rotation); each set it joins by a
// rotation is `guardian-set-v<version>.json` with `share-v<version>.json`. It keeps an old set's
// share, and signs for that set, until the set is retired (docs/protocol.md): old vaults stay under the
// old group key until their next action moves them to the new one.
import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { readShareFile, writeShareFile, type ShareFile } from './frost';
import { verifySet, type GuardianSet } from './guardian-set';

export interface SetFiles {
  set: string;
  share: string;
}

const VERSIONED = /^guardian-set-v([1-9][0-9]{0,9})\.json$/;

export function setFiles(dir: string, version?: number): SetFiles {
  return version === undefined
    ? { set: join(dir, 'guardian-set.json'), share: join(dir, 'share.json') }
    : {
        set: join(dir, `guardian-set-v${version}.json`),
        share: join(dir, `share-v${version}.json`),
      };
}

export interface InstalledSet {
  set: GuardianSet;
  share: ShareFile;
  files: SetFiles;
}

/**
 * Every set in the directory with its share, oldest first. A set file is the commit point of an
 * install (its share is written first), so a share without its set is ignored; a set without its
 * share, or a share for another group key, is an error.
 */
export function loadInstalledSets(dir: string): InstalledSet[] {
  const all: SetFiles[] = [];
  if (existsSync(setFiles(dir).set)) all.push(setFiles(dir));
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    const m = VERSIONED.exec(name);
    if (m) all.push(setFiles(dir, Number(m[1])));
  }
  const installed = all.map((files) => {
    const set = verifySet(JSON.parse(readFileSync(files.set, 'utf8')));
    if (!existsSync(files.share)) throw new Error(`${files.set} has no share file beside it`);
    const share = readShareFile(files.share);
    if (share.groupKey !== set.groupKey)
      throw new Error(`${files.share} is for another group key than ${files.set}`);
    return { set, share, files };
  });
  const versions = new Set(installed.map((i) => i.set.version));
  if (versions.size !== installed.length) throw new Error(`${dir} holds two sets of one version`);
  return installed.sort((a, b) => a.set.version - b.set.version);
}

/** Writes a newly installed set: the share first (0600), then the set, which commits it. */
export function writeInstalledSet(dir: string, set: GuardianSet, share: ShareFile): SetFiles {
  const first = !existsSync(setFiles(dir).set);
  const files = first ? setFiles(dir) : setFiles(dir, set.version);
  if (existsSync(files.set)) throw new Error(`${files.set} exists`);
  writeShareFile(files.share, share);
  writeFileSync(files.set, JSON.stringify(set, null, 2) + '\n');
  return files;
}

/**
 * A network directory's set about to be replaced, kept as `dest` (`guardian-set-v<n>.json`) with
 * its file time, which /network shows as when the set was published there.
 */
export function keepSetFile(src: string, dest: string): void {
  if (existsSync(dest)) return;
  const st = statSync(src);
  copyFileSync(src, dest);
  utimesSync(dest, st.atime, st.mtime);
}
