// The owners who follow a vault on Telegram are warned 30, 7 and 1 days before its term (scaled to
// the configured term), once each per term, and not for a vault far from its term or not active.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEVNET_TERM_CONFIG, termWarningText } from '@unit/protocol';
import { insertVault, migrateToLatest, openStore, type Store } from '../../src/store';
import { accountMigrations } from '../../src/auth/migrations';
import { devnetMigrations } from '../../src/devnet/migrations';
import { subscribeTelegram } from '../../src/store/telegram';
import { queueTermWarnings } from '../../src/notify/telegram-term-warnings';

const OWNER = 'tb1qowneraddress000000000000000000000000000';
const POLICY = { max_attempts: 3, retry_delay_ms: 10 };

function vault(id: string, settleHeight: number | null, status: 'active' | 'liquidated') {
  return {
    vault_id: id.repeat(64),
    vault_tag: `tag${id}`,
    vault_pubkey: id.repeat(64),
    name: 'Term',
    creation_account: OWNER,
    runes_account: OWNER,
    btc_locked: 1_000_000,
    unit_borrowed: 30_000,
    vault_txid: id.repeat(64),
    vault_vout: 0,
    threshold_cents: 4_050_000,
    stamp: 1_700_000_000,
    status,
    created_at: 1_700_000_000,
    settle_height: settleHeight,
    exit_height: settleHeight === null ? null : settleHeight + 20,
  };
}

describe('term warnings on Telegram', () => {
  let dir: string;
  let store: Store;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-term-'));
    store = await openStore({ file: path.join(dir, 'unit.db') });
    await migrateToLatest(store.db, { ...devnetMigrations, ...accountMigrations });
    await subscribeTelegram(store.db, { address: OWNER, chat_id: '42', network: 'devnet' });
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const queued = () =>
    store.db.selectFrom('telegram_outbox').select(['chat_id', 'text']).orderBy('id').execute();
  const warn = (tipHeight: number) =>
    queueTermWarnings(store.db, {
      network: 'devnet',
      tipHeight,
      term: DEVNET_TERM_CONFIG,
      policy: POLICY,
    });

  it('warns at each threshold once, and never a vault far from its term or not active', async () => {
    await insertVault(store.db, vault('a', 140, 'active'));
    await insertVault(store.db, vault('b', 200, 'active'));
    await insertVault(store.db, vault('c', 140, 'liquidated'));
    await insertVault(store.db, vault('d', null, 'active'));
    await warn(135);
    expect(await queued()).toEqual([]);
    await warn(136);
    await warn(137);
    await warn(139);
    await warn(139);
    await warn(140);
    const text = (days: number, left: number) => {
      const t = termWarningText({ days, blocksLeft: left, settleHeight: 140 });
      return [`Vault taga: ${t.title}.`, t.body, t.whatToDo].join('\n');
    };
    expect(await queued()).toEqual([
      { chat_id: '42', text: text(30, 4) },
      { chat_id: '42', text: text(1, 1) },
    ]);
  });
});
