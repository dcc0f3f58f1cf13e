import { useState } from 'react';
import {
  CONTENT,
  PENDING_STALE_AFTER_SECONDS,
  PENDING_STATUS_LABELS,
  type PendingTransaction,
} from '@unit/protocol';
import { useTelegramLink } from '../api/notify';
import { FLOWS } from '../flows/declarations';
import { useFlows } from '../flows/FlowProvider';
import { SpeedUpButton } from '../flows/SpeedUpButton';
import { formatAmount } from '../ui/format';
import { Sheet } from '../ui/Sheet';
import { TxLink } from '../ui/TxLink';
import { useNow } from '../ui/useNow';

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
      {latest && (
        <SpeedUpButton
          txid={latest.transactionId}
          action={FLOWS[latest.type].guardianAction}
          sentAt={latest.date}
        />
      )}
      {latest && <ForgetPending entry={latest} />}
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

/**
 * A transaction that never confirms (dropped from the mempool) would keep every action disabled
 * forever; after an hour the user may forget it, once they have read what that means.
 */
function ForgetPending({ entry }: { entry: PendingTransaction }) {
  const flows = useFlows();
  const now = useNow(60_000);
  const [confirming, setConfirming] = useState(false);
  if (now / 1000 - entry.date < PENDING_STALE_AFTER_SECONDS) return null;
  return (
    <>
      <button type="button" className="btn btn--small" onClick={() => setConfirming(true)}>
        Forget this transaction
      </button>
      <Sheet
        open={confirming}
        onOpenChange={setConfirming}
        title="Forget this transaction?"
        description="It has not confirmed for over an hour. Check the explorer link first: if the transaction is still in the mempool it may yet confirm, and your vault will show it then. Forgetting it only removes it from this list and unblocks your actions."
      >
        <footer className="flow-actions">
          <button type="button" className="btn" onClick={() => setConfirming(false)}>
            Keep waiting
          </button>
          <button
            type="button"
            className="btn btn--primary"
            onClick={() => {
              setConfirming(false);
              flows.forgetPending(entry.transactionId);
            }}
          >
            Forget it
          </button>
        </footer>
      </Sheet>
    </>
  );
}
