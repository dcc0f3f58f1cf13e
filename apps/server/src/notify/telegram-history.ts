// Transaction messages from the vault history the guardian writes, with no browser open: each new
// record of a followed vault queues "submitted", and its confirmation "confirmed" with the explorer
// link. A persisted cursor (the last record looked at), the `telegram_watch` list (records waiting
// for their block) and the outbox's dedupe keys mean a restart queues nothing twice.
import type { Kysely } from 'kysely';
import { hex } from '@scure/base';
import { NETWORK, TEST_NETWORK } from '@scure/btc-signer';
import { scriptToAddress } from '@unit/bitcoin';
import {
  actionOfCode,
  type ActionCode,
  type Network,
  type TelegramNotifyDto,
} from '@unit/protocol';
import type { Database } from '../store/schema';
import { getSetting, putSetting } from '../store/settings';
import { enqueueOutbox, subscribedChats, type OutboxMessage } from '../store/telegram';
import {
  ACTION_MESSAGES,
  confirmedKey,
  confirmedText,
  exitedText,
  notificationText,
  repossessedText,
  settledText,
  submittedKey,
} from './telegram-messages';
import type { TelegramOutbox } from './telegram-outbox';

/** History records looked at per pass; the cursor moves on by this many at most. */
const HISTORY_BATCH = 200;
const CURSOR_SETTING = 'telegram.history_cursor';

export interface TelegramHistoryOptions {
  db: Kysely<Database>;
  network: Network;
  /** The absolute explorer base (or a relative one, then links are plain txids). */
  explorerUrl: string;
  outbox: TelegramOutbox;
}

/** A settlement at the term's message to one chat, deduplicated as an action's. */
function settledMessage(
  row: {
    chat_id: string;
    vault_id: string;
    transaction_id: string;
    btc_amt: number | bigint;
    unit_amt: number | bigint;
    oracle_price: number | bigint;
  },
  confirmed: boolean,
  explorerUrl: string,
  outbox: TelegramOutbox,
): OutboxMessage {
  const facts = {
    ...row,
    ...{ btc_amt: Number(row.btc_amt), unit_amt: Number(row.unit_amt) },
    oracle_price: Number(row.oracle_price),
  };
  return {
    chat_id: row.chat_id,
    text: settledText(facts, explorerUrl, confirmed),
    ...outbox.policy(ACTION_MESSAGES.repossess.retries),
    dedupe_key: (confirmed ? confirmedKey : submittedKey)(row.transaction_id, row.chat_id),
  };
}

/** The owner's exit's one message (it is recorded once mined), deduplicated as a confirmation. */
function exitedMessage(
  row: {
    chat_id: string;
    vault_id: string;
    transaction_id: string;
    btc_amt: number | bigint;
    unit_amt: number | bigint;
    utxo_script: string;
  },
  network: Network,
  explorerUrl: string,
  outbox: TelegramOutbox,
): OutboxMessage {
  const facts = { ...row, btc_amt: Number(row.btc_amt), unit_amt: Number(row.unit_amt) };
  const btcNetwork = network === 'mainnet' ? NETWORK : TEST_NETWORK;
  const address = row.utxo_script ? scriptToAddress(hex.decode(row.utxo_script), btcNetwork) : null;
  return {
    chat_id: row.chat_id,
    text: exitedText(facts, address, explorerUrl),
    ...outbox.policy(ACTION_MESSAGES.repossess.retries),
    dedupe_key: confirmedKey(row.transaction_id, row.chat_id),
  };
}

export class TelegramHistory {
  private scanning: Promise<void> | null = null;

  constructor(private readonly options: TelegramHistoryOptions) {}

  /** The first start begins at the newest record: nothing older is announced. */
  async begin(): Promise<void> {
    const { db } = this.options;
    if ((await getSetting(db, CURSOR_SETTING)) !== null) return;
    const newest = await db
      .selectFrom('vault_history')
      .select('id')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    await putSetting(db, CURSOR_SETTING, String(newest?.id ?? 0));
  }

  /**
   * SPEC §7's per-transaction call from the browser: queued under the same key as the scan's own
   * "submitted" message, so whichever comes first is the only one sent.
   */
  async notify(dto: TelegramNotifyDto): Promise<number> {
    const { db, network, explorerUrl, outbox } = this.options;
    if (dto.network !== network) return 0;
    const chats = await subscribedChats(db, dto.address, network);
    const text = notificationText(dto, explorerUrl);
    await enqueueOutbox(
      db,
      chats.map((chat_id) => ({
        chat_id,
        text,
        ...outbox.policy(ACTION_MESSAGES[dto.tx_action].retries),
        dedupe_key: submittedKey(dto.tx_id, chat_id),
      })),
    );
    return chats.length;
  }

  /** Queues "submitted" for new history of followed vaults and "confirmed" for confirmed ones. */
  scan(): Promise<void> {
    this.scanning ??= this.scanOnce().finally(() => {
      this.scanning = null;
    });
    return this.scanning;
  }

  /** Resolves once the scan under way, if any, has ended. */
  async idle(): Promise<void> {
    await this.scanning;
  }

  private async scanOnce(): Promise<void> {
    await this.announceSubmitted();
    await this.announceConfirmations();
  }

  private async announceSubmitted(): Promise<void> {
    const { db, network, explorerUrl, outbox } = this.options;
    const cursor = Number((await getSetting(db, CURSOR_SETTING)) ?? 0);
    const ids = await db
      .selectFrom('vault_history')
      .select('id')
      .where('id', '>', cursor)
      .orderBy('id')
      .limit(HISTORY_BATCH)
      .execute();
    if (ids.length === 0) return;
    const last = ids[ids.length - 1]!.id;
    const rows = await db
      .selectFrom('vault_history as h')
      .innerJoin('vaults as v', 'v.vault_id', 'h.vault_id')
      .innerJoin('telegram_subscriptions as s', 's.address', 'v.creation_account')
      .select([
        'h.id',
        'h.action',
        'h.btc_amt',
        'h.unit_amt',
        'h.vault_id',
        'h.transaction_id',
        'h.oracle_price',
        'h.utxo_script',
        'v.status',
        's.chat_id',
      ])
      .where('h.id', '>', cursor)
      .where('h.id', '<=', last)
      .where('s.network', '=', network)
      .orderBy('h.id')
      .execute();
    const messages: OutboxMessage[] = [];
    const watch = new Set<number>();
    for (const row of rows) {
      const action = actionOfCode(row.action as ActionCode);
      if (row.action === 's') {
        messages.push(settledMessage(row, false, explorerUrl, outbox));
        watch.add(row.id);
        continue;
      }
      // An exit is recorded once mined: its one message says so, and nothing waits for a block.
      if (row.action === 'e') {
        messages.push(exitedMessage(row, network, explorerUrl, outbox));
        continue;
      }
      // Liquidations are announced by the risk alerts, once per vault and chat.
      if (!action) continue;
      const text =
        action === 'repossess' && row.status === 'repossessed'
          ? repossessedText(row.vault_id, row.transaction_id, explorerUrl)
          : notificationText(
              {
                network,
                address: '',
                tx_id: row.transaction_id,
                tx_action: action,
                btc_amount: Number(row.btc_amt),
                unit_amount: Number(row.unit_amt),
                vault_id: row.vault_id,
              },
              explorerUrl,
            );
      messages.push({
        chat_id: row.chat_id,
        text,
        ...outbox.policy(ACTION_MESSAGES[action].retries),
        dedupe_key: submittedKey(row.transaction_id, row.chat_id),
      });
      watch.add(row.id);
    }
    await db.transaction().execute(async (trx) => {
      await enqueueOutbox(trx, messages);
      if (watch.size > 0) {
        const now = Math.floor(Date.now() / 1000);
        await trx
          .insertInto('telegram_watch')
          .values([...watch].map((history_id) => ({ history_id, created_at: now })))
          .onConflict((oc) => oc.column('history_id').doNothing())
          .execute();
      }
      await putSetting(trx, CURSOR_SETTING, String(last));
    });
  }

  private async announceConfirmations(): Promise<void> {
    const { db, network, explorerUrl, outbox } = this.options;
    const rows = await db
      .selectFrom('telegram_watch as w')
      .innerJoin('vault_history as h', 'h.id', 'w.history_id')
      .innerJoin('vaults as v', 'v.vault_id', 'h.vault_id')
      .innerJoin('telegram_subscriptions as s', 's.address', 'v.creation_account')
      .select(['w.history_id', 'h.action', 'h.vault_id', 'h.transaction_id', 's.chat_id'])
      .select(['h.btc_amt', 'h.unit_amt', 'h.oracle_price'])
      .where('h.confirmed', '=', 1)
      .where('s.network', '=', network)
      .orderBy('w.history_id')
      .limit(HISTORY_BATCH)
      .execute();
    if (rows.length === 0) return;
    const messages: OutboxMessage[] = rows.map((row) => {
      if (row.action === 's') return settledMessage(row, true, explorerUrl, outbox);
      const action = actionOfCode(row.action as ActionCode) ?? 'deposit';
      return {
        chat_id: row.chat_id,
        text: confirmedText(action, row.vault_id, row.transaction_id, explorerUrl),
        ...outbox.policy(ACTION_MESSAGES[action].retries),
        dedupe_key: confirmedKey(row.transaction_id, row.chat_id),
      };
    });
    await db.transaction().execute(async (trx) => {
      await enqueueOutbox(trx, messages);
      await trx
        .deleteFrom('telegram_watch')
        .where(
          'history_id',
          'in',
          rows.map((r) => r.history_id),
        )
        .execute();
    });
  }
}
