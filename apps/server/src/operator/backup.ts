// `npm run backup -- [file]` and `npm run restore -- <file>` (README "Operate on signet"): SQLite's
// online backup (better-sqlite3's `.backup()`, page by page, consistent while the server writes),
// and a restore that checks the copy before it takes the database's place. PostgreSQL has its own
// tools (pg_dump / pg_restore), which these commands name rather than wrap.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';
import { ConfigError, loadConfig, type ServerConfig } from '../config';
import { createPrivateFile, ensurePrivateDir, tightenDatabaseFiles } from '../store/secret-files';

const POSTGRES_HINT = (what: 'backup' | 'restore') =>
  what === 'backup'
    ? 'DATABASE_URL is PostgreSQL: back it up with its own tool, e.g. pg_dump --format=custom --file=unit.dump "$DATABASE_URL"'
    : 'DATABASE_URL is PostgreSQL: restore with its own tool, e.g. pg_restore --clean --if-exists --dbname="$DATABASE_URL" unit.dump';

const databaseFile = (config: ServerConfig) => path.join(config.dataDir, 'unit.db');

/** Tables a database of this server has, whatever its age: a file without them is not one. */
const REQUIRED_TABLES = ['settings', 'vaults', 'vault_history', 'kysely_migration'];

/** Copies the live SQLite database to `target` (default DATA_DIR/backups/unit-<time>.db). */
export async function backupDatabase(config: ServerConfig, target?: string): Promise<string> {
  if (config.databaseUrl) throw new Error(POSTGRES_HINT('backup'));
  const source = databaseFile(config);
  if (!fs.existsSync(source)) throw new Error(`no database at ${source}`);
  const file = path.resolve(
    target ??
      path.join(
        config.dataDir,
        'backups',
        `unit-${new Date().toISOString().replace(/[:.]/g, '-')}.db`,
      ),
  );
  if (fs.existsSync(file)) throw new Error(`${file} exists; name a new file`);
  // The copy holds what the database holds: the owner's alone, from its first byte.
  createPrivateFile(file);
  const db = new SQLite(source, { fileMustExist: true });
  try {
    // The server may be writing: SQLite's backup API copies a consistent snapshot regardless.
    db.pragma('busy_timeout = 5000');
    await db.backup(file);
  } finally {
    db.close();
  }
  checkDatabaseFile(file);
  return file;
}

/** Throws unless `file` is a whole SQLite database of this server. */
export function checkDatabaseFile(file: string): void {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new Error(`${file} is damaged: ${String(integrity)}`);
    const tables = new Set(
      (
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
          name: string;
        }[]
      ).map((row) => row.name),
    );
    const missing = REQUIRED_TABLES.filter((table) => !tables.has(table));
    if (missing.length > 0)
      throw new Error(`${file} is not this server's database (no ${missing.join(', ')})`);
  } finally {
    db.close();
  }
}

/**
 * Puts `backup` in the database's place. The server must be stopped; the database it replaces is
 * kept beside it (unit.db.before-restore-<time>), never deleted.
 */
export function restoreDatabase(
  config: ServerConfig,
  backup: string,
): { restored: string; kept: string | null } {
  if (config.databaseUrl) throw new Error(POSTGRES_HINT('restore'));
  const source = path.resolve(backup);
  checkDatabaseFile(source);
  const target = databaseFile(config);
  ensurePrivateDir(path.dirname(target));
  let kept: string | null = null;
  if (fs.existsSync(target)) {
    kept = `${target}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    // The live file and its write-ahead log move together: the log belongs to the old database.
    fs.renameSync(target, kept);
    for (const suffix of ['-wal', '-shm'])
      if (fs.existsSync(target + suffix)) fs.renameSync(target + suffix, kept + suffix);
    // Kept as it was, but the owner's alone like every database file (an older start's was 0644).
    tightenDatabaseFiles(kept);
  }
  const temporary = `${target}.restoring`;
  fs.copyFileSync(source, temporary);
  fs.chmodSync(temporary, 0o600);
  fs.renameSync(temporary, target);
  return { restored: target, kept };
}

async function main(args: string[]): Promise<void> {
  const [command, file] = args;
  // Backups need no chain: a configuration missing only a rune id still names the database.
  const config = loadConfig(process.env, { runeIdRequired: false });
  if (command === 'backup') {
    console.log(`backup written to ${await backupDatabase(config, file)}`);
  } else if (command === 'restore' && file) {
    const { restored, kept } = restoreDatabase(config, file);
    console.log(
      `restored ${file} to ${restored}${kept ? `; the database it replaced is kept at ${kept}` : ''}`,
    );
  } else {
    throw new Error('usage: npm run backup -- [file] | npm run restore -- <file> (server stopped)');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(err instanceof ConfigError ? 2 : 1);
    },
  );
}
