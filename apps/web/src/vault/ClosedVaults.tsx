// A key's earlier vaults, on the page of its live one (docs/protocol.md, Keys: a key opens a new
// vault once its vault is repossessed). The closed vault keeps its own history and outcome: each can
// be opened here, with the figures the owner saw on that vault's page.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { liquidationOutcome } from '@unit/protocol';
import { callApi } from '../api/call';
import { useVaultHistory } from '../api/vault-history';
import { useVaultLiquidation } from '../api/vault-liquidation';
import { LiquidationOutcome } from './LiquidationOutcome';

export function ClosedVaults({ pubkey }: { pubkey: string }) {
  const closed = useQuery({
    queryKey: ['closed-vaults', pubkey],
    queryFn: () => callApi('closedVaults', { params: { pubkey } }),
    // A vault closes only through a liquidation and a repossess: the list rarely changes.
    staleTime: 60_000,
  });
  const [shown, setShown] = useState<string | null>(null);
  if (!closed.data?.length) return null;
  return (
    <section className="card" aria-labelledby="closed-vaults">
      <h2 id="closed-vaults" className="card__title">
        Earlier vaults of this wallet
      </h2>
      <ul className="closed-vaults">
        {closed.data.map((v) => (
          <li key={v.vault_id}>
            <span>
              {v.name} <span className="muted">(vault {v.vault_tag}, repossessed)</span>
            </span>{' '}
            <button
              type="button"
              className="btn"
              aria-expanded={shown === v.vault_id}
              onClick={() => setShown(shown === v.vault_id ? null : v.vault_id)}
            >
              {shown === v.vault_id ? 'Hide what happened' : 'What happened'}
            </button>
            {shown === v.vault_id && <ClosedVaultOutcome vaultId={v.vault_id} />}
          </li>
        ))}
      </ul>
    </section>
  );
}

function ClosedVaultOutcome({ vaultId }: { vaultId: string }) {
  const history = useVaultHistory(vaultId, 60_000);
  const record = useVaultLiquidation(vaultId);
  const outcome = history.data ? liquidationOutcome(history.data) : null;
  if (history.isError || record.isError)
    return <p role="alert">This vault&apos;s record could not be loaded; try again later.</p>;
  if (!outcome) return <p className="muted">Loading…</p>;
  return (
    <LiquidationOutcome
      outcome={outcome}
      record={record.data ?? null}
      walletUnitCents={null}
      offerNewVault={false}
    />
  );
}
