// The owners who follow a vault on Telegram are warned 30, 7 and 1 days before its term (scaled to
// the configured term), once each per term, and not for a vault far from its term or not active.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEVNET_TERM_CONFIG, termWarningText } from '@unit/protocol';
import { insertVault, type Store } from '../../src/store';
import { subscribeTelegram } from '../../src/store/telegram';
import { queueTermWarnings } from '../../src/notify/telegram-term-warnings';
import { termVault } from '../rows';
import { closeTempStore, openTempStore } from '../temp-store';

const OWNER = 'tb1qowneraddress000000000000000000000000000';
const POLICY = { max_attempts: 3, retry_delay_ms: 10 };

const vault = (id: string, settleHeight: number | null, status: 'active' | 'liquidated') =>
  termVault(id, settleHeight, status, {
    ...{ creation_account: OWNER, runes_account: OWNER, btc_locked: 1_000_000 },
    unit_borrowed: 30_000,
  });

describe('term warnings on Telegram', () => {
  let store: Store;
  beforeEach(async () => {
    store = await openTempStore('unit-term-');
    await subscribeTelegram(store.db, { address: OWNER, chat_id: '42', network: 'devnet' });
  });
  afterEach(() => closeTempStore(store));

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
