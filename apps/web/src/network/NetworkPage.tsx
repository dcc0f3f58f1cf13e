// The /network page: the guardian set this server coordinates, the threshold in
// one sentence, the group key, and one card per guardian with its own health: online or not, its
// last price and signature, version and uptime. After a rotation, while an older set still lives,
// the newest set is listed first and each older one below it, labelled; then the guardians the
// server last left out of a signing (Exclusions.tsx), every published set's history (History.tsx),
// and whether the open validators agree with the app's ledger (Validators.tsx). Refreshed every
// 10 s (api/network.ts).
import { CircleCheck, CircleX, Copy, RotateCw } from 'lucide-react';
import { formatUsdCents } from '@unit/protocol';
import type { GuardianNetworkDto, NetworkGuardianDto, NetworkSetDto } from '@unit/protocol/wire';
import { NETWORK_REFRESH_MS, useNetwork } from '../api/network';
import { Skeleton } from '../ui/Skeleton';
import { useToasts } from '../ui/toasts';
import { useNow } from '../ui/useNow';
import { networkErrorWords } from './errors';
import { RecentExclusions } from './Exclusions';
import { SetHistory } from './History';
import { ValidatorAgreement } from './Validators';
import { formatAgo, formatDuration, shortKey } from './format';
import './network.css';

export function NetworkPage() {
  const network = useNetwork();
  return (
    <section className="network" aria-labelledby="network-title">
      <h1 id="network-title" className="network__title">
        Guardian network
      </h1>
      {network.data ? (
        <>
          {network.isError && (
            // A refresh failed: the last answer stays, marked as such.
            <p className="network__stale" role="alert">
              Could not refresh. {networkErrorWords(network.error)} Showing the last answer; the
              page tries again every {NETWORK_REFRESH_MS / 1000} s.
            </p>
          )}
          <NetworkView network={network.data} />
        </>
      ) : network.isError ? (
        <div className="card network__error" role="alert">
          <p>The guardian network could not be read. {networkErrorWords(network.error)}</p>
          <button type="button" className="btn btn--small" onClick={() => void network.refetch()}>
            <RotateCw size={14} aria-hidden="true" />
            Try again
          </button>
        </div>
      ) : (
        <div className="card" role="status" aria-label="Loading the guardian network">
          <span className="sr-only">Loading the guardian network…</span>
          <Skeleton height="1.5rem" />
          <Skeleton height="1.5rem" width="60%" />
        </div>
      )}
    </section>
  );
}

function NetworkView({ network }: { network: GuardianNetworkDto }) {
  const now = useNow(5_000);
  const online = network.guardians.filter((g) => g.online).length;
  return (
    <>
      <div className="card network__summary">
        {network.enabled ? (
          <p className="network__rule">
            {network.threshold} of {network.size} guardians must approve every vault transaction.
          </p>
        ) : (
          <p className="network__rule">
            This server signs alone: its one guardian key approves every vault transaction. No
            guardian network is running.
          </p>
        )}
        <dl className="network__facts">
          <div>
            <dt>{network.enabled ? 'Group key' : 'Guardian key'}</dt>
            <dd>
              <GroupKey hex={network.group_key} label={network.enabled ? 'group' : 'guardian'} />
            </dd>
          </div>
          {network.enabled && (
            <>
              <div>
                <dt>Scheme</dt>
                <dd>{network.scheme}</dd>
              </div>
              <div>
                <dt>Online</dt>
                <dd>
                  {online} of {network.size} guardians
                </dd>
              </div>
              <div>
                <dt>Set version</dt>
                <dd className="num">{network.set_version}</dd>
              </div>
            </>
          )}
        </dl>
        {network.enabled && online < network.threshold && (
          <p className="network__short">
            {online === 0
              ? 'No guardian is'
              : `Only ${online} of ${network.size} guardians ${online === 1 ? 'is' : 'are'}`}{' '}
            online, and {network.threshold} must approve: vault transactions wait until enough are
            back.
          </p>
        )}
        <p className="muted network__checked">Checked {formatAgo(network.checked_at, now)}</p>
      </div>
      {network.enabled && network.guardians.length === 0 && (
        <p className="card muted network__empty">The published set lists no guardians.</p>
      )}
      {network.enabled && network.guardians.length > 0 && network.older_sets.length === 0 && (
        <GuardianList guardians={network.guardians} label="Guardians" now={now} />
      )}
      {network.enabled && network.older_sets.length > 0 && (
        <>
          <section className="network__set" aria-labelledby="set-current-title">
            <h2 id="set-current-title" className="network__set-title">
              Set {network.set_version} (current)
            </h2>
            <p className="muted network__set-rule">
              New vaults commit to its key, and every older vault moves to it on its next action.
            </p>
            <GuardianList
              guardians={network.guardians}
              label={`Guardians of set ${network.set_version}`}
              now={now}
              nested
            />
          </section>
          {network.older_sets.map((set) => (
            <OlderSet key={set.set_version} set={set} now={now} />
          ))}
        </>
      )}
      {network.enabled && <RecentExclusions exclusions={network.recent_exclusions} now={now} />}
      {network.enabled && (network.history?.length ?? 0) > 0 && (
        <SetHistory history={network.history} now={now} />
      )}
      {network.validators && network.validators.length > 0 && (
        <ValidatorAgreement validators={network.validators} now={now} />
      )}
    </>
  );
}

/** A set a rotation replaced that still signs for what has not moved off its key. */
function OlderSet({ set, now }: { set: NetworkSetDto; now: number }) {
  const online = set.guardians.filter((g) => g.online).length;
  const title = `set-${set.set_version}-title`;
  return (
    <section className="network__set" aria-labelledby={title}>
      <h2 id={title} className="network__set-title">
        Set {set.set_version} (retiring)
      </h2>
      <div className="card network__summary">
        <p className="network__set-rule">
          {set.threshold} of its {set.size} guardians still approve the vaults that have not acted
          since the rotation, and the treasury until the operator moves it.
        </p>
        <dl className="network__facts">
          <div>
            <dt>Group key</dt>
            <dd>
              <GroupKey hex={set.group_key} label={`set ${set.set_version} group`} />
            </dd>
          </div>
          <div>
            <dt>Online</dt>
            <dd>
              {online} of {set.size} guardians
            </dd>
          </div>
        </dl>
      </div>
      {set.guardians.length > 0 && (
        <GuardianList
          guardians={set.guardians}
          label={`Guardians of set ${set.set_version}`}
          now={now}
          nested
          idPrefix={`v${set.set_version}-`}
        />
      )}
    </section>
  );
}

/** `nested`: under a set's heading, so each guardian's name is a level-3 heading. */
function GuardianList(props: {
  guardians: NetworkGuardianDto[];
  label: string;
  now: number;
  nested?: boolean;
  idPrefix?: string;
}) {
  return (
    <ul className="network__list" aria-label={props.label}>
      {props.guardians.map((g) => (
        <GuardianCard
          key={g.id}
          guardian={g}
          now={props.now}
          level={props.nested ? 3 : 2}
          id={`guardian-${props.idPrefix ?? ''}${g.id}`}
        />
      ))}
    </ul>
  );
}

function GroupKey({ hex, label }: { hex: string; label: string }) {
  const toasts = useToasts();
  return (
    <span className="network__key">
      <code title={hex}>{shortKey(hex)}</code>
      <button
        type="button"
        className="btn btn--small"
        aria-label={`Copy the ${label} key`}
        onClick={() => void toasts.copy(hex)}
      >
        <Copy size={14} aria-hidden="true" />
        Copy
      </button>
    </span>
  );
}

function GuardianCard(props: {
  guardian: NetworkGuardianDto;
  now: number;
  level: 2 | 3;
  id: string;
}) {
  const { guardian: g, now, id } = props;
  const Heading = props.level === 2 ? 'h2' : 'h3';
  // An offline guardian's last price, signature, version and uptime are not known right now.
  const unknown = 'Unknown while offline';
  const price = g.last_price
    ? `${formatUsdCents(g.last_price.cents)}, ${formatAgo(g.last_price.time, now)}`
    : g.online
      ? 'None yet'
      : unknown;
  const signature =
    g.last_signature_at !== null
      ? formatAgo(g.last_signature_at, now)
      : g.online
        ? 'None since start'
        : unknown;
  return (
    <li className="card guardian" aria-labelledby={id}>
      <div className="guardian__head">
        <Heading id={id} className="guardian__name">
          {g.name}
        </Heading>
        <span className={`guardian__state guardian__state--${g.online ? 'online' : 'offline'}`}>
          {g.online ? (
            <CircleCheck size={16} aria-hidden="true" />
          ) : (
            <CircleX size={16} aria-hidden="true" />
          )}
          {g.online ? 'Online' : g.stopped ? 'Stopped' : 'Offline'}
        </span>
      </div>
      {!g.online && g.stopped && <p className="guardian__stopped">{g.stopped}</p>}
      <dl className="guardian__facts">
        <div>
          <dt>Key fingerprint</dt>
          <dd>
            <code>{g.fingerprint}</code>
          </dd>
        </div>
        <div>
          <dt>Last price</dt>
          <dd>{price}</dd>
        </div>
        <div>
          <dt>Last signature</dt>
          <dd>{signature}</dd>
        </div>
        <div>
          <dt>Version</dt>
          <dd>{g.version ?? (g.online ? 'Not reported' : unknown)}</dd>
        </div>
        <div>
          <dt>Uptime</dt>
          <dd>
            {g.uptime_seconds !== null
              ? formatDuration(g.uptime_seconds)
              : g.online
                ? 'Not reported'
                : unknown}
          </dd>
        </div>
      </dl>
    </li>
  );
}
