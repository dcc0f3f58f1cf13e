import { useQuery } from '@tanstack/react-query';
import { CONTENT, feeRateOf, speedUpFeeRate, type PendingTransaction } from '@unit/protocol';
import { useConfig } from '../api/config';
import { getJson, joinUrl } from '../api/http';
import { usePosition } from '../api/position';
import { formatBtcUsd } from '../ui/format';
import { TxLink } from '../ui/TxLink';
import type { FlowDecl, FlowTarget } from './declarations';
import type { FlowInput } from './flow-types';
import type { FlowPreview } from './preview';

const COPY = CONTENT.speedUp;

/** What esplora says of the waiting transaction: its fee, size and whether a block has it. */
interface WaitingTx {
  fee: number;
  weight: number;
  status: { confirmed: boolean };
}

/**
 * The speed-up flow's first step: the transaction's current fee rate and the new one, the
 * mempool's fastest tier raised to at least what BIP-125 asks of a replacement (speedUpFeeRate),
 * and the extra fee that costs. The wallet then signs the replacement (runSpeedUp).
 */
export function SpeedUpForm(props: {
  decl: FlowDecl;
  target: Extract<FlowTarget, { kind: 'speedup' }>;
  pending: readonly PendingTransaction[];
  onCancel(): void;
  onStart(input: FlowInput, preview: FlowPreview): void;
}) {
  const config = useConfig();
  const position = usePosition();
  const { txid } = props.target;
  const tx = useQuery({
    queryKey: ['speed-up-tx', txid],
    queryFn: () => getJson<WaitingTx>(joinUrl(config.esploraUrl, `tx/${txid}`)),
    retry: false,
  });
  const step = props.decl.steps[0]!;
  const original = tx.data
    ? { fee: BigInt(tx.data.fee), vsize: Math.ceil(tx.data.weight / 4) }
    : null;
  const newRate = original ? speedUpFeeRate(original, original.vsize, position.fees) : null;
  const extra =
    original && newRate !== null ? BigInt(newRate * original.vsize) - original.fee : null;
  const problem = tx.isError ? COPY.gone : tx.data?.status.confirmed ? COPY.confirmed : null;
  // The Telegram notice of the sped-up action carries its amount, as the first one did.
  const entry = props.pending.find((p) => p.transactionId === txid);
  const amount = entry ? BigInt(entry.amount) : 0n;
  const before = { btcSats: position.sats, unitCents: position.debtCents };
  return (
    <div className="flow-step">
      <p className="muted">{COPY.explainer}</p>
      <TxLink txid={txid} />
      {original && newRate !== null && extra !== null ? (
        <dl className="summary">
          <div>
            <dt>{COPY.currentRate}</dt>
            <dd>{feeRateOf(original)} sat/vB</dd>
          </div>
          <div>
            <dt>{COPY.newRate}</dt>
            <dd>{newRate} sat/vB</dd>
          </div>
          <div>
            <dt>{COPY.extraFee}</dt>
            <dd>{formatBtcUsd(extra, position.priceUsd)}</dd>
          </div>
        </dl>
      ) : (
        !problem && (
          <p className="muted" role="status">
            Reading the transaction…
          </p>
        )
      )}
      {problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
      <footer className="flow-actions">
        <button type="button" className="btn" onClick={props.onCancel}>
          {step.secondary}
        </button>
        <button
          type="button"
          className="btn btn--primary"
          disabled={newRate === null || problem !== null}
          onClick={() =>
            newRate !== null &&
            props.onStart(
              {
                name: '',
                sats: entry?.amountUnit === 'BTC' ? amount : 0n,
                cents: entry?.amountUnit === 'UNIT' ? amount : 0n,
                feeRate: newRate,
                target: props.target,
              },
              { before, after: before, priceUsd: position.priceUsd },
            )
          }
        >
          {step.primary}
        </button>
      </footer>
    </div>
  );
}
