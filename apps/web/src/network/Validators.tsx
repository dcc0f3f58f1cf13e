// "Open validators" on /network: whether each validator this server is configured with
// (UNIT_VALIDATORS) rebuilt from the chain the same ledger as the app's database, compared at a
// height both have read (GET /api/network's `validators`). Each says so in words, not colour alone:
// agrees or disagrees at block H (with both digests when they differ), or could not be asked, and why.
import { CircleCheck, CircleHelp, CircleX } from 'lucide-react';
import type { NetworkValidatorDto } from '@unit/protocol/wire';
import { formatAgo, shortKey } from './format';

function verdictWords(v: NetworkValidatorDto): string {
  if (v.state === 'agrees') return `Agrees at block ${v.height}`;
  if (v.state === 'disagrees') return `Disagrees at block ${v.height}`;
  return 'Unreachable';
}

/** One sentence over every validator: all agree, some disagree, or none could be asked. */
export function validatorsSummary(validators: NetworkValidatorDto[]): string {
  const count = (state: NetworkValidatorDto['state']) =>
    validators.filter((v) => v.state === state).length;
  const [agree, disagree, total] = [count('agrees'), count('disagrees'), validators.length];
  const who = (n: number) =>
    n < total ? `${n} of ${total} validators` : total === 1 ? 'The validator' : `All ${total} validators`; // prettier-ignore
  const verb = (n: number, one: string, many: string) => (n === 1 ? one : many);
  if (disagree > 0)
    return `${who(disagree)} ${verb(disagree, 'disagrees', 'disagree')} with this app's ledger: the app's database and the chain differ somewhere. Compare the ledgers at that block to find the vault.`;
  if (agree === 0)
    return 'No validator could be asked just now, so nothing is known of their ledgers; this page asks again shortly.';
  return `${who(agree)} ${verb(agree, 'agrees', 'agree')} with this app's ledger, rebuilt from the chain alone.`;
}

const ICONS = { agrees: CircleCheck, disagrees: CircleX, unreachable: CircleHelp };

export function ValidatorAgreement(props: { validators: NetworkValidatorDto[]; now: number }) {
  const { validators, now } = props;
  return (
    <section className="card network__validators" aria-labelledby="validators-title">
      <h2 id="validators-title" className="network__set-title">
        Open validators
      </h2>
      <p className={validators.some((v) => v.state === 'disagrees') ? 'network__alarm' : 'muted'}>
        {validatorsSummary(validators)}
      </p>
      <ul className="network__validator-list" aria-label="Open validators">
        {validators.map((v) => {
          const Icon = ICONS[v.state];
          return (
            <li key={v.url} className={`network__validator network__validator--${v.state}`}>
              <span className="network__validator-url">{v.url}</span>
              <span className="network__validator-state">
                <Icon size={14} aria-hidden="true" /> {verdictWords(v)}
              </span>
              <span className="muted network__validator-when">
                asked {formatAgo(v.checked_at, now)}
              </span>
              {v.state === 'disagrees' && v.digest && v.app_digest && (
                <span className="muted network__validator-detail">
                  Its ledger digest is {shortKey(v.digest)}; this app's is {shortKey(v.app_digest)}.
                </span>
              )}
              {v.problem && <span className="muted network__validator-detail">{v.problem}</span>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
