// A settled vault's dashboard says, in plain words, what the guardians did at its term: the debt
// repaid from its collateral at the recorded price with the liquidation tax, where the rest went and
// what to do; an active vault shows nothing of it. The history page is given (the edge of this test).
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { VaultHistoryPageDto } from '@unit/protocol';
import { TermSettledBanner } from './TermWarningBanner';

const VAULT = 'ab'.repeat(32);
const TXID = 'cd'.repeat(32);
const page: VaultHistoryPageDto = {
  records: [
    {
      ...{ timestamp: 2, action: 's', btc_amt: 1_000_000, unit_amt: 50_000, vault_amount: 0 },
      ...{ amount_borrowed: 0, oracle_price: 95_000, transaction_id: TXID, utxo: `${TXID}:1` },
      ...{ utxo_script: '', liquidation_hash: null, liquidation_threshold: null },
      ...{ vault_id: VAULT, confirmed: true },
    },
  ],
  next: null,
  state_before: null,
};

function withHistory(ui: React.ReactElement) {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity } } });
  client.setQueryData(['vault-history', VAULT], page);
  return render(<QueryClientProvider client={client}>{ui}</QueryClientProvider>);
}

afterEach(cleanup);

describe('the dashboard of a vault settled at its term', () => {
  it('says what was repaid at which price, where the rest went and what to do', () => {
    withHistory(<TermSettledBanner vault={{ vault_id: VAULT, status: 'settled' }} />);
    const banner = screen.getByTestId('term-settled');
    expect(banner.textContent).toContain('The guardians settled this vault at its term');
    expect(banner.textContent).toContain(
      "No action renewed its term, so its debt of 500.00 UNIT was repaid from its collateral at $95,000 with the 15% liquidation tax, and the rest of its 0.01 BTC, less the network fee, was sent to your vault key's own address.",
    );
    expect(banner.textContent).toContain('Open a new vault to borrow again.');
  });

  it('shows nothing for an active vault', () => {
    withHistory(<TermSettledBanner vault={{ vault_id: VAULT, status: 'active' }} />);
    expect(screen.queryByTestId('term-settled')).toBeNull();
  });
});
