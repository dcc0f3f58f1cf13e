import { describe, expect, it } from 'vitest';
import type { GuardianSet } from '@unit/guardian-net';
import { networkExclusionSchema, RECENT_EXCLUSIONS_MAX } from '@unit/protocol/wire';
import { ExclusionLog } from './exclusion-log';

const set = {
  version: 3,
  members: [
    { id: 1, name: 'guardian-1' },
    { id: 2, name: 'guardian-2' },
  ],
} as unknown as GuardianSet;

describe('ExclusionLog', () => {
  it('lists the newest first, with the member’s name, the set, the cause and when', () => {
    const log = new ExclusionLog();
    log.record(set, { guardian: 1, cause: 'stalled', reason: 'no signature share in time' }, 5_000);
    log.record(set, { guardian: 2, cause: 'bad-share', reason: 'bad signature share' }, 9_999);
    expect(log.recent()).toEqual([
      {
        guardian_id: 2,
        name: 'guardian-2',
        set_version: 3,
        cause: 'bad-share',
        reason: 'bad signature share',
        at: 9,
      },
      {
        guardian_id: 1,
        name: 'guardian-1',
        set_version: 3,
        cause: 'stalled',
        reason: 'no signature share in time',
        at: 5,
      },
    ]);
  });

  it('keeps only the last RECENT_EXCLUSIONS_MAX, each within the wire’s limits', () => {
    const log = new ExclusionLog();
    for (let i = 0; i < 500; i++)
      log.record(set, { guardian: 1 + (i % 2), cause: 'refused', reason: `x${i}`.repeat(200) }, i);
    const recent = log.recent();
    expect(recent).toHaveLength(RECENT_EXCLUSIONS_MAX);
    expect(recent[0]!.reason.startsWith('x499')).toBe(true);
    for (const x of recent) expect(() => networkExclusionSchema.parse(x)).not.toThrow();
    // A copy: the caller cannot change the log.
    recent[0]!.reason = 'changed';
    expect(log.recent()[0]!.reason).not.toBe('changed');
  });
});
