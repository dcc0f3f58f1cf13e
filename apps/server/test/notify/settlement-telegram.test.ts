// The owner who follows a vault on Telegram hears of its settlement at the term through the outbox,
// from the history record the settlement writes: once when it is sent, once when it is in a block,
// in plain words (what the vault held, what was repaid, where the rest went), and never twice; and
// of its exit once, from the record `e` the block watcher writes when the exit is mined.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { hex } from '@scure/base';
import { TEST_NETWORK } from '@scure/btc-signer';
import { scriptToAddress } from '@unit/bitcoin';
import { appendVaultHistory, insertVault, markHistoryConfirmed, type Store } from '../../src/store';
import { subscribeTelegram } from '../../src/store/telegram';
import { TelegramHistory } from '../../src/notify/telegram-history';
import { TelegramOutbox } from '../../src/notify/telegram-outbox';
import { closeTempStore, openTempStore } from '../temp-store';

const OWNER = 'tb1qowneraddress000000000000000000000000000';
const VAULT = 'ab'.repeat(32);
const TXID = 'cd'.repeat(32);

describe('a settlement at the term and an exit on Telegram', () => {
  let store: Store;
  beforeEach(async () => {
    store = await openTempStore('unit-settle-tg-');
    await subscribeTelegram(store.db, { address: OWNER, chat_id: '42', network: 'devnet' });
  });
  afterEach(() => closeTempStore(store));

  /** The outbox's history scan, begun, after a vault of a term ended at 140 that is now `status`. */
  async function endedVault(name: string, status: 'settled' | 'exited'): Promise<TelegramHistory> {
    const history = new TelegramHistory({
      db: store.db,
      network: 'devnet',
      explorerUrl: 'https://mempool.example',
      outbox: new TelegramOutbox(null as never, store.db, pino({ level: 'silent' }), 10),
    });
    await history.begin();
    await insertVault(store.db, {
      ...{ vault_id: VAULT, vault_tag: 'abababab', vault_pubkey: VAULT, name },
      ...{ creation_account: OWNER, runes_account: OWNER, btc_locked: 0, unit_borrowed: 0 },
      ...{ vault_txid: VAULT, vault_vout: 0, threshold_cents: 0, stamp: 1, created_at: 1 },
      ...{ settle_height: 140, exit_height: 160, status },
    });
    return history;
  }

  /** The texts queued for Telegram, oldest first. */
  const queued = async () =>
    (await store.db.selectFrom('telegram_outbox').select('text').orderBy('id').execute()).map(
      (r) => r.text,
    );

  it('queues the settlement sent and then confirmed, each once', async () => {
    const history = await endedVault('Term', 'settled');
    await appendVaultHistory(store.db, {
      ...{ vault_id: VAULT, timestamp: 2, action: 's', btc_amt: 1_000_000, unit_amt: 50_000 },
      ...{ vault_amount: 0, amount_borrowed: 0, oracle_price: 95_000, transaction_id: TXID },
      ...{ utxo: `${TXID}:1`, utxo_script: '', liquidation_hash: null },
      ...{ liquidation_threshold: null, confirmed: 0 },
    });
    await history.scan();
    await history.scan();
    await markHistoryConfirmed(store.db, TXID);
    await history.scan();
    await history.scan();
    const texts = await queued();
    // The dashboard's own words (@unit/protocol termSettledText), at the recorded price.
    const body = [
      'The guardians settled this vault at its term.',
      "No action renewed its term, so its debt of 500.00 UNIT was repaid from its collateral at $95,000 with the 15% liquidation tax, and the rest of its 0.01 BTC, less the network fee, was sent to your vault key's own address. That bitcoin is yours: your wallet spends it with the key it signed the vault with. Open a new vault to borrow again.",
    ].join('\n');
    expect(texts).toEqual([
      [
        'Term settlement submitted',
        body,
        `Vault: ${VAULT}`,
        `https://mempool.example/tx/${TXID}`,
      ].join('\n'),
      [
        'Term settlement confirmed',
        body,
        `Vault: ${VAULT}`,
        `https://mempool.example/tx/${TXID}`,
      ].join('\n'),
    ]);
  });

  it("queues the exit once, in the dashboard's words, with the address it paid", async () => {
    const history = await endedVault('Exit', 'exited');
    // A P2WPKH payout: its address is told from the script.
    const payout = `0014${'11'.repeat(20)}`;
    const address = scriptToAddress(hex.decode(payout), TEST_NETWORK)!;
    await appendVaultHistory(store.db, {
      ...{ vault_id: VAULT, timestamp: 2, action: 'e', btc_amt: 1_000_000, unit_amt: 50_000 },
      ...{ vault_amount: 0, amount_borrowed: 0, oracle_price: 0, transaction_id: TXID },
      ...{ utxo: `${TXID}:0`, utxo_script: payout, liquidation_hash: null },
      ...{ liquidation_threshold: null, confirmed: 1 },
    });
    await history.scan();
    await history.scan();
    const texts = await queued();
    expect(texts).toEqual([
      [
        'Vault exit confirmed',
        'This vault was closed by its exit.',
        `After its exit height, the vault key alone took the whole vault: its 0.01 BTC, less the network fee, went to the address ${address} in transaction ${TXID}. Its debt of 500.00 UNIT was not repaid: the UNIT you borrowed stays with you, and nothing backs it any more. The vault holds nothing now and takes no action; the bitcoin is at that address. Open a new vault to borrow again.`,
        `Vault: ${VAULT}`,
        `https://mempool.example/tx/${TXID}`,
      ].join('\n'),
    ]);
  });
});
