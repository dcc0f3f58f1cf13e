// Tracker step 4 for a request whose inputs span two guardian sets (after a rotation: a borrow of a
// vault already moved to set v+1, whose treasury input is still set v's): one ApprovalBoard per set,
// each counting its own sessions' decisions, and the step shows the set whose quorum is furthest
// from done. With one set (every request before a rotation) it is exactly that set's board.
import type { GuardianSet, SignEvent } from '@unit/guardian-net';
import type { Approvals } from '@unit/protocol/wire';
import { ApprovalBoard } from './approvals';

export class SetBoards {
  private readonly boards = new Map<number, { set: GuardianSet; board: ApprovalBoard }>();

  /** `sessions`: the set of each signing session of the request. */
  constructor(sessions: readonly GuardianSet[]) {
    for (const set of new Set(sessions))
      this.boards.set(set.version, { set, board: new ApprovalBoard(set.members, set.t) });
  }

  record(set: GuardianSet, event: SignEvent): boolean {
    return this.boards.get(set.version)?.board.record(event) ?? false;
  }

  giveUp(reason: string): void {
    for (const { board } of this.boards.values()) board.giveUp(reason);
  }

  /** The set furthest from its quorum (the newest on a tie); its guardians and count. */
  snapshot(): Approvals {
    const all = [...this.boards.values()].map(({ board }) => board.snapshot());
    return all.reduce((worst, s) =>
      s.approved - s.needed <= worst.approved - worst.needed ? s : worst,
    );
  }

  /**
   * The message of each set short of its quorum ("2 of 3 guardians refused ..."), the set named
   * when two sign; a set that had its quorum is left out.
   */
  refusalMessage(): string {
    const entries = [...this.boards.values()];
    const refusing = entries.filter(({ board }) => {
      const { approved, needed } = board.snapshot();
      return approved < needed;
    });
    const shown = refusing.length > 0 ? refusing : entries;
    if (entries.length === 1) return shown[0]!.board.refusalMessage();
    return shown
      .map(({ set, board }) => `Guardian set ${set.version}: ${board.refusalMessage()}`)
      .join(' ');
  }
}
