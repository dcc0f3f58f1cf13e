// "Enable Telegram Notification" (SPEC §2, issue 14): signs the wallet in when needed, asks the
// server for a one-time link to its bot, then offers that link; the chat that opens it gets this
// address's notifications. Without a bot the feature says it is not configured here.
import { useState } from 'react';
import { CONTENT, toUserMessage } from '@unit/protocol';
import { requestTelegramLink, useTelegramBot } from '../api/notify';
import { useWallet } from '../wallet';
import { useSession, useSignIn } from './session';
import './auth.css';

export const TELEGRAM_NOT_CONFIGURED = 'Telegram notifications are not configured on this server.';

export function EnableTelegram({ className }: { className?: string }) {
  const bot = useTelegramBot();
  const wallet = useWallet();
  const session = useSession();
  const signIn = useSignIn();
  const [busy, setBusy] = useState(false);
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  if (!bot) return <span className={`muted ${className ?? ''}`}>{TELEGRAM_NOT_CONFIGURED}</span>;
  if (!wallet.account) return null;
  if (url) {
    return (
      <a className={className} href={url} target="_blank" rel="noreferrer">
        Open @{bot} in Telegram and press Start
      </a>
    );
  }
  const enable = async () => {
    setBusy(true);
    setError(null);
    try {
      if (!session.signedIn) await signIn.mutateAsync();
      setUrl((await requestTelegramLink()).url);
    } catch (err) {
      setError(toUserMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className={className}>
      <button
        type="button"
        className="link-button"
        aria-busy={busy || undefined}
        disabled={busy}
        onClick={() => void enable()}
      >
        {CONTENT.vaultPage.enableTelegram}
      </button>
      {error && (
        <span role="alert" className="enable-telegram__error">
          {' '}
          {error}
        </span>
      )}
    </span>
  );
}
