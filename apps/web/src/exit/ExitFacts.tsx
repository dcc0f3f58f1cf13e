// What the chain shows of a vault, for its owner: where it is, what it holds, its leaves and, first
// of all, whether its exit is open, and if not at which block and around which date.
import { forwardRef } from 'react';
import { hex } from '@scure/base';
import {
  estimatedDateOf,
  pendingClaimSentence,
  utcMinute,
  type VaultExitFacts,
} from '@unit/bitcoin';
import { termStage } from '@unit/protocol';
import { formatAmount } from '../ui/format';

const sats = (amount: bigint) => `${amount.toLocaleString('en-US')} sats`;

/** Whether the exit is open now, or at which block and around when it opens. */
export function ExitStatus({ facts, now }: { facts: VaultExitFacts; now: number }) {
  const term = facts.record.term;
  if (!term)
    return (
      <p className="exit__status exit__status--none">
        This vault has no exit of its own yet (layout 1): only the guardians can co-sign its spends.
        It gets an exit on its next action.
      </p>
    );
  if (termStage(facts.tipHeight, term) === 'exit')
    return (
      <p className="exit__status exit__status--open">
        The exit is open: since block {term.exitHeight.toLocaleString('en-US')}, your key alone can
        take the whole vault.
      </p>
    );
  const blocks = term.exitHeight - facts.tipHeight;
  return (
    <p className="exit__status exit__status--closed">
      The exit is not open yet. It opens at block {term.exitHeight.toLocaleString('en-US')}, in{' '}
      {blocks.toLocaleString('en-US')} {blocks === 1 ? 'block' : 'blocks'}: around{' '}
      {utcMinute(estimatedDateOf(blocks, now))} if blocks keep coming every 10 minutes.
    </p>
  );
}

export const ExitFacts = forwardRef<HTMLHeadingElement, { facts: VaultExitFacts; now: number }>(
  function ExitFacts({ facts, now }, headingRef) {
    const { record, utxo } = facts;
    const term = record.term;
    return (
      <section className="card exit__section" aria-labelledby="exit-vault-heading">
        <h2 id="exit-vault-heading" ref={headingRef} tabIndex={-1}>
          2. The vault on the chain
        </h2>
        <ExitStatus facts={facts} now={now} />
        {facts.pendingClaim && (
          <p className="exit__status exit__status--claim">
            {pendingClaimSentence(facts.pendingClaim)}
          </p>
        )}
        <dl className="exit__facts">
          <dt>Holds</dt>
          <dd>
            {formatAmount(utxo.amount, 'BTC')} ({sats(utxo.amount)})
          </dd>
          <dt>Debt</dt>
          <dd>
            {record.unitDebt === 0n
              ? 'None.'
              : `${formatAmount(record.unitDebt, 'UNIT')}: the UNIT you borrowed stay yours, and the exit returns the whole collateral.`}
          </dd>
          <dt>Address</dt>
          <dd className="exit__mono">
            {facts.address} ({facts.networkName})
          </dd>
          <dt>Output</dt>
          <dd className="exit__mono">
            {utxo.txid}:{utxo.vout}
            {facts.confirmed ? '' : ' (not confirmed yet)'}
          </dd>
          <dt>Chain height</dt>
          <dd>block {facts.tipHeight.toLocaleString('en-US')}</dd>
          <dt>Leaves</dt>
          <dd>
            {term ? (
              <ul className="exit__leaves">
                <li>
                  Exit: your key alone from block {term.exitHeight.toLocaleString('en-US')}{' '}
                  <code>
                    &lt;{term.exitHeight}&gt; OP_CHECKLOCKTIMEVERIFY OP_DROP &lt;owner key&gt;
                    OP_CHECKSIG
                  </code>
                </li>
                <li>
                  Settlement: the guardians may settle the debt from block{' '}
                  {term.settleHeight.toLocaleString('en-US')} while their network runs.
                </li>
                <li>
                  Update and liquidation: the guardians&apos; key with yours, or with a price secret
                  (the rest of the tree, hash{' '}
                  <span className="exit__mono">{hex.encode(term.exitBranch)}</span>).
                </li>
              </ul>
            ) : (
              'Update and liquidation only: both need the guardians.'
            )}
          </dd>
        </dl>
      </section>
    );
  },
);
