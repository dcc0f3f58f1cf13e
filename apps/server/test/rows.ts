// Rows the tests write straight into the store: a vault of 0.5 BTC with 10,000.00 UNIT borrowed and
// an entry of its history, every field but the ids the same unless a test says otherwise.
import type { appendVaultHistory, insertVault } from '../src/store';

type VaultInsert = Parameters<typeof insertVault>[1];
type HistoryInsert = Parameters<typeof appendVaultHistory>[1];

export function savingsVault(over: Partial<VaultInsert> & { vault_id: string }): VaultInsert {
  return {
    vault_tag: 'tag',
    vault_pubkey: 'ab'.repeat(32),
    name: 'Savings',
    creation_account: 'tb1qowner000000000000000000000000000000',
    runes_account: 'tb1powner000000000000000000000000000000',
    btc_locked: 50_000_000,
    unit_borrowed: 1_000_000,
    vault_txid: over.vault_id,
    vault_vout: 0,
    threshold_cents: 2_700_000,
    stamp: 1_700_000_000,
    status: 'active',
    created_at: 1_700_000_000,
    ...over,
  };
}

/** The vault's opening unless told another action; its output is `transaction_id`:0. */
export function historyEntry(
  over: Partial<HistoryInsert> & { vault_id: string; transaction_id: string },
): HistoryInsert {
  return {
    timestamp: 1_700_000_000,
    action: 'o',
    btc_amt: 50_000_000,
    unit_amt: 1_000_000,
    vault_amount: 50_000_000,
    amount_borrowed: 1_000_000,
    oracle_price: 9_500_000,
    utxo: `${over.transaction_id}:0`,
    utxo_script: '5120' + 'ee'.repeat(32),
    liquidation_hash: null,
    liquidation_threshold: null,
    confirmed: 1,
    ...over,
  };
}

/** A small active vault (0.1 BTC, 2,000.00 UNIT) with no threshold, named `name`. */
export function smallVault(vault_id: string, vault_pubkey: string, name: string): VaultInsert {
  return savingsVault({
    ...{ vault_id, vault_pubkey, name, threshold_cents: 0, stamp: 0 },
    ...{ creation_account: 'tb1qowner', runes_account: 'tb1powner' },
    ...{ btc_locked: 10_000_000, unit_borrowed: 200_000 },
  });
}

/** A vault of layout 2 whose term ends at `settleHeight` (its exit 20 blocks later), or of layout 1. */
export function termVault(
  id: string,
  settleHeight: number | null,
  status: VaultInsert['status'],
  over: Partial<VaultInsert> = {},
): VaultInsert {
  return savingsVault({
    ...{
      vault_id: id.repeat(64),
      vault_tag: `tag${id}`,
      vault_pubkey: id.repeat(64),
      name: 'Term',
    },
    ...{ threshold_cents: 4_050_000, status, settle_height: settleHeight },
    exit_height: settleHeight === null ? null : settleHeight + 20,
    ...over,
  });
}
