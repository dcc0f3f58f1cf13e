// Secret files (an identity key, a FROST share) are readable by their guardian's user only: a file
// with any group or other permission bit is refused at start, and new ones are written 0600.
import {
  chmodSync,
  closeSync,
  fsyncSync,
  openSync,
  renameSync,
  statSync,
  writeSync,
} from 'node:fs';
import { readFileSync } from 'node:fs';

export class SecretFileError extends Error {}

export function readSecretFile(path: string): string {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    throw new SecretFileError(`secret file ${path} does not exist`);
  }
  if ((mode & 0o077) !== 0)
    throw new SecretFileError(
      `secret file ${path} is readable by others (mode ${(mode & 0o777).toString(8)}); run chmod 600 ${path}`,
    );
  return readFileSync(path, 'utf8');
}

/** Writes via a 0600 temporary file, fsync and rename, so a crash leaves the old file or the new one. */
export function writeSecretFile(path: string, contents: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, contents);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}
