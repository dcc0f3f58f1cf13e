// The one fan-out every coordinator call to the guardians uses: the first `need` good answers
// plus a grace, never a member that holds its call, and a clear error when too few answer.
import { describe, expect, it } from 'vitest';
import { atLeast, fanOut, FanOutShortError } from './fan-out';

const members = ['guardian-1', 'guardian-2', 'guardian-3'];

/** Answers after `ms`, or never (null): like a guardian frozen with its connection open. */
const after = <T>(ms: number | null, value: T, signal: AbortSignal) =>
  new Promise<T>((resolve, reject) => {
    if (ms === null) return signal.addEventListener('abort', () => reject(signal.reason));
    setTimeout(() => resolve(value), ms);
  });

describe('fanOut', () => {
  it('returns after t answers and the grace, with the member that never answers as a failure', async () => {
    const delays: (number | null)[] = [5, null, 10];
    const started = Date.now();
    const answers = await fanOut(
      members,
      (m, signal) => after(delays[members.indexOf(m)]!, m, signal),
      {
        need: 2,
        timeoutMs: 30_000,
        graceMs: 100,
      },
    );
    expect(answers).toEqual([
      { ok: true, value: 'guardian-1' },
      { ok: false, reason: 'no answer in time' },
      { ok: true, value: 'guardian-3' },
    ]);
    // Generous: the grace (100 ms) and a loaded machine, far from the 30 s time-out.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('waits for every member while fewer than t answered well, then returns once all did', async () => {
    let calls = 0;
    const answers = await fanOut(
      members,
      async (m) => {
        calls++;
        if (m === 'guardian-1') throw new Error('refused: no price');
        return m;
      },
      { need: 3, timeoutMs: 30_000, graceMs: 0 },
    );
    expect(calls).toBe(3);
    expect(answers.map((a) => a.ok)).toEqual([false, true, true]);
    expect(answers[0]).toEqual({ ok: false, reason: 'refused: no price' });
  });

  it('ends at the time-out even when a call ignores its signal, and aborts the calls still open', async () => {
    let aborted = false;
    const answers = await fanOut(
      members,
      (m, signal) => {
        signal.addEventListener('abort', () => (aborted = true));
        return m === 'guardian-1' ? Promise.resolve(m) : new Promise<string>(() => undefined);
      },
      { need: 2, timeoutMs: 200 },
    );
    expect(answers.map((a) => a.ok)).toEqual([true, false, false]);
    expect(aborted).toBe(true);
  });

  it('fails clearly when fewer than t answer, naming each member that did not', async () => {
    const answers = await fanOut(
      members,
      (m, signal) =>
        m === 'guardian-1'
          ? Promise.resolve(m)
          : m === 'guardian-2'
            ? Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }))
            : after(null, m, signal),
      { need: 2, timeoutMs: 300 },
    );
    const short = (() => {
      try {
        return atLeast(members, answers, 2, 'a price quorum', (m) => m);
      } catch (e) {
        return e;
      }
    })();
    expect(short).toBeInstanceOf(FanOutShortError);
    expect((short as Error).message).toBe(
      'a price quorum needs 2 of 3 guardians, 1 answered: guardian-2: unreachable (ECONNREFUSED); guardian-3: no answer in time',
    );
    expect(atLeast(members, answers, 1, 'a price', (m) => m)).toEqual(['guardian-1']);
  });
});
