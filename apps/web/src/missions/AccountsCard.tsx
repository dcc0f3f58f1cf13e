// The linked social accounts: link one, see which are linked, and the outcome of a link.
import { useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { toUserMessage, isOwnUserView, type PublicUserDto } from '@unit/protocol';
import { startAccountLink, useOAuthProviders, type OAuthProvider } from '../api/missions';
import { EnableTelegram } from '../auth/EnableTelegram';
import { useTelegramBot } from '../api/notify';

const PROVIDER_NAMES: Record<OAuthProvider, string> = {
  discord: 'Discord',
  twitter: 'Twitter (X)',
};

/**
 * SPEC §3 User: the accounts linked to this address. Discord and Twitter link through their OAuth2
 * consent screens (the server returns here with ?linked= or ?link_error=); Telegram through the bot.
 */
export function AccountsCard({ user, signedIn }: { user: PublicUserDto; signedIn: boolean }) {
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
