// One call to each guardian at once, for every fan-out of the coordinator (prices, oracle hashes,
// health, readiness): it waits for the first `need` good answers plus a short grace, never for a
// member that holds its connection, and every call has its own time-out. A guardian frozen
// mid-connection (SIGSTOP) then costs the grace, not the time-out.

/** How long the others get once `need` members answered well. */
export const DEFAULT_GRACE_MS = 500;

export type FanOutAnswer<T> = { ok: true; value: T } | { ok: false; reason: string };

export interface FanOutOptions {
  /** good answers after which the others get only `graceMs` more */
  need: number;
  /** each call's time-out; a call still open then is a failure "no answer in time" */
  timeoutMs: number;
  graceMs?: number;
  /** a failure's reason (default: time-out, unreachable with its socket code, or the message) */
  reasonOf?: (error: unknown) => string;
}

/** Why a call failed, in the words the coordinator's messages use. */
export function fanOutReason(error: unknown): string {
  const err = error as Error & { cause?: { code?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return 'no answer in time';
  if (err?.cause?.code) return `unreachable (${err.cause.code})`;
  return err instanceof Error ? err.message : String(error);
}

/**
 * Asks every member at once; `ask` gets a signal that aborts at the time-out or once the fan-out
 * is over. Resolves, in member order, once every member answered, or `need` answered well and
 * `graceMs` passed, or the time-out passed; a member not heard from by then is a failure.
 */
export function fanOut<M, T>(
  members: readonly M[],
  ask: (member: M, signal: AbortSignal) => Promise<T>,
  options: FanOutOptions,
): Promise<FanOutAnswer<T>[]> {
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const reasonOf = options.reasonOf ?? fanOutReason;
  const answers: (FanOutAnswer<T> | undefined)[] = members.map(() => undefined);
  const stop = new AbortController();
  const signal = AbortSignal.any([stop.signal, AbortSignal.timeout(options.timeoutMs)]);
  return new Promise((resolve) => {
    let good = 0;
    let settled = 0;
    let grace: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(grace);
      clearTimeout(deadline);
      stop.abort();
      resolve(answers.map((a) => a ?? { ok: false, reason: 'no answer in time' }));
    };
    // Whatever `ask` does with the signal, the fan-out is over at the time-out.
    const deadline = setTimeout(finish, options.timeoutMs);
    if (members.length === 0) return finish();
    members.forEach((m, i) => {
      Promise.resolve()
        .then(() => ask(m, signal))
        .then(
          (value): FanOutAnswer<T> => ({ ok: true, value }),
          (error: unknown): FanOutAnswer<T> => ({ ok: false, reason: reasonOf(error) }),
        )
        .then((answer) => {
          if (answers[i] !== undefined || stop.signal.aborted) return;
          answers[i] = answer;
          settled++;
          if (answer.ok) good++;
          if (settled === members.length) finish();
          else if (good >= options.need && grace === undefined) grace = setTimeout(finish, graceMs);
        });
    });
  });
}

/** Fewer members answered well than a fan-out needed; the message names each failure. */
export class FanOutShortError extends Error {}

/**
 * The good answers of a fan-out, in member order, or a FanOutShortError when fewer than `need`:
 * "<what> needs 2 of 3 guardians, 1 answered: guardian-2: no answer in time; ...".
 */
export function atLeast<M, T>(
  members: readonly M[],
  answers: readonly FanOutAnswer<T>[],
  need: number,
  what: string,
  nameOf: (member: M) => string,
): T[] {
  const good = answers.flatMap((a) => (a.ok ? [a.value] : []));
  if (good.length >= need) return good;
  const failed = answers.flatMap((a, i) => (a.ok ? [] : [`${nameOf(members[i]!)}: ${a.reason}`]));
  throw new FanOutShortError(
    `${what} needs ${need} of ${members.length} guardians, ${good.length} answered: ${failed.join('; ')}`,
  );
}
