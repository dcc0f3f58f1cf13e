// The missions page (SPEC §2 Other, §3, §4): the mission list with its notices; its parts are
// MissionItem.tsx, Awards.tsx, ReferralCard.tsx (code, invitation, levels) and AccountsCard.tsx.
import { useId, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useMutationState } from '@tanstack/react-query';
import {
  MISSION_REASONS,
  hasPendingInProgress,
  isMissionComplete,
  missionsSummary,
  missionActionButton,
  missionActionButtonLabel,
  missionStartPath,
  toUserMessage,
  isOwnUserView,
  type MissionContext,
  type MissionDto,
} from '@unit/protocol';
import {
  useCommunity,
  useMissionUser,
  useMissions,
  useRegisterUser,
  useVerifyMission,
  verifyMissionKey,
} from '../api/missions';
import { useConfig } from '../api/config';
import { useVault } from '../api/vault';
import { useFlows } from '../flows/FlowProvider';
import { Skeleton } from '../ui/Skeleton';
import { useWallet, WalletPicker } from '../wallet';
import { useSession, useSignIn } from '../auth/session';
import { markMissionStarted, useStartedMissions } from './started-missions';
import { MissionItem } from './MissionItem';
import { Awards } from './Awards';
import { Invitation, ReferralCard, ReferralLevels } from './ReferralCard';
import { AccountsCard } from './AccountsCard';
import './missions.css';

/** A referral code as the server issues it (hex, at most 20 characters); anything else is ignored. */
const REFERRAL_CODE = /^[A-Za-z0-9]{1,20}$/;

interface Notice {
  tone: 'success' | 'info' | 'error';
  text: string;
}

/** SPEC §2 Other, §3 Mission/User/Referral levels, §4 Mission actions; layout is ours. */
export function MissionsPage() {
  const config = useConfig();
  const wallet = useWallet();
  const address = wallet.account?.satsAddress ?? null;
  const vault = useVault(wallet.account?.vaultPubkey ?? null);
  const flows = useFlows();
  const missions = useMissions(address);
  const user = useMissionUser(address);
  const community = useCommunity(user.data ? address : null);
  const register = useRegisterUser(address);
  const verify = useVerifyMission(address);
  const verifying = useMutationState({
    filters: { mutationKey: verifyMissionKey(address), status: 'pending' },
    select: (mutation) => mutation.state.variables as string,
  });
  const started = useStartedMissions(address);
  const session = useSession();
  const signIn = useSignIn();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const ref = params.get('ref');
  const referralCode = ref && REFERRAL_CODE.test(ref) ? ref : null;
  const [pickerOpen, setPickerOpen] = useState(false);
  const [notice, setNotice] = useState<Notice | null>(null);

  const registered = user.data != null;
  const sharedReasonId = useId();

  // Verify is a write about the user: it needs the registered user's session.
  const ctx: MissionContext = {
    hasUser: registered && session.signedIn,
    pending: hasPendingInProgress(flows.pending),
    hasVault: vault.data != null,
  };
  // Until the user and the vault are known, a disabled button gives no (possibly wrong) reason.
  const settled = address == null || (!user.isPending && !vault.isPending);
  const actionButton = missionActionButton({
    walletConnected: address != null,
    signedIn: session.signedIn,
    registered,
  });
  const accountBusy = signIn.isPending || register.isPending;
  // Login signs the wallet in; Register signs in (when needed) and registers, with the referral.
  const onAccountAction = async () => {
    if (actionButton === 'connectWallet') return setPickerOpen(true);
    try {
      if (!session.signedIn) await signIn.mutateAsync();
      if (actionButton === 'register') await register.mutateAsync(referralCode);
    } catch {
      // shown below from the mutations' error state
    }
  };

  const start = (mission: MissionDto) => {
    if (!address) return;
    markMissionStarted(address, mission.id);
    void navigate(missionStartPath(mission.action));
  };

  const runVerify = async (mission: MissionDto) => {
    setNotice(null);
    try {
      const result = await verify.mutateAsync(mission.id);
      setNotice(
        isMissionComplete(result)
          ? { tone: 'success', text: `Mission completed: ${result.title}` }
          : {
              tone: 'info',
              text: `${result.title} is not done yet. Finish it in your vault, then verify again.`,
            },
      );
    } catch (error) {
      setNotice({ tone: 'error', text: `Verification failed: ${toUserMessage(error)}` });
    }
  };

  const list = missions.data ?? [];
  const summary = missions.isSuccess ? missionsSummary(list, ctx) : null;

  return (
    <div className="missions">
      <div className="missions__column">
        <section className="card missions__main" aria-labelledby="missions-title">
          <header className="missions__header">
            <div>
              <h1 className="card__title" id="missions-title">
                Missions
              </h1>
              {summary && <p className="muted missions__summary">{summary}</p>}
            </div>
            {actionButton && (
              <button
                type="button"
                className="btn btn--primary"
                disabled={actionButton !== 'connectWallet' && (user.isPending || accountBusy)}
                aria-busy={accountBusy || undefined}
                onClick={() => void onAccountAction()}
              >
                {missionActionButtonLabel(actionButton)}
              </button>
            )}
          </header>
          <Invitation
            referredBy={user.data && isOwnUserView(user.data) ? user.data.referred_by : null}
            code={registered ? null : referralCode}
          />
          {summary && (
            <progress
              className="missions__progress"
              max={list.length}
              value={list.filter(isMissionComplete).length}
              aria-label="Missions completed"
            />
          )}
          {signIn.isError && (
            <p role="alert" className="missions__error">
              Sign-in failed: {toUserMessage(signIn.error)}
            </p>
          )}
          {register.isError && (
            <p role="alert" className="missions__error">
              Registration failed: {toUserMessage(register.error)}
            </p>
          )}
          {user.isError && (
            <p role="alert" className="missions__error">
              Your missions account could not be loaded.
            </p>
          )}
          <p
            role="status"
            aria-live="polite"
            className={`missions__notice missions__notice--${notice?.tone ?? 'info'}`}
          >
            {notice?.text}
          </p>
          {address == null ? (
            <p className="missions__empty muted">Connect your wallet to see your missions.</p>
          ) : missions.isPending ? (
            <div role="status" aria-label="Loading missions" className="mission-list">
              {[0, 1, 2, 3].map((i) => (
                <div className="mission" key={i}>
                  <div className="mission__body">
                    <Skeleton width="55%" height="1.1em" />
                    <Skeleton width="30%" />
                  </div>
                  <Skeleton width="72px" height="30px" />
                </div>
              ))}
            </div>
          ) : missions.isError ? (
            <div role="alert" className="missions__empty">
              <p>Missions could not be loaded.</p>
              <button type="button" className="btn" onClick={() => void missions.refetch()}>
                Try again
              </button>
            </div>
          ) : list.length === 0 ? (
            <p className="missions__empty muted">No missions are available right now.</p>
          ) : (
            <>
              {/* The one reason every mission shares is said once, above them, not on each card. */}
              {settled && !ctx.hasUser && (
                <p className="mission__reason missions__shared-reason" id={sharedReasonId}>
                  {MISSION_REASONS['no-user']}
                </p>
              )}
              <ul className="mission-list" aria-labelledby="missions-title">
                {list.map((m) => (
                  <MissionItem
                    key={m.id}
                    mission={m}
                    ctx={ctx}
                    settled={settled}
                    sharedReasonId={sharedReasonId}
                    started={started.has(m.id)}
                    verifying={verifying.includes(m.id)}
                    onStart={() => start(m)}
                    onVerify={() => void runVerify(m)}
                  />
                ))}
              </ul>
            </>
          )}
          <WalletPicker open={pickerOpen} onOpenChange={setPickerOpen} />
        </section>
        {/* The columns were 420 px against 1,800: the badges sit under the missions,
          the levels and roles beside them, so both end near each other. */}
        {community.data && ctx.hasUser && <Awards title="Badges" awards={community.data.badges} />}
      </div>
      <aside className="missions__side">
        {user.data && <ReferralCard user={user.data} />}
        {user.data && <AccountsCard user={user.data} signedIn={session.signedIn} />}
        <ReferralLevels
          referrals={ctx.hasUser ? (user.data?.referrals ?? null) : null}
          defaultPostage={config.constants.unitPostageSats}
        />
        {community.data && ctx.hasUser && (
          <Awards title="Discord roles" awards={community.data.roles} />
        )}
      </aside>
    </div>
  );
}
