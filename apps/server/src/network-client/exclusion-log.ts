// The guardians this server's coordinator left out of a signing (a stall, a bad share, a refusal,
// an unreachable guardian), the newest first, for GET /api/network's "Recent exclusions". Kept in
// memory and bounded: a restart starts it empty, and a flood of exclusions keeps only the last.
import type { Exclusion, GuardianSet } from '@unit/guardian-net';
import { RECENT_EXCLUSIONS_MAX, type NetworkExclusionDto } from '@unit/protocol/wire';

const REASON_MAX = 300;

export class ExclusionLog {
  private readonly entries: NetworkExclusionDto[] = [];

  constructor(private readonly max = RECENT_EXCLUSIONS_MAX) {}

  record(set: GuardianSet, exclusion: Exclusion, nowMs = Date.now()): void {
    const member = set.members.find((m) => m.id === exclusion.guardian);
    this.entries.unshift({
      guardian_id: exclusion.guardian,
      name: (member?.name ?? `guardian-${exclusion.guardian}`).slice(0, 100),
      set_version: set.version,
      cause: exclusion.cause,
      reason: exclusion.reason.slice(0, REASON_MAX),
      at: Math.floor(nowMs / 1000),
    });
    if (this.entries.length > this.max) this.entries.length = this.max;
  }

  /** The newest first, a copy. */
  recent(): NetworkExclusionDto[] {
    return this.entries.map((e) => ({ ...e }));
  }
}
