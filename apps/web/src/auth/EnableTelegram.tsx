// "Enable Telegram Notification" (SPEC §2): signs the wallet in when needed, asks the
// server for a one-time link to its bot, then offers that link; the chat that opens it gets this
// address's notifications. Once a chat is linked (the user's telegram_id) it says so, with a way
// to link another chat. Without a bot the feature says it is not configured here.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Check } from 'lucide-react';
import { CONTENT, isOwnUserView, toUserMessage } from '@unit/protocol';
import { userQueryOptions } from '../api/missions';
import { requestTelegramLink, useTelegramBot } from '../api/notify';
import { useWallet } from '../wallet';
import { useSession, useSignIn } from './session';
import './auth.css';

export const TELEGRAM_NOT_CONFIGURED = 'Telegram notifications are not configured on this server.';
export const TELEGRAM_ON = 'Telegram notifications are on';

/** While a bot link is out, how often the user is read again to see its chat linked. */
const LINK_POLL_MS = 3_000;

export function EnableTelegram({ className }: { className?: string }) {
  const bot = useTelegramBot();
  const wallet = useWallet();
  const session = useSession();
  const signIn = useSignIn();
  const [busy, setBusy] = useState(false);
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The chat linked when the link was asked for: a new one (or the first) ends the wait.
  const [linkedBefore, setLinkedBefore] = useState<string | null>(null);
  const address = wallet.account?.satsAddress ?? null;
  const user = useQuery({
    ...userQueryOptions(bot ? address : null),
    refetchInterval: url ? LINK_POLL_MS : false,
  });
  const telegramId = user.data && isOwnUserView(user.data) ? user.data.telegram_id : null;
  const linked = telegramId != null && (url == null || telegramId !== linkedBefore);

  if (!bot) return <span className={`muted ${className ?? ''}`}>{TELEGRAM_NOT_CONFIGURED}</span>;
  if (!wallet.account) return null;
  if (url && !linked) {
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
      const link = await requestTelegramLink();
      setLinkedBefore(telegramId);
      setUrl(link.url);
    } catch (err) {
      setError(toUserMessage(err));
    } finally {
      setBusy(false);
    }
  };
  const errorNote = error && (
    <span role="alert" className="enable-telegram__error">
      {' '}
      {error}
    </span>
  );
  if (linked)
    return (
      <span className={`enable-telegram--on ${className ?? ''}`}>
        <Check size={14} aria-hidden="true" className="enable-telegram__check" />
        {TELEGRAM_ON}{' '}
        <button
          type="button"
          className="link-button"
          aria-busy={busy || undefined}
          disabled={busy}
          onClick={() => void enable()}
        >
          Relink
        </button>
        {errorNote}
      </span>
    );
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
      {errorNote}
    </span>
  );
}
