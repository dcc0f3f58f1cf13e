// An exited vault's dashboard says, in plain words, that the vault is closed, where its collateral
// went (the address the exit's output pays, told from its script) and by which transaction, and
// what became of the debt; a vault of any other status shows nothing of it. The history page and
// the configuration are given (the edge of this test).
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { hex } from '@scure/base';
import { p2wpkh, TEST_NETWORK } from '@scure/btc-signer';
import type { VaultHistoryPageDto } from '@unit/protocol';
import { ConfigContext } from '../api/config';
import { testConfig } from '../../test/wallet/fixtures';
import { VaultExitedBanner } from './VaultExitedBanner';

const VAULT = 'ab'.repeat(32);
const TXID = 'ef'.repeat(32);
const payout = p2wpkh(new Uint8Array(33).fill(2), TEST_NETWORK);
const page: VaultHistoryPageDto = {
  records: [
    {
      ...{ timestamp: 2, action: 'e', btc_amt: 1_000_000, unit_amt: 50_000, vault_amount: 0 },
      ...{ amount_borrowed: 0, oracle_price: 0, transaction_id: TXID, utxo: `${TXID}:0` },
      ...{ utxo_script: hex.encode(payout.script), liquidation_hash: null },
      ...{ liquidation_threshold: null, vault_id: VAULT, confirmed: true },
    },
  ],
  next: null,
  state_before: null,
};

function withHistory(ui: React.ReactElement) {
  const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity } } });
  client.setQueryData(['vault-history', VAULT], page);
  return render(
    <ConfigContext.Provider value={testConfig('devnet')}>
      <QueryClientProvider client={client}>{ui}</QueryClientProvider>
    </ConfigContext.Provider>,
  );
}

afterEach(cleanup);

describe('the dashboard of a vault its owner left by the exit', () => {
  it('says it is closed, where the collateral went by which transaction, and the debt', () => {
    withHistory(<VaultExitedBanner vault={{ vault_id: VAULT, status: 'exited' }} />);
    const banner = screen.getByTestId('vault-exited');
    expect(banner.textContent).toContain('This vault was closed by its exit');
    expect(banner.textContent).toContain(
      `its 0.01 BTC, less the network fee, went to the address ${payout.address} in transaction ${TXID}.`,
    );
    expect(banner.textContent).toContain('Its debt of 500.00 UNIT was not repaid');
    expect(banner.textContent).toContain('Open a new vault to borrow again.');
    expect(screen.getByRole('link', { name: /View transaction efefefef/ })).toHaveProperty(
      'href',
      expect.stringMatching(new RegExp(`/tx/${TXID}$`)),
    );
  });

  it('shows nothing for a vault of another status', () => {
    for (const status of ['active', 'settled'] as const) {
      withHistory(<VaultExitedBanner vault={{ vault_id: VAULT, status }} />);
      expect(screen.queryByTestId('vault-exited')).toBeNull();
      cleanup();
    }
  });
});
