// A claim a block showed can never be mined: the chats that follow the claimant's vault are told
// once, in the dashboard's words, on SQLite always and on PostgreSQL when TEST_DATABASE_URL is set;
// a chat of another network, or one following another vault, is not.
import { describe, expect, it } from 'vitest';
import { failedSentence } from '@unit/protocol';
import { accountMigrations } from '../../src/auth/migrations';
import { devnetMigrations } from '../../src/devnet/migrations';
import { queueClaimFailed } from '../../src/notify/telegram-claim-failed';
import { insertVault } from '../../src/store';
import { subscribeTelegram } from '../../src/store/telegram';
import { storeDialects, storePerTest, termedVaultRow } from '../dialect-stores';

const CLAIMANT = 'tb1qclaimant0000000000000000000000000000000';
const OTHER = 'tb1qsomeoneelse000000000000000000000000000';
const POLICY = { max_attempts: 3, retry_delay_ms: 10 };
const CLAIM = 'cc'.repeat(32);

describe.each(storeDialects('claimtg'))('a failed claim on Telegram on %s', (_, open) => {
  const openedStore = storePerTest(open, { ...devnetMigrations, ...accountMigrations });

  it('tells the claimant’s chats once why their claim did not go through', async () => {
    const { db } = await openedStore();
    const claimant = { ...termedVaultRow(1), creation_account: CLAIMANT };
    await insertVault(db, claimant);
    await insertVault(db, { ...termedVaultRow(2), creation_account: OTHER });
    await subscribeTelegram(db, { address: CLAIMANT, chat_id: '42', network: 'devnet' });
    await subscribeTelegram(db, { address: CLAIMANT, chat_id: '43', network: 'mainnet' });
    await subscribeTelegram(db, { address: OTHER, chat_id: '44', network: 'devnet' });
    const tell = (cause: 'exit' | 'input_spent') =>
      queueClaimFailed(db, {
        network: 'devnet',
        policy: POLICY,
        claim: { claimant: claimant.vault_id, txid: CLAIM, cause },
      });
    expect(await tell('exit')).toBe(1);
    await tell('exit');
    const queued = await db
      .selectFrom('telegram_outbox')
      .select(['chat_id', 'text', 'max_attempts'])
      .execute();
    expect(queued).toEqual([
      {
        chat_id: '42',
        text: `Vault ${claimant.vault_tag}: ${failedSentence('repossess', 'exit', null)}`,
        max_attempts: 3,
      },
    ]);
    expect(queued[0]!.text).toContain('its owner took the vault back by its exit first');
  });
});
