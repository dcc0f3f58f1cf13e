import { lazy, Suspense, useEffect } from 'react';
import { useSearchParams } from 'react-router';
import { CONTENT } from '@unit/protocol';
import { useTelegramLink } from '../api/notify';
import { usePosition } from '../api/position';
import { useVaultHistory } from '../api/vault-history';
import type { FlowAction } from '../flows/declarations';
import { useFlows } from '../flows/FlowProvider';
import { TxLink } from '../ui/TxLink';
import { SocialLinks } from '../layout/SocialLinks';
import { useWallet } from '../wallet';
import { Dashboard, DashboardSkeleton } from './Dashboard';
import './vault.css';

// The scene is decoration: loaded lazily, never blocking the welcome screen (SPEC §2 state 1).
const WelcomeScene = lazy(() => import('./WelcomeScene'));

const ACTION_PARAM: Record<string, FlowAction> = {
  'create-vault': 'create',
  deposit: 'deposit',
  withdraw: 'withdraw',
  repay: 'repay',
  borrow: 'borrow',
};

/** SPEC §2 Routes: ?action= opens the matching drawer, then the URL is reset to /. */
function useActionParam() {
  const [params, setParams] = useSearchParams();
  const { openFlow } = useFlows();
  const action = params.get('action');
  useEffect(() => {
    if (action == null) return;
    const flow = ACTION_PARAM[action];
    if (flow) openFlow(flow);
    setParams({}, { replace: true });
  }, [action, openFlow, setParams]);
}

export function VaultPage() {
  useActionParam();
  const wallet = useWallet();
  const position = usePosition();
  const flows = useFlows();
  const hasVault = position.vault != null;
  const { isVaultCreationFlowInProgress: creating, stage, markVaultCreated, syncPending } = flows;
  // The guardian records a vault when it broadcasts the opening; it exists once a block has
  // confirmed it ("This might take about 10 minutes", SPEC §2), which its history tells.
  // It polls faster than the dashboard: the user is watching this one screen for that block.
  const history = useVaultHistory(creating ? (position.vault?.vault_id ?? null) : null, 3_000);
  const openConfirmed =
    history.data?.some((record) => record.action === 'o' && record.confirmed) ?? false;

  // SPEC §4: once a vault exists while the creation flow runs, the success state shows.
  useEffect(() => {
    if (!creating || !openConfirmed) return;
    syncPending(history.data ?? []);
    if (stage !== 'success') markVaultCreated();
  }, [creating, openConfirmed, history.data, stage, markVaultCreated, syncPending]);

  if (stage === 'success') return <CreationSuccess onGoToVault={flows.goToVault} />;
  if (creating || stage === 'processing') return <CreationPending />;
  if (!wallet.account) return <Welcome />;
  if (position.vaultLoading) return <DashboardSkeleton />;
  if (position.vaultError) throw position.vaultError;
  if (!hasVault) return <Welcome />;
  return <Dashboard />;
}

function Welcome() {
  const flows = useFlows();
  return (
    <section className="welcome">
      <div className="welcome__copy">
        <h1>Borrow UNIT against your Bitcoin</h1>
        <p className="muted">
          Open a vault, lock BTC as collateral and mint UNIT, the Bitcoin-native stablecoin.
        </p>
        <button
          type="button"
          className="btn btn--primary btn--large"
          onClick={() => flows.openFlow('create')}
        >
          {CONTENT.vaultPage.createVault}
        </button>
        <SocialLinks />
      </div>
      <div className="welcome__scene">
        <Suspense fallback={<div className="scene-placeholder" aria-hidden="true" />}>
          <WelcomeScene />
        </Suspense>
      </div>
    </section>
  );
}

function CreationPending() {
  const flows = useFlows();
  const telegramLink = useTelegramLink();
  const txid =
    flows.flow?.result?.txid ?? (flows.banner?.action === 'create' ? flows.banner.txid : null);
  const running =
    flows.flow?.status === 'awaiting-signature' || flows.flow?.status === 'processing';
  return (
    <section className="state-card" aria-live="polite">
      <span className="spinner spinner--large" aria-hidden="true" />
      <p className="state-card__text">{CONTENT.vaultPage.creationPending}</p>
      <div className="state-card__links">
        {telegramLink && (
          <a href={telegramLink} target="_blank" rel="noreferrer">
            {CONTENT.vaultPage.enableTelegram}
          </a>
        )}
        {txid && <TxLink txid={txid} />}
      </div>
      {running && (
        <button type="button" className="btn" onClick={() => flows.setDrawerOpen(true)}>
          {CONTENT.vaultPage.transactionTracker}
        </button>
      )}
    </section>
  );
}

function CreationSuccess({ onGoToVault }: { onGoToVault: () => void }) {
  return (
    <section className="state-card">
      <p className="success-mark" aria-hidden="true">
        ✓
      </p>
      <h1>{CONTENT.vaultPage.created}</h1>
      <button type="button" className="btn btn--primary" onClick={onGoToVault}>
        {CONTENT.vaultPage.goToVault}
      </button>
    </section>
  );
}
