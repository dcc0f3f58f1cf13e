// "History" on /network: every published guardian set, newest first (GET /api/network's
// `history`): what each changed from the set it replaced (a new key, members changed or a lost
// share rebuilt under the same key, or every share refreshed), who joined and left, its members,
// and when the server received it.
import type { NetworkHistoryEntryDto } from '@unit/protocol/wire';
import { formatAgo, shortKey } from './format';

const CHANGE_WORDS: Record<NetworkHistoryEntryDto['change'], string> = {
  created: 'Created by the first key generation',
  rotation: 'Rotation: a new group key',
  reshare: 'Members changed, same group key',
  repair: 'A lost share rebuilt, same group key',
  refresh: 'Every share refreshed, same group key',
};

function changeLine(h: NetworkHistoryEntryDto): string {
  const parts = [
    h.joined.length > 0 ? `Joined: ${h.joined.join(', ')}.` : '',
    h.left.length > 0 ? `Left: ${h.left.join(', ')}.` : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' ') : 'The same members.';
}

export function SetHistory(props: { history: NetworkHistoryEntryDto[]; now: number }) {
  const { history, now } = props;
  return (
    <section className="card network__history" aria-labelledby="history-title">
      <h2 id="history-title" className="network__set-title">
        History
      </h2>
      <ol className="network__history-list" aria-label="Guardian set history">
        {history.map((h) => (
          <li
            key={h.set_version}
            className="network__history-entry"
            aria-label={`Set ${h.set_version}`}
          >
            <p className="network__history-head">
              <strong>Set {h.set_version}</strong>{' '}
              <span>
                {CHANGE_WORDS[h.change]}
                {h.replaces !== null ? `, replacing set ${h.replaces}` : ''}.
              </span>{' '}
              <span className="muted">
                {h.published_at !== null
                  ? `Published ${formatAgo(h.published_at, now)}`
                  : 'Publication time unknown'}
                {h.signing ? '' : ' · no longer signs'}
              </span>
            </p>
            {h.replaces !== null && <p className="muted">{changeLine(h)}</p>}
            <p className="muted">
              {h.threshold} of {h.size}:{' '}
              {h.members.map((m) => `${m.name} (${m.fingerprint})`).join(', ')}. Group key{' '}
              <code title={h.group_key}>{shortKey(h.group_key)}</code>.
            </p>
          </li>
        ))}
      </ol>
    </section>
  );
}
