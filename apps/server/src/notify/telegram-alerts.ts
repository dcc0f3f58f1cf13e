// Risk alerts: on every oracle tick each followed vault's band (`alertBand` in @unit/protocol) is
// compared with the last one stored for its chat in `telegram_alert_bands`; a change is stored,
// and entering Moderate, Risky or liquidation is announced once. A chat that sent `/alerts off`
// is skipped.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import {
  ALERT_BAND_LABELS,
  alertBand,
  collateralRatio,
  formatHealth,
  formatUsd,
  isAlertingBand,
  liquidationPriceUsd,
  type AlertBand,
  type Network,
} from '@unit/protocol';
import type { Database } from '../store/schema';
import { enqueueOutbox } from '../store/telegram';
import { RISK_ALERT_RETRIES } from './telegram-messages';
import type { TelegramOutbox } from './telegram-outbox';

/** Followed vaults compared per tick (bounded; far above what one bot serves). */
const ALERT_BATCH = 2000;

export interface TelegramAlertsOptions {
  db: Kysely<Database>;
  network: Network;
  outbox: TelegramOutbox;
  log: Logger;
}

export class TelegramAlerts {
  private alerting: Promise<void> = Promise.resolve();

  constructor(private readonly options: TelegramAlertsOptions) {}

  /**
   * Compares the bands at a new oracle price. Ticks are handled one after another so two never
   * compare against the same stored band.
   */
  onPriceTick(priceCents: number): Promise<void> {
    const next = this.alerting.then(() => this.compareBands(priceCents));
    this.alerting = next.catch((err: unknown) => {
      this.options.log.warn({ err: String(err) }, 'risk alerts failed');
    });
    return next;
  }

  /** Resolves once every tick handed in so far has been compared. */
  idle(): Promise<void> {
    return this.alerting;
  }

  private async compareBands(priceCents: number): Promise<void> {
    const { db, network, outbox } = this.options;
    const price = priceCents / 100;
    const rows = await db
      .selectFrom('telegram_subscriptions as s')
      .innerJoin('vaults as v', 'v.creation_account', 's.address')
      .leftJoin('telegram_alert_bands as b', (join) =>
        join.onRef('b.chat_id', '=', 's.chat_id').onRef('b.vault_id', '=', 'v.vault_id'),
      )
      .select([
        's.chat_id',
        'v.vault_id',
        'v.vault_tag',
        'v.status',
        'v.btc_locked',
        'v.unit_borrowed',
        'v.threshold_cents',
        'b.band',
      ])
      .where('s.network', '=', network)
      .where('s.risk_alerts', '=', 1)
      .where('v.status', 'in', ['active', 'liquidated'])
      .orderBy('v.vault_id')
      .limit(ALERT_BATCH)
      .execute();
    const now = Math.floor(Date.now() / 1000);
    for (const row of rows) {
      const band = alertBand(row, price);
      if (band === row.band) continue;
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('telegram_alert_bands')
          .values({ chat_id: row.chat_id, vault_id: row.vault_id, band, updated_at: now })
          .onConflict((oc) =>
            oc.columns(['chat_id', 'vault_id']).doUpdateSet({ band, updated_at: now }),
          )
          .execute();
        if (!isAlertingBand(band)) return;
        await enqueueOutbox(trx, [
          {
            chat_id: row.chat_id,
            text: riskAlertText(row, band, price),
            ...outbox.policy(RISK_ALERT_RETRIES),
            dedupe_key: `band:${row.chat_id}:${row.vault_id}:${band}:${now}`,
          },
        ]);
      });
    }
  }
}

function riskAlertText(
  vault: { vault_tag: string; btc_locked: number; unit_borrowed: number },
  band: AlertBand,
  price: number,
): string {
  if (band === 'liquidated') {
    return [
      `Vault ${vault.vault_tag} was liquidated at BTC ${formatUsd(price)}.`,
      'Its collateral can now be repossessed by another vault.',
    ].join('\n');
  }
  const ratio = collateralRatio(vault.btc_locked, vault.unit_borrowed, price);
  const liquidation = liquidationPriceUsd(vault.btc_locked, vault.unit_borrowed);
  return [
    `Vault ${vault.vault_tag} is now ${ALERT_BAND_LABELS[band]}: collateral ratio ${formatHealth(ratio)} at BTC ${formatUsd(price)}.`,
    `Liquidation price: ${liquidation === null ? 'none' : formatUsd(liquidation)}.`,
    'Deposit BTC or repay UNIT to stay clear of liquidation.',
  ].join('\n');
}
