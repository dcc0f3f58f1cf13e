import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { Activity } from 'lucide-react';
import {
  CONTENT,
  centsToUnitString,
  collateralRatio,
  formatHealth,
  formatUsdCents,
  keyMayOpenVault,
  liquidationThresholdCents,
  sats,
  satsToBtcString,
  unitCents,
  type VaultHistoryRecordDto,
} from '@unit/protocol';
import { EnableTelegram } from '../auth/EnableTelegram';
import type { Approvals } from '@unit/protocol/wire';
import { useQuery } from '@tanstack/react-query';
import { networkQueryOptions } from '../api/network';
import { usePosition } from '../api/position';
import { useVaultHistory } from '../api/vault-history';
import { approvalsCount } from '../flows/approvals';
import type { LinkFlowAction } from '../flows/declarations';
import { useFlows } from '../flows/FlowProvider';
import { SpeedUpButton } from '../flows/SpeedUpButton';
import { useToasts } from '../ui/toasts';
import { TxLink } from '../ui/TxLink';
import { SocialLinks } from '../ui/SocialLinks';
import { useWallet } from '../wallet';
import { BannerApprovals } from './BannerApprovals';
import { Dashboard, DashboardSkeleton } from './Dashboard';
import { WelcomeHeadline, WelcomeSteps } from './WelcomeIntro';
import './vault.css';

// The scene is decoration: loaded lazily, never blocking the welcome screen (SPEC §2 state 1).
const WelcomeScene = lazy(() => import('./WelcomeScene'));

const ALREADY_HAS_VAULT = {
  title: 'You already have a vault',
  description: 'A wallet opens one vault: yours is shown here.',
  tone: 'info',
} as const;
const NO_VAULT_YET = {
  title: 'Open a vault first',
  description: 'Deposit, withdraw, borrow and repay act on your vault: create it to begin.',
  tone: 'info',
} as const;

const ACTION_PARAM: Record<string, LinkFlowAction> = {
  'create-vault': 'create',
  deposit: 'deposit',
  withdraw: 'withdraw',
  repay: 'repay',
  borrow: 'borrow',
};

/**
 * SPEC §2 Routes: ?action= opens the matching drawer, then the URL is reset to /. The URL is reset
 * at once; the drawer opens once the page knows the wallet and its vault (a reload reconnects the
 * wallet first), and only where the dashboard's own button would open it: a link cannot start a
 * second vault or an action the vault's state forbids. What the link asked for and why it did not
 * open is said in a toast.
 */
function useActionParam(): [LinkFlowAction | null, () => void] {
  const [params, setParams] = useSearchParams();
  const action = params.get('action');
  const [intent, setIntent] = useState<LinkFlowAction | null>(null);
  // Taken when the URL brings it, during render, so no frame runs without it.
  const [taken, setTaken] = useState<string | null>(null);
  if (action !== taken) {
    setTaken(action);
    if (action != null)
      setIntent(Object.hasOwn(ACTION_PARAM, action) ? ACTION_PARAM[action]! : null);
  }
  useEffect(() => {
    if (action != null) setParams({}, { replace: true });
  }, [action, setParams]);
  return [intent, useCallback(() => setIntent(null), [])];
}

export function VaultPage() {
  const [intent, clearIntent] = useActionParam();
  const wallet = useWallet();
  const position = usePosition();
  const flows = useFlows();
  const toasts = useToasts();
  const hasVault = position.vault != null;
  // docs/protocol.md, Vault keys: a wallet whose vault was repossessed may open a new one; until
  // that one is stored, the key's vault is the closed one, which is not the vault being created.
  const mayOpen = keyMayOpenVault(position.vault);
  const liveVaultId = mayOpen ? null : (position.vault?.vault_id ?? null);
  const { isVaultCreationFlowInProgress: creating, stage, markVaultCreated, syncPending } = flows;
  // Known: the wallet (or its absence) and, with a wallet, whether it has a vault.
  const settled =
    !wallet.restoring && !position.vaultLoading && !(position.vaultError && !hasVault);

  // ?action=create-vault opens the create drawer for a wallet without a vault, or without a wallet
  // (its step 2 connects one). The other actions need the vault: they wait for a wallet to connect,
  // then the dashboard opens them (below) if its button would.
  const { openFlow } = flows;
  const { show: showToast } = toasts;
  useEffect(() => {
    if (!intent || !settled) return;
    if (intent === 'create') {
      clearIntent();
      if (!mayOpen) showToast(ALREADY_HAS_VAULT);
      else if (!creating) openFlow('create');
    } else if (wallet.account && !hasVault) {
      clearIntent();
      showToast(NO_VAULT_YET);
    }
  }, [
    intent,
    settled,
    hasVault,
    mayOpen,
    creating,
    wallet.account,
    clearIntent,
    openFlow,
    showToast,
  ]);
  // The guardian records a vault when it broadcasts the opening; it exists once a block has
  // confirmed it ("This might take about 10 minutes", SPEC §2), which its history tells.
  // It polls faster than the dashboard: the user is watching this one screen for that block.
  const history = useVaultHistory(creating ? liveVaultId : null, 3_000);
  const openConfirmed =
    history.data?.some((record) => record.action === 'o' && record.confirmed) ?? false;

  // SPEC §4: once a vault exists while the creation flow runs, the success state shows.
  useEffect(() => {
    if (!creating || !openConfirmed) return;
    syncPending(history.data ?? []);
    if (stage !== 'success') markVaultCreated();
  }, [creating, openConfirmed, history.data, stage, markVaultCreated, syncPending]);

  if (stage === 'success')
    return (
      <CreationSuccess
        onGoToVault={flows.goToVault}
        name={position.vault?.name ?? null}
        opening={history.data?.find((r) => r.action === 'o') ?? null}
        priceUsd={position.priceUsd}
        approvals={flows.creationApprovals}
      />
    );
  if (creating || stage === 'processing') return <CreationPending />;
  if (!wallet.account && !wallet.restoring) return <Welcome />;
  // While the last wallet reconnects, its vault (the page carries it) shows without its actions.
  if (position.vaultLoading || (!wallet.account && !hasVault)) return <DashboardSkeleton />;
  // A failed refetch keeps the vault on screen; only a vault never read says so, with a retry.
  if (!hasVault && position.vaultError) return <VaultUnavailable onRetry={position.refetchVault} />;
  if (!hasVault) return <Welcome />;
  return <Dashboard intent={intent === 'create' ? null : intent} onIntentHandled={clearIntent} />;
}

function Welcome() {
  const flows = useFlows();
  // who co-signs a vault's moves, read once (the network page is the one that keeps it fresh)
  const network = useQuery({ ...networkQueryOptions, refetchInterval: false });
  return (
    <section className="welcome">
      <div className="welcome__copy">
        <WelcomeHeadline />
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
      <WelcomeSteps network={network.data ?? null} />
    </section>
  );
}

function CreationPending() {
  const flows = useFlows();
  const txid =
    flows.flow?.result?.txid ??
    (flows.banner?.action === 'create' ? flows.banner.txid : null) ??
    flows.creationTxid;
  // SPEC §2: the Transaction Tracker while the creation flow is in progress, which it is until the
  // opening's block (this screen), not only while the drawer's steps run: those end in seconds, and
  // the button vanished long before the block. It reopens the drawer's tracker, so it
  // shows while this page still holds the flow (a reload keeps the screen, not the tracker).
  const trackable = flows.flow?.action === 'create' && flows.flow.status !== 'idle';
  return (
    <section className="state-card" aria-live="polite">
      <span className="spinner spinner--large" aria-hidden="true" />
      <p className="state-card__text">{CONTENT.vaultPage.creationPending}</p>
      {/* The guardians' approvals of the opening, as the banner shows an action's */}
      {flows.creationApprovals && (
        <div className="creation-approvals">
          <BannerApprovals
            approvals={flows.creationApprovals}
            failed={false}
            over={txid !== null}
            silent={flows.drawerOpen}
          />
        </div>
      )}
      <div className="state-card__links">
        <EnableTelegram />
        {txid && <TxLink txid={txid} />}
      </div>
      {txid && !trackable && (
        <SpeedUpButton
          txid={txid}
          action="open"
          sentAt={flows.pending.find((p) => p.transactionId === txid)?.date ?? Infinity}
        />
      )}
      {trackable && (
        <button
          type="button"
          className="btn btn--secondary"
          onClick={() => flows.setDrawerOpen(true)}
        >
          <Activity size={16} aria-hidden="true" />
          {CONTENT.vaultPage.transactionTracker}
        </button>
      )}
    </section>
  );
}

function VaultUnavailable({ onRetry }: { onRetry: () => void }) {
  return (
    <section className="state-card" role="alert">
      <p className="state-card__text">
        Your vault could not be loaded. Check your connection and try again.
      </p>
      <button type="button" className="btn btn--primary" onClick={onRetry}>
        {CONTENT.errorScreen.tryAgain}
      </button>
    </section>
  );
}

function CreationSuccess({
  onGoToVault,
  name,
  opening,
  priceUsd,
  approvals,
}: {
  onGoToVault: () => void;
  name: string | null;
  /** the vault's `o` record: what the opening locked and borrowed */
  opening: VaultHistoryRecordDto | null;
  priceUsd: number | null | undefined;
  /** Who approved the opening (not known after a reload) */
  approvals: Approvals | null;
}) {
  const copy = CONTENT.reading.createSuccess;
  const debt = unitCents(opening?.amount_borrowed ?? 0);
  const locked = sats(opening?.vault_amount ?? 0);
  return (
    <section className="state-card">
      <p className="success-mark" aria-hidden="true">
        ✓
      </p>
      <h1>{CONTENT.vaultPage.created}</h1>
      {opening && (
        <>
          <h2 className="state-card__subtitle">{copy.summary}</h2>
          <dl className="summary creation-summary num" data-testid="creation-summary">
            {name && (
              <div>
                <dt>{copy.name}</dt>
                <dd>{name}</dd>
              </div>
            )}
            <div>
              <dt>{copy.deposited}</dt>
              <dd>{satsToBtcString(locked)} BTC</dd>
            </div>
            <div>
              <dt>{copy.borrowed}</dt>
              <dd>{centsToUnitString(debt)} UNIT</dd>
            </div>
            <div>
              <dt>{copy.ratio}</dt>
              <dd>{formatHealth(collateralRatio(locked, debt, priceUsd))}</dd>
            </div>
            {debt > 0n && locked > 0n && (
              <div>
                <dt>{copy.liquidationPrice}</dt>
                <dd>{formatUsdCents(liquidationThresholdCents(locked, debt))}</dd>
              </div>
            )}
            {approvals && (
              <div>
                <dt>Guardians</dt>
                <dd>{approvalsCount(approvals)}</dd>
              </div>
            )}
            <div>
              <dt>Transaction</dt>
              <dd>
                <TxLink txid={opening.transaction_id} />
              </dd>
            </div>
          </dl>
        </>
      )}
      <button type="button" className="btn btn--primary" onClick={onGoToVault}>
        {CONTENT.vaultPage.goToVault}
      </button>
    </section>
  );
}
