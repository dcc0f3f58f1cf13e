import { useId, useState, type ReactNode } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import {
  Award,
  Copy,
  Crown,
  Flame,
  Gauge,
  Gem,
  Hash,
  Lock,
  Medal,
  Rocket,
  ScrollText,
  Sparkles,
  Sprout,
  Sun,
  TrendingUp,
  Trophy,
  Users,
  type LucideIcon,
} from 'lucide-react';
import { useMutationState } from '@tanstack/react-query';
import {
  MISSION_REASONS,
  REFERRAL_LEVEL_IDS,
  REFERRAL_LEVELS,
  hasPendingInProgress,
  isMissionComplete,
  missionActionButton,
  missionActionButtonLabel,
  missionButtonLabel,
  missionButtonState,
  missionDisabledReason,
  missionStartPath,
  missionStatus,
  nextReferralLevel,
  referralLevel,
  referralLevelTitle,
  toUserMessage,
  isOwnUserView,
  type CommunityAwardDto,
  type MissionContext,
  type MissionDto,
  type PublicUserDto,
} from '@unit/protocol';
import {
  startAccountLink,
  useCommunity,
  useOAuthProviders,
  type OAuthProvider,
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
import { useToasts } from '../ui/toasts';
import { useWallet, WalletPicker } from '../wallet';
import { useSession, useSignIn } from '../auth/session';
import { EnableTelegram } from '../auth/EnableTelegram';
import { useTelegramBot } from '../api/notify';
import { markMissionStarted, useStartedMissions } from './started-missions';
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
  const done = list.filter(isMissionComplete).length;

  return (
    <div className="missions">
      <div className="missions__column">
        <section className="card missions__main" aria-labelledby="missions-title">
          <header className="missions__header">
            <div>
              <h1 className="card__title" id="missions-title">
                Missions
              </h1>
              {missions.isSuccess && list.length > 0 && (
                <p className="muted missions__summary">
                  {done} of {list.length} completed
                </p>
              )}
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
          {missions.isSuccess && list.length > 0 && (
            <progress
              className="missions__progress"
              max={list.length}
              value={done}
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
        {/* Issue 22: the columns were 420 px against 1,800: the badges sit under the missions,
          the levels and roles beside them, so both end near each other. */}
        {community.data && <Awards title="Badges" awards={community.data.badges} />}
      </div>
      <aside className="missions__side">
        {user.data && <ReferralCard user={user.data} />}
        {user.data && <AccountsCard user={user.data} signedIn={session.signedIn} />}
        <ReferralLevels
          referrals={user.data?.referrals ?? null}
          defaultPostage={config.constants.unitPostageSats}
        />
        {community.data && <Awards title="Discord roles" awards={community.data.roles} />}
      </aside>
    </div>
  );
}

function MissionItem(props: {
  mission: MissionDto;
  ctx: MissionContext;
  settled: boolean;
  /** where the list says the reason all missions share (no user) */
  sharedReasonId: string;
  started: boolean;
  verifying: boolean;
  onStart: () => void;
  onVerify: () => void;
}) {
  const { mission } = props;
  const id = useId();
  const complete = isMissionComplete(mission);
  const status = missionStatus({ complete, started: props.started, verifying: props.verifying });
  const state = missionButtonState(mission, props.ctx);
  const reason = !state.enabled && props.settled && status !== 'completed' ? state.reason : null;
  // The no-user reason is said once above the list; the button still names it.
  const shared = reason !== null && missionDisabledReason(mission, props.ctx) === 'no-user';
  const describedBy = reason
    ? `${id}-title ${shared ? props.sharedReasonId : `${id}-reason`}`
    : `${id}-title`;
  // aria-disabled keeps a disabled button focusable, so keyboard users reach it and hear why.
  const unavailable = !state.enabled || status === 'verifying';
  return (
    <li className={`mission${complete ? ' mission--done' : ''}`} aria-busy={props.verifying}>
      <div className="mission__body">
        <h2 className="mission__title" id={`${id}-title`}>
          {mission.title}
        </h2>
        <p className="mission__meta muted">
          {mission.completed_tasks}/{mission.mission_tasks} tasks
        </p>
        {reason && !shared && (
          <p className="mission__reason" id={`${id}-reason`}>
            {reason}
          </p>
        )}
      </div>
      {status === 'completed' ? (
        <span className="mission__done">
          <span aria-hidden="true">✓ </span>Completed
        </span>
      ) : (
        <button
          type="button"
          className="btn btn--small mission__button"
          aria-disabled={unavailable || undefined}
          aria-describedby={describedBy}
          onClick={() => {
            if (unavailable) return;
            if (status === 'todo') props.onStart();
            else props.onVerify();
          }}
        >
          {status === 'verifying' && <span className="spinner" aria-hidden="true" />}
          {missionButtonLabel(status)}
        </button>
      )}
    </li>
  );
}

function ReferralCard({ user }: { user: PublicUserDto }) {
  const toasts = useToasts();
  // The referral code is the owner's: shown with their session only.
  const link = isOwnUserView(user)
    ? `${window.location.origin}/missions?ref=${user.referral_code}`
    : null;
  return (
    <section className="card" aria-labelledby="referral-title">
      <h2 className="card__title" id="referral-title">
        Your referrals
      </h2>
      <dl className="referral-stats">
        <div>
          <dt className="muted">Level</dt>
          <dd>{user.level ? referralLevelTitle(user.level) : 'None yet'}</dd>
        </div>
        <div>
          <dt className="muted">Referrals</dt>
          <dd>{user.referrals}</dd>
        </div>
      </dl>
      {/* Issue 22: the field cut the code off; the link wraps, with the code set apart. The code
          is the owner's: shown with their session only. */}
      {link && isOwnUserView(user) ? (
        <>
          <p className="field-label" id="referral-link-label">
            Referral link
          </p>
          <div className="referral-link">
            <code className="referral-link__url" aria-labelledby="referral-link-label">
              {link.slice(0, link.length - user.referral_code.length)}
              <strong>{user.referral_code}</strong>
            </code>
            <button
              type="button"
              className="btn btn--small"
              aria-label="Copy referral link"
              onClick={() => void toasts.copy(link)}
            >
              <Copy size={14} aria-hidden="true" />
              Copy
            </button>
          </div>
          <p className="muted referral-link__code">
            Your code: <strong className="num">{user.referral_code}</strong>
          </p>
        </>
      ) : (
        <p className="muted">Log in to see your referral link.</p>
      )}
    </section>
  );
}

/** SPEC §3 roles and badges: each earned or not, with the rule that earns it (server-side). */
function Awards({ title, awards }: { title: string; awards: CommunityAwardDto[] }) {
  const id = useId();
  const earned = awards.filter((a) => a.earned).length;
  return (
    <section className="card" aria-labelledby={id}>
      <h2 className="card__title" id={id}>
        {title}
      </h2>
      <p className="muted">
        {earned} of {awards.length} earned
      </p>
      <ul className="awards">
        {awards.map((award) => (
          <li key={award.id} className={`award${award.earned ? ' award--earned' : ''}`}>
            <AwardIcon id={award.id} earned={award.earned} />
            <span className="award__title">{award.title}</span>
            <span className="award__state">{award.earned ? 'Earned' : 'Not yet'}</span>
            <span className="award__how muted">{award.how}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * Each role and badge gets its own mark (issue 22: they were rows of text), drawn inline from the
 * icon set already in the bundle: nothing is downloaded. An award this page does not know yet gets
 * the generic one.
 */
const AWARD_ICONS: Record<string, LucideIcon> = {
  genesis: Sprout,
  prime: Crown,
  optimizer: Gauge,
  exponent: TrendingUp,
  anomaly: Sparkles,
  boost: Rocket,
  'low-ordinal': Hash,
  'top-ethereum': Gem,
  'top-ordinal': Medal,
  'top-rune': ScrollText,
  'top-solana': Sun,
  'mog-dante': Flame,
  'mog-dante-gold': Trophy,
  referral: Users,
};

function AwardIcon({ id, earned }: { id: string; earned: boolean }) {
  const Icon = AWARD_ICONS[id] ?? Award;
  return (
    <span className={`award__icon${earned ? ' award__icon--earned' : ''}`} aria-hidden="true">
      <Icon size={18} strokeWidth={2} />
      {!earned && <Lock size={10} className="award__lock" />}
    </span>
  );
}

/**
 * Who invited this user (issue 22: a referred user landed with no word of it): the referrer's
 * address once registered, or the code in the link until then.
 */
function Invitation({ referredBy, code }: { referredBy: string | null; code: string | null }) {
  if (referredBy)
    return (
      <p className="missions__invite" role="note">
        <Users size={16} aria-hidden="true" />
        <span>
          You were invited by{' '}
          <code title={referredBy}>
            {referredBy.slice(0, 8)}…{referredBy.slice(-6)}
          </code>
          .
        </span>
      </p>
    );
  if (code)
    return (
      <p className="missions__invite" role="note">
        <Users size={16} aria-hidden="true" />
        <span>
          You were invited with referral code <strong className="num">{code}</strong>. Register to
          accept: it counts for the friend who shared it.
        </span>
      </p>
    );
  return null;
}

const PROVIDER_NAMES: Record<OAuthProvider, string> = {
  discord: 'Discord',
  twitter: 'Twitter (X)',
};

/**
 * SPEC §3 User: the accounts linked to this address. Discord and Twitter link through their OAuth2
 * consent screens (the server returns here with ?linked= or ?link_error=); Telegram through the bot.
 */
function AccountsCard({ user, signedIn }: { user: PublicUserDto; signedIn: boolean }) {
  // The linked ids are the owner's: without their session the card shows none.
  const own = isOwnUserView(user) ? user : null;
  const providers = useOAuthProviders();
  const telegramBot = useTelegramBot();
  const [params] = useSearchParams();
  const [error, setError] = useState<string | null>(null);
  const linked = params.get('linked');
  const failed = params.get('link_error');
  const taken = params.get('reason') === 'taken';
  const link = async (provider: OAuthProvider) => {
    setError(null);
    try {
      window.location.assign((await startAccountLink(provider)).url);
    } catch (err) {
      setError(toUserMessage(err));
    }
  };
  const row = (provider: OAuthProvider) => {
    const id = provider === 'discord' ? own?.discord_id : own?.twitter_id;
    let state: ReactNode;
    if (!own) state = <span className="muted">Log in to see</span>;
    else if (id) state = <span className="accounts__linked">Linked</span>;
    else if (providers.data && !providers.data[provider])
      state = <span className="muted">Not configured on this server</span>;
    else
      state = (
        <button
          type="button"
          className="link-button"
          disabled={!signedIn || !providers.data}
          onClick={() => void link(provider)}
        >
          Link {PROVIDER_NAMES[provider]}
        </button>
      );
    return (
      <div key={provider}>
        <dt>{PROVIDER_NAMES[provider]}</dt>
        <dd>{state}</dd>
      </div>
    );
  };
  return (
    <section className="card" aria-labelledby="accounts-title">
      <h2 className="card__title" id="accounts-title">
        Linked accounts
      </h2>
      {linked && (linked === 'discord' || linked === 'twitter') && (
        <p role="status">{PROVIDER_NAMES[linked]} is now linked.</p>
      )}
      {failed && (failed === 'discord' || failed === 'twitter') && (
        <p role="alert" className="missions__error">
          {taken
            ? `This ${PROVIDER_NAMES[failed]} account is already linked to another address.`
            : `${PROVIDER_NAMES[failed]} could not be linked. Try again.`}
        </p>
      )}
      <dl className="accounts">
        {row('discord')}
        {row('twitter')}
        <div>
          <dt>Telegram</dt>
          <dd>
            {!own ? (
              <span className="muted">Log in to see</span>
            ) : own.telegram_id ? (
              <span className="accounts__linked">Linked</span>
            ) : telegramBot ? (
              <EnableTelegram />
            ) : (
              <span className="muted">Not configured on this server</span>
            )}
          </dd>
        </div>
      </dl>
      {error && (
        <p role="alert" className="missions__error">
          {error}
        </p>
      )}
      {!signedIn && <p className="muted">Log in to change your linked accounts.</p>}
    </section>
  );
}

/** SPEC §3 Referral levels: Nebula, Red Giant, Super Giant, each with its postage. */
function ReferralLevels({
  referrals,
  defaultPostage,
}: {
  referrals: number | null;
  defaultPostage: number;
}) {
  const next = referrals == null ? null : nextReferralLevel(referrals);
  return (
    <section className="card" aria-labelledby="levels-title">
      <h2 className="card__title" id="levels-title">
        Referral levels
      </h2>
      <ol className="levels">
        {REFERRAL_LEVEL_IDS.map((level, i) => {
          const rule = REFERRAL_LEVELS[level];
          const reached = referrals != null && referrals >= rule.minReferrals;
          const current = referrals != null && referralLevel(referrals) === level;
          return (
            <li
              key={level}
              className={`level level--${i + 1}${reached ? ' level--reached' : ''}`}
              aria-current={current ? 'step' : undefined}
            >
              <span className="level__title">{referralLevelTitle(level)}</span>
              <span className="level__detail muted">
                {rule.minReferrals} referral{rule.minReferrals === 1 ? '' : 's'} ·{' '}
                {rule.postage_sats.toLocaleString('en-US')} sats postage
              </span>
              {current && <span className="badge level__badge">Your level</span>}
            </li>
          );
        })}
      </ol>
      <p className="muted levels__what">
        Postage is the bitcoin your UNIT arrives with in your runes address when you open a vault,
        borrow or repay: {defaultPostage.toLocaleString('en-US')} sats without a level, your
        level&rsquo;s once you reach one. It stays yours and pays for moving that UNIT later.
      </p>
      {next && (
        <p className="muted levels__next">
          {next.remaining} more referral{next.remaining === 1 ? '' : 's'} to reach{' '}
          {referralLevelTitle(next.level)}.
        </p>
      )}
    </section>
  );
}
