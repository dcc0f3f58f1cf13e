// npm run backup / restore mid-flow: a backup taken while a borrow is being
// written is a whole database; restored in place of the server's, the server starts from it with
// its vault, history and (on the devnet) the chain in agreement, and goes on taking requests.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import SQLite from 'better-sqlite3';
import { loadConfig } from '../../src/config';
import { backupDatabase, checkDatabaseFile, restoreDatabase } from '../../src/operator/backup';
import { getVaultByPubkey } from '../../src/store';
import { startTestApp } from '../support';
import { prepareBorrow, prepareOpen } from '../cluster/instances';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-backup-'));
const env = { DATA_DIR: dataDir };
const config = () => loadConfig({ ...env });

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const start = () =>
  startTestApp(env, { devnetWriteLimitPerMinute: 10_000, writeLimitPerMinute: 10_000 });

describe('npm run backup and restore', () => {
  it('backs up mid-borrow, restores, and the server resumes from the copy', async () => {
    const server = await start();
    let owner;
    let backupFile: string;
    try {
      const open = await prepareOpen(server, 2_000_000n, 20_000n);
      await open.submit();
      open.close();
      owner = open.owner;
      await server.devnet!.mine(1);
      // Mid-flow: a reservation is live and the borrow's writes run while the backup copies.
      const borrow = await prepareBorrow(server, owner, 10_000n);
      const [file] = await Promise.all([
        backupDatabase(config(), path.join(dataDir, 'backups', 'mid-borrow.db')),
        borrow.submit(),
      ]);
      borrow.close();
      backupFile = file;
      expect((fs.statSync(backupFile).mode & 0o777).toString(8)).toBe('600');
      // After the copy, the live database moves on: one more block the backup cannot know.
      await server.devnet!.mine(1);
    } finally {
      await server.stop();
    }
    checkDatabaseFile(backupFile);

    // What the copy holds, read directly: the vault, its history and the chain agree.
    const copy = new SQLite(backupFile, { readonly: true });
    const vault = copy
      .prepare(
        'SELECT vault_id, vault_txid, vault_vout, unit_borrowed FROM vaults WHERE vault_pubkey = ?',
      )
      .get(owner.vaultPubkey) as {
      vault_id: string;
      vault_txid: string;
      vault_vout: number;
      unit_borrowed: number;
    };
    const history = copy
      .prepare('SELECT action, transaction_id FROM vault_history WHERE vault_id = ? ORDER BY id')
      .all(vault.vault_id) as { action: string; transaction_id: string }[];
    const output = copy
      .prepare('SELECT spent_txid FROM devnet_outputs WHERE txid = ? AND vout = ?')
      .get(vault.vault_txid, vault.vault_vout) as { spent_txid: string | null } | undefined;
    copy.close();
    expect(history[0]!.action).toBe('o');
    expect(history.map((h) => h.action)).toEqual(
      vault.unit_borrowed === 30_000 ? ['o', 'b'] : ['o'],
    );
    expect(history.at(-1)!.transaction_id).toBe(vault.vault_txid);
    expect(output?.spent_txid).toBeNull();

    // Restore in the server's place (stopped), the replaced database kept aside.
    // The live database as an older start left it, readable by others: kept aside owner-only.
    fs.chmodSync(path.join(dataDir, 'unit.db'), 0o644);
    const { kept } = restoreDatabase(config(), backupFile);
    expect(kept && fs.existsSync(kept)).toBe(true);
    expect((fs.statSync(kept!).mode & 0o777).toString(8)).toBe('600');
    expect((fs.statSync(path.join(dataDir, 'unit.db')).mode & 0o777).toString(8)).toBe('600');
    const restored = await start();
    try {
      const row = (await getVaultByPubkey(restored.store.db, owner.vaultPubkey))!;
      expect(row.vault_txid).toBe(vault.vault_txid);
      expect(Number(row.unit_borrowed)).toBe(vault.unit_borrowed);
      // And it goes on: a borrow on the restored server is co-signed and recorded.
      const again = await prepareBorrow(restored, owner, 5_000n);
      await again.submit();
      again.close();
      const after = (await getVaultByPubkey(restored.store.db, owner.vaultPubkey))!;
      expect(Number(after.unit_borrowed)).toBe(vault.unit_borrowed + 5_000);
    } finally {
      await restored.stop();
    }
  }, 120_000);

  it("refuses a file that is not this server's database, and names pg_dump for PostgreSQL", async () => {
    const junk = path.join(dataDir, 'junk.db');
    new SQLite(junk).close();
    expect(() => restoreDatabase(config(), junk)).toThrow(/not this server's database/);
    const pg = loadConfig({ ...env, DATABASE_URL: 'postgres://u@127.0.0.1/x' });
    await expect(backupDatabase(pg)).rejects.toThrow(/pg_dump/);
    expect(() => restoreDatabase(pg, junk)).toThrow(/pg_restore/);
  });
});
