// Files only their owner can read: the data directory (0700), every database file and every secret
// (0600). A key never lives in a database table: each has its own file, and a row an older server
// stored is moved out into its file at start (nothing lost: a file that holds another value stops
// the start instead of either value being dropped).
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config';

const othersCanReach = (mode: number) => process.platform !== 'win32' && (mode & 0o077) !== 0;

/** Creates `dir` (and its parents) 0700, or takes group and other permissions off one that exists. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (othersCanReach(fs.statSync(dir).mode)) fs.chmodSync(dir, 0o700);
}

/** Takes group and other permissions off `file` when it exists (a database file of an older start). */
export function tightenFile(file: string): void {
  try {
    if (othersCanReach(fs.statSync(file).mode)) fs.chmodSync(file, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** An SQLite database's files (the main file, its write-ahead log and shared memory), owner-only. */
export function tightenDatabaseFiles(file: string): void {
  for (const suffix of ['', '-wal', '-shm']) tightenFile(file + suffix);
}

/**
 * Creates an empty file 0600 where none is, so SQLite (which gives its -wal and -shm the main
 * file's mode) never makes a database others can read; tightens one that exists.
 */
export function createPrivateFile(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  tightenDatabaseFiles(file);
}

/** Why `file` cannot hold a secret as it is on disk, or null. `what` names it for the operator. */
export function secretFileProblem(file: string, what: string): string | null {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return `${what} ${file} cannot be read`;
  }
  if (!stat.isFile()) return `${what} ${file} is not a file`;
  if (othersCanReach(stat.mode))
    return `${what} ${file} can be read by others (mode ${(stat.mode & 0o777).toString(8)}); chmod 600 it`;
  return null;
}

/** The text of a secret file, refused (ConfigError) when others can read it. */
export function readSecretFile(file: string, what: string): string {
  const problem = secretFileProblem(file, what);
  if (problem) throw new ConfigError([problem]);
  return fs.readFileSync(file, 'utf8');
}

/** Writes a new secret file 0600 in a 0700 folder, refusing to replace one (a lost key strands funds). */
export function writeNewSecretFile(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
}

/** A secret a database row holds, and how to move it into its own file. */
export interface SecretRow {
  /** what the operator sees: the table and key of the row */
  row: string;
  /** what the file is, e.g. "ORACLE_KEY_FILE" */
  what: string;
  file: string;
  /** the file's text for the row's value */
  text: string;
  /** whether an existing file's text holds the row's value */
  matches(fileText: string): boolean;
  /** deletes the row once the file holds its value */
  remove(): Promise<void>;
}

/**
 * Moves a secret out of its row: the file is written (0600) when there is none, a file with the
 * same value is kept, and one with another value stops the start, naming both, so the operator
 * decides which key the vaults were made with. The row is deleted only once the file holds it.
 */
export async function moveSecretOut(secret: SecretRow): Promise<void> {
  if (fs.existsSync(secret.file)) {
    const text = readSecretFile(secret.file, secret.what);
    if (!secret.matches(text))
      throw new ConfigError([
        `${secret.what} ${secret.file} holds another key than the database's ${secret.row}, which this server keeps in that file only. ` +
          `Find which one this installation's vaults were made with, keep it in ${secret.file} (mode 600), and start again; ` +
          `to keep the file's, delete the row (the database's value is lost then).`,
      ]);
  } else {
    writeNewSecretFile(secret.file, secret.text);
  }
  await secret.remove();
}
