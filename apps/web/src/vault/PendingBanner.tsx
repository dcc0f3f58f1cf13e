import { useState } from 'react';
import { CircleAlert, CircleCheck, X } from 'lucide-react';
import {
  PENDING_STALE_AFTER_SECONDS,
  PENDING_STATUS_LABELS,
  confirmedSentence,
  pendingSentence,
  type PendingTransaction,
} from '@unit/protocol';
import { useConfig } from '../api/config';
import { EnableTelegram } from '../auth/EnableTelegram';
import { FLOWS } from '../flows/declarations';
import { useFlows } from '../flows/FlowProvider';
import { SpeedUpButton } from '../flows/SpeedUpButton';
import { vaultActionOf } from '../flows/vault-action';
import { formatAmount } from '../ui/format';
import { Sheet } from '../ui/Sheet';
import { TxLink } from '../ui/TxLink';
import { useNow } from '../ui/useNow';
import { BannerApprovals } from './BannerApprovals';

/**
 * The banner of a running or finished flow and of stored pending transactions (SPEC §4); it links
 * to the block explorer and offers Telegram notification (SPEC §2 Dashboard). One layout for every
 * action: a state mark, a title line with one line of detail, then a row of the links
 * and buttons that apply. Telegram is offered only while something is waiting and only when this
 * server has a bot (an unconfigured server is said once, on the vault page, not in every banner).
 * When a guardian network signs, the guardians' approvals follow the detail line.
 */
export function PendingBanner() {
  const flows = useFlows();
  const config = useConfig();
  const latest = [...flows.pending].reverse().find((p) => p.status === 'In Progress') ?? null;
  const banner = flows.banner;
  if (!banner && !latest) return null;
  const tone = banner?.tone ?? 'info';
  const txid = banner?.txid ?? latest?.transactionId ?? null;
  const done = !latest && tone === 'success';
  // The entry the finished banner is about, for its amount ('Deposit of 0.001 BTC confirmed').
  const finished = done ? flows.pending.find((p) => p.transactionId === banner?.txid) : undefined;
  const amountOf = (p: PendingTransaction) => formatAmount(BigInt(p.amount), p.amountUnit);
  const title = done
    ? confirmedSentence(
        finished?.type ?? (banner ? FLOWS[banner.action].pendingType : null),
        finished ? amountOf(finished) : null,
      )
    : (banner?.text ?? FLOWS[latest!.type].successTitle);
  return (
    <div className={`banner banner--${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      <span className="banner__mark" aria-hidden="true">
        {latest ? (
          <span className="spinner banner__spinner" />
        ) : tone === 'success' ? (
          <CircleCheck size={18} />
        ) : tone === 'error' ? (
          <CircleAlert size={18} />
        ) : (
          <span className="spinner banner__spinner" />
        )}
      </span>
      <div className="banner__body">
        <p className="banner__title">
          <strong>{title}</strong>
          {/* SPEC §4's status labels, kept as the banner's badge */}
          {latest && (
            <span className="badge badge--pending">{PENDING_STATUS_LABELS['In Progress']}</span>
          )}
          {done && <span className="badge badge--done">{PENDING_STATUS_LABELS.Completed}</span>}
        </p>
        {latest && (
          <p className="banner__text">
            {pendingSentence(
              latest.type,
              amountOf(latest),
              // the devnet mines every few seconds; a real network about every ten minutes
              config.network === 'devnet' ? 1 : 10,
            )}
          </p>
        )}
        {/* A refusal names each guardian's reason, whole, wrapping on a phone */}
        {banner?.refusal && <p className="banner__text banner__refusal">{banner.refusal}</p>}
        {banner?.detail && <p className="banner__text">{banner.detail}</p>}
        {banner?.approvals && (
          <BannerApprovals
            approvals={banner.approvals}
            failed={tone === 'error'}
            over={tone === 'error' || banner.txid !== null}
            silent={flows.drawerOpen}
          />
        )}
        {(txid || latest) && (
          <div className={latest ? 'banner__actions banner__actions--pending' : 'banner__actions'}>
            {txid && <TxLink txid={txid} />}
            {latest && config.telegramBot && <EnableTelegram />}
            {latest && (
              <SpeedUpButton
                txid={latest.transactionId}
                action={vaultActionOf(latest.type)}
                sentAt={latest.date}
              />
            )}
            {latest && <ForgetPending entry={latest} />}
          </div>
        )}
      </div>
      {banner && (
        <button
          type="button"
          className="icon-btn banner__dismiss"
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
