// The referral parts of the missions page: the user's code, the invitation a referred visitor sees,
// and SPEC §3 Referral levels.
import { Copy, Users } from 'lucide-react';
import {
  POSTAGE_COPY,
  REFERRAL_LEVEL_IDS,
  REFERRAL_LEVELS,
  nextReferralLevel,
  referralLevel,
  referralLevelTitle,
  isOwnUserView,
  type PublicUserDto,
} from '@unit/protocol';
import { useToasts } from '../ui/toasts';

export function ReferralCard({ user }: { user: PublicUserDto }) {
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
      {/* The field cut the code off; the link wraps, with the code set apart. The code
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

/**
 * Who invited this user (a referred user landed with no word of it): the referrer's
 * address once registered, or the code in the link until then.
 */
export function Invitation({
  referredBy,
  code,
}: {
  referredBy: string | null;
  code: string | null;
}) {
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

/** SPEC §3 Referral levels: Nebula, Red Giant, Super Giant, each with its postage. */
export function ReferralLevels({
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
        {/* the treasury's postage on repaid UNIT is the same default (docs/protocol.md) */}
        {POSTAGE_COPY.explained(
          `${defaultPostage.toLocaleString('en-US')} sats`,
          `${defaultPostage.toLocaleString('en-US')} sats`,
        )}
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
