import { CONTENT, PENDING_STATUS_LABELS } from '@unit/protocol';
import { useTelegramLink } from '../api/notify';
import { useFlows } from '../flows/FlowProvider';
import { formatAmount } from '../ui/format';
import { TxLink } from '../ui/TxLink';

/**
 * The banner of a running or finished flow and of stored pending transactions (SPEC §4); it links
 * to the block explorer and offers Telegram notification (SPEC §2 Dashboard).
 */
export function PendingBanner() {
  const flows = useFlows();
  const telegramLink = useTelegramLink();
  const latest = [...flows.pending].reverse().find((p) => p.status === 'In Progress') ?? null;
  const banner = flows.banner;
  if (!banner && !latest) return null;
  const tone = banner?.tone ?? 'info';
  const txid = banner?.txid ?? latest?.transactionId ?? null;
  return (
    <div className={`banner banner--${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      {banner && <strong>{banner.text}</strong>}
      {latest && (
        <span>
          {latest.type} {formatAmount(BigInt(latest.amount), latest.amountUnit)}:{' '}
          {PENDING_STATUS_LABELS['In Progress']}
        </span>
      )}
      {!latest && banner?.tone === 'success' && <span>{PENDING_STATUS_LABELS.Completed}</span>}
      {txid && <TxLink txid={txid} />}
      {telegramLink && tone !== 'error' && (
        <a href={telegramLink} target="_blank" rel="noreferrer">
          {CONTENT.vaultPage.enableTelegram}
        </a>
      )}
      {banner && (
        <button
          type="button"
          className="icon-btn"
          aria-label="Dismiss"
          onClick={flows.dismissBanner}
        >
          ×
        </button>
      )}
    </div>
  );
}
