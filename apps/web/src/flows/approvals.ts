// Each guardian's decision on a request, as `vault.progress` step 4 carries it
// (@unit/protocol wire/guardian.ts approvalsSchema), read and put into words for the tracker.
// Zod-free: the guardian client that reads it is the browser's lazy chunk, which carries no zod.
import type { Approvals, GuardianDecision } from '@unit/protocol/wire';

type GuardianState = GuardianDecision['state'];

/** The tracker's words for the approvals: each state in text, never in colour only. */
export const APPROVALS_COPY = {
  list: 'Guardians',
  states: {
    approved: 'approved',
    refused: 'refused',
    pending: 'waiting',
    unreachable: 'unreachable',
    excluded: 'left out',
  } satisfies Record<GuardianState, string>,
  /** a guardian still pending when the request failed: it will not answer this one now */
  noAnswer: 'no answer',
  /** a guardian still pending when enough others approved: the request was signed without it */
  notNeeded: 'not needed',
  /** the one announcement of each phase (ApprovalsCount): said once, never stale in its phase */
  announce: {
    waiting: (a: Approvals) => `Waiting for ${a.needed} of ${a.total} guardians to approve.`,
    done: 'Enough guardians approved to sign.',
    short: 'Too few guardians approved to sign.',
  },
} as const;

const STATES = Object.keys(APPROVALS_COPY.states) as GuardianState[];

/** The approvals' limits, as the contract's schema sets them. */
const MAX_GUARDIANS = 255;
const MAX_NAME = 64;
const MAX_REASON = 300;

const isCount = (value: unknown, min: number): value is number =>
  Number.isInteger(value) && (value as number) >= min && (value as number) <= MAX_GUARDIANS;

function readDecision(value: unknown): GuardianDecision | null {
  if (!value || typeof value !== 'object') return null;
  const { id, name, state, reason } = value as Record<string, unknown>;
  if (!isCount(id, 1) || typeof name !== 'string' || name.length > MAX_NAME) return null;
  if (!STATES.includes(state as GuardianState)) return null;
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > MAX_REASON))
    return null;
  return {
    id,
    name,
    state: state as GuardianState,
    ...(reason ? { reason } : {}),
  };
}

/**
 * The approvals of a `vault.progress` notification about the request `nonce`, or null when it
 * carries none (the server signing alone), is about another request, or is not the contract's.
 */
export function readApprovals(body: unknown, nonce: string): Approvals | null {
  if (!body || typeof body !== 'object') return null;
  const { request, approvals } = body as { request?: unknown; approvals?: unknown };
  if (request !== nonce || !approvals || typeof approvals !== 'object') return null;
  const { approved, needed, total, guardians } = approvals as Record<string, unknown>;
  if (!isCount(approved, 0) || !isCount(needed, 1) || !isCount(total, 1)) return null;
  if (!Array.isArray(guardians) || guardians.length > MAX_GUARDIANS) return null;
  const decisions = guardians.map(readDecision);
  if (decisions.some((d) => d === null)) return null;
  return { approved, needed, total, guardians: decisions as GuardianDecision[] };
}

/** Enough guardians approved for the network to sign. */
export const approvalsDone = (approvals: Approvals) => approvals.approved >= approvals.needed;

/** "2 of 3 guardians approved". */
export const approvalsCount = ({ approved, total }: Approvals) =>
  `${approved} of ${total} guardian${total === 1 ? '' : 's'} approved`;

/** What the count means: enough to sign, or how many it takes (took, once the request is over). */
export const approvalsNeed = (approvals: Approvals, over = false) =>
  approvalsDone(approvals)
    ? 'enough to sign'
    : `${approvals.needed} ${over ? 'were needed' : 'needed'}`;

/**
 * A guardian's state as the list shows it: 'pending' only while the request runs. Once it is over,
 * a guardian that had not decided never will for this request: signed by the first t (`signed`),
 * it was simply not needed; failed at the first refusals, it gave no answer.
 */
export const shownState = (state: GuardianState, over: boolean, signed = false) =>
  over && state === 'pending' ? (signed ? 'not-needed' : 'no-answer') : state;

/** A guardian's state in words (SPEC §4's tracker reads in text, not colour). */
export const decisionWords = (state: GuardianState, over = false, signed = false) =>
  over && state === 'pending'
    ? signed
      ? APPROVALS_COPY.notNeeded
      : APPROVALS_COPY.noAnswer
    : APPROVALS_COPY.states[state];

/**
 * What a screen reader hears of the approvals: one sentence per phase (waiting, enough, too few),
 * not one per guardian. Each arriving decision changes the count on screen; the announcement
 * changes only when the phase does, so a flood of decisions is heard once.
 */
export function approvalsAnnouncement(approvals: Approvals | null, over: boolean): string {
  if (!approvals) return '';
  if (approvalsDone(approvals)) return APPROVALS_COPY.announce.done;
  return over ? APPROVALS_COPY.announce.short : APPROVALS_COPY.announce.waiting(approvals);
}
