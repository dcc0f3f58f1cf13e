import { useState } from 'react';
import { X } from 'lucide-react';
import {
  PENDING_STALE_AFTER_SECONDS,
  PENDING_STATUS_LABELS,
  pendingSentence,
  type PendingTransaction,
} from '@unit/protocol';
import { useConfig } from '../api/config';
import { EnableTelegram } from '../auth/EnableTelegram';
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
  const config = useConfig();
  const latest = [...flows.pending].reverse().find((p) => p.status === 'In Progress') ?? null;
  const banner = flows.banner;
  if (!banner && !latest) return null;
  const tone = banner?.tone ?? 'info';
  const txid = banner?.txid ?? latest?.transactionId ?? null;
  return (
    <div className={`banner banner--${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      {banner && <strong>{banner.text}</strong>}
      {latest && (
        <>
          <span className="spinner banner__spinner" aria-hidden="true" />
          <span className="banner__text">
            {pendingSentence(
              latest.type,
              formatAmount(BigInt(latest.amount), latest.amountUnit),
              // the devnet mines every few seconds; a real network about every ten minutes
              config.network === 'devnet' ? 1 : 10,
            )}
          </span>
          {/* SPEC §4's status label, kept as the banner's badge */}
          <span className="badge badge--pending">{PENDING_STATUS_LABELS['In Progress']}</span>
        </>
      )}
      {!latest && banner?.tone === 'success' && <span>{PENDING_STATUS_LABELS.Completed}</span>}
      {txid && <TxLink txid={txid} />}
      {tone !== 'error' && <EnableTelegram />}
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
          <X size={16} aria-hidden="true" />
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
      <button
        type="button"
        className="btn btn--secondary btn--small"
        onClick={() => setConfirming(true)}
      >
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
            className="btn btn--danger"
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
