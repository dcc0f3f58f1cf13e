// A liquidated vault that no one repossessed before its exit height, which its owner then took
// back through the exit leaf: the dashboard's liquidation stage says it is over (no "Liquidating"
// modal, no claim awaited), where the collateral went and by which transaction, and the cards
// hold nothing. The liquidated list, the vault's history and the server's record are given (the
// edge of this test), as the API answers them.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import {
  liquidatedCards,
  type LiquidatedVaultDto,
  type VaultDto,
  type VaultHistoryPageDto,
  type VaultHistoryRecordDto,
  type VaultLiquidationDto,
} from '@unit/protocol';
import { ConfigContext } from '../api/config';
import { testConfig } from '../../test/wallet/fixtures';
import { useVaultLiquidation } from './liquidated';
import { LiquidationOutcome } from './LiquidationOutcome';

const VAULT = 'ab'.repeat(32);
const OUTPUT = 'cd'.repeat(32);
const EXIT = 'ef'.repeat(32);
const record = (fields: Partial<VaultHistoryRecordDto>): VaultHistoryRecordDto => ({
  ...{ timestamp: 0, action: 'o', btc_amt: 0, unit_amt: 0, vault_amount: 0, amount_borrowed: 0 },
  ...{ oracle_price: 0, transaction_id: OUTPUT, utxo: `${OUTPUT}:0`, utxo_script: '' },
  ...{ liquidation_hash: null, liquidation_threshold: null, vault_id: VAULT, confirmed: true },
  ...fields,
});
const history: VaultHistoryPageDto = {
  records: [
    record({ timestamp: 900, action: 'e', btc_amt: 1_000_000, unit_amt: 59_000 }),
    record({ timestamp: 500, action: 'l', vault_amount: 1_000_000, amount_borrowed: 59_000 }),
  ].map((r) =>
    r.action === 'e'
      ? { ...r, transaction_id: EXIT, utxo: `${EXIT}:0` }
      : { ...r, oracle_price: 79_000, liquidation_threshold: 7_965_000 },
  ),
  next: null,
  state_before: null,
};
const listed = {
  ...{ vault_id: VAULT, name: 'Mine', vault_pubkey: VAULT, vault_txid: OUTPUT, vault_vout: 0 },
  ...{ stamp: 1, btc_locked: 1_000_000, unit_borrowed: 59_000, threshold_cents: 7_965_000 },
  ...{ liquidated_at: 500, liquidation_hash: 'aa'.repeat(20), status: 'exited' as const },
  ...{ guard_pubkey: '02'.repeat(32), oracles: 1 },
} satisfies LiquidatedVaultDto;
const serverRecord: VaultLiquidationDto = {
  ...{ vault_id: VAULT, liquidated_at: 500, threshold_cents: 7_965_000, price_cents: 7_900_000 },
  ...{ btc_locked: 1_000_000, unit_borrowed: 59_000, status: 'exited', claimant: null },
  claim_txid: EXIT,
};

/** The dashboard's use of the stage: its outcome section and the BTC card's note. */
function Stage({ vault }: { vault: VaultDto }) {
  const liquidation = useVaultLiquidation(vault, false);
  return (
    <>
      <p data-testid="stage">{liquidation.stage}</p>
      {liquidation.stage !== 'none' && (
        <p data-testid="note">
          {
            liquidatedCards(liquidation.stage, liquidation.outcome, { sats: 0, debtCents: 0 })
              .collateralNote
          }
        </p>
      )}
      {liquidation.outcome && (
        <LiquidationOutcome
          outcome={liquidation.outcome}
          record={liquidation.record}
          walletUnitCents={null}
          offerNewVault={false}
        />
      )}
    </>
  );
}

function show(status: VaultDto['status'], seeded: { history: boolean; record: boolean }) {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity } } });
  client.setQueryData(['liquidations'], [listed]);
  if (seeded.history) client.setQueryData(['vault-history', VAULT], history);
  if (seeded.record) client.setQueryData(['vault-liquidation', VAULT], serverRecord);
  const vault = { vault_id: VAULT, status } as VaultDto;
  return render(
    <ConfigContext.Provider value={testConfig('devnet')}>
      <QueryClientProvider client={client}>
        <Stage vault={vault} />
      </QueryClientProvider>
    </ConfigContext.Provider>,
  );
}

afterEach(cleanup);

describe('a liquidated vault its owner took back by the exit, on its dashboard', () => {
  it('is exited, not awaiting repossession: where the collateral went, and which transaction', () => {
    show('exited', { history: true, record: true });
    expect(screen.getByTestId('stage').textContent).toBe('exited');
    expect(screen.getByTestId('note').textContent).toBe(
      `Taken back by its owner's exit: no one repossessed the vault before its exit height, so the vault key alone took its 0.01 BTC, less the network fee, in transaction ${EXIT}.`,
    );
    expect(
      screen.getByRole('heading', {
        name: 'This vault was liquidated, then taken back by its exit',
      }),
    ).toBeTruthy();
    const section = screen.getByRole('region').textContent ?? '';
    expect(section).toContain('no one can repossess it any more');
    expect(section).not.toContain('Any other vault can now repossess this one');
    expect(screen.getByRole('link', { name: /View transaction efefefef/ })).toHaveProperty(
      'href',
      expect.stringMatching(new RegExp(`/tx/${EXIT}$`)),
    );
  });

  it('is exited from the server record or the list alone, before the history shows the exit', () => {
    show('liquidated', { history: false, record: true });
    expect(screen.getByTestId('stage').textContent).toBe('exited');
    cleanup();
    show('liquidated', { history: false, record: false });
    expect(screen.getByTestId('stage').textContent).toBe('exited');
  });
});
