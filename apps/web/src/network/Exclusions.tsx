// "Recent exclusions" on /network: the guardians the server's coordinator last left out of a
// signing, newest first (GET /api/network's `recent_exclusions`, at most 20, since the server
// started): who, why and when. A request went on without each of them; none of these cost it.
import type { NetworkExclusionDto } from '@unit/protocol/wire';
import { formatAgo } from './format';

const CAUSE_WORDS: Record<NetworkExclusionDto['cause'], string> = {
  stalled: 'Stalled',
  'bad-share': 'Bad signature share',
  refused: 'Refused',
  unreachable: 'Unreachable',
  'bad-commitment': 'Bad nonce commitment',
};

export function RecentExclusions(props: { exclusions: NetworkExclusionDto[]; now: number }) {
  const { exclusions, now } = props;
  return (
    <section className="card network__exclusions" aria-labelledby="exclusions-title">
      <h2 id="exclusions-title" className="network__set-title">
        Recent exclusions
      </h2>
      {exclusions.length === 0 ? (
        <p className="muted">
          No guardian has been left out of a signing since the server started.
        </p>
      ) : (
        <>
          <p className="muted">
            Guardians left out of one signing each: the request went on with the others.
          </p>
          <ul className="network__exclusion-list" aria-label="Recent exclusions">
            {exclusions.map((x, i) => (
              <li key={`${x.at}-${x.guardian_id}-${i}`} className="network__exclusion">
                <span className="network__exclusion-who">{x.name}</span>
                <span className="network__exclusion-cause">{CAUSE_WORDS[x.cause]}</span>
                <span className="muted network__exclusion-when">{formatAgo(x.at, now)}</span>
                <span className="muted network__exclusion-reason">{x.reason}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
