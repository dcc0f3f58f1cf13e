// ROAST's scheduler without I/O: a simulated network on a virtual clock, whose guardians answer,
// stall, lie or refuse, drives it as the coordinator does; the bound (n - t + 1 sessions) and the
// outcome are checked for fixed cases and for many random ones.
import { describe, expect, it } from 'vitest';
import { RoastScheduler, type Exclusion, type RoastAction } from './roast';

type Behaviour =
  | 'honest'
  | 'slow' // answers every call, 400 ms late
  | 'stall-propose' // never answers at all (SIGSTOP before the request)
  | 'stall-share' // approves with a commitment, then never gives a share
  | 'bad-share'
  | 'refuse'
  | 'unreachable';

interface Outcome {
  signed: number | null;
  failed: string | null;
  sessions: number;
  exclusions: Exclusion[];
  /** every (guardian, slot) a session used */
  used: string[];
  startedWith: number[][];
}

/** Runs one signing among `behaviours` (guardian i + 1 behaves as behaviours[i]). */
function simulate(
  t: number,
  behaviours: Behaviour[],
  opts: { latency?: (id: number) => number; waitForAll?: boolean; prefer?: number[] } = {},
): Outcome {
  const ids = behaviours.map((_, i) => i + 1);
  const of = (id: number) => behaviours[id - 1]!;
  const sched = new RoastScheduler<string>({
    ids,
    t,
    firstSlot: 1,
    ...(opts.waitForAll ? { waitForAll: true } : {}),
    ...(opts.prefer ? { prefer: opts.prefer } : {}),
  });
  const latency = (id: number) => (opts.latency?.(id) ?? 10) + (of(id) === 'slow' ? 400 : 0);
  const events: { at: number; run: () => void }[] = [];
  const at = (when: number, run: () => void) => events.push({ at: when, run });
  const out: Outcome = {
    signed: null,
    failed: null,
    sessions: 0,
    exclusions: [],
    used: [],
    startedWith: [],
  };
  const sessions = new Map<number, number[]>();
  let now = 0;
  const perform = (a: RoastAction<string>) => {
    if (a.kind === 'commit') {
      if (of(a.guardian) === 'stall-share') return;
      at(now + latency(a.guardian), () =>
        sched.committed(a.guardian, a.slot, `c${a.guardian}.${a.slot}`, now),
      );
    } else if (a.kind === 'start') {
      out.startedWith.push(a.members.map((m) => m.guardian));
      sessions.set(
        a.session,
        a.members.map((m) => m.guardian),
      );
      for (const m of a.members) {
        expect(m.commitment).toBe(`c${m.guardian}.${m.slot}`);
        out.used.push(`${m.guardian}.${m.slot}`);
        const b = of(m.guardian);
        if (b === 'stall-share') continue;
        at(now + latency(m.guardian), () => sched.shareIn(a.session, m.guardian, now));
      }
    } else if (a.kind === 'verify') {
      sched.verified(a.session, new Map(a.guardians.map((g) => [g, of(g) !== 'bad-share'])));
    } else if (a.kind === 'aggregate') {
      const members = sessions.get(a.session)!;
      if (members.every((g) => of(g) !== 'bad-share')) {
        sched.complete(a.session);
        out.signed = a.session;
      } else sched.verified(a.session, new Map(members.map((g) => [g, of(g) !== 'bad-share'])));
    } else if (a.kind === 'exclude') out.exclusions.push(a.exclusion);
    else out.failed = a.reason;
  };
  for (const id of ids) {
    const b = of(id);
    if (b === 'stall-propose') continue;
    at(latency(id), () => {
      if (b === 'refuse') sched.failed(id, 'refused', 'refuses every request');
      else if (b === 'unreachable') sched.failed(id, 'unreachable', 'unreachable (ECONNREFUSED)');
      else sched.approved(id, now, `c${id}.1`);
    });
  }
  for (let steps = 0; steps < 10_000; steps++) {
    for (;;) {
      const actions = sched.take(now);
      if (actions.length === 0) break;
      actions.forEach(perform);
    }
    if (out.signed !== null || out.failed !== null) break;
    const wake = sched.wakeAt();
    events.sort((x, y) => x.at - y.at);
    const next = events[0];
    if (!next && wake === null) break;
    if (next && (wake === null || next.at <= wake)) {
      events.shift();
      now = Math.max(now, next.at);
      next.run();
    } else now = Math.max(now, wake!);
  }
  for (const a of sched.take(now)) perform(a);
  out.sessions = sched.sessionsStarted;
  return out;
}

const causes = (o: Outcome) =>
  Object.fromEntries(o.exclusions.map((x) => [x.guardian, x.cause] as const));

describe('ROAST scheduler', () => {
  it('honest 3-of-5: one session with the first three to approve, nothing excluded', () => {
    const o = simulate(3, ['honest', 'honest', 'honest', 'honest', 'honest'], {
      latency: (id) => [30, 10, 20, 5, 40][id - 1]!,
    });
    expect(o).toMatchObject({ signed: 1, sessions: 1, exclusions: [] });
    expect(o.startedWith).toEqual([[2, 3, 4]]);
  });

  it('a member that stalls after committing: another session of t others starts, the stall is named', () => {
    const o = simulate(3, ['stall-share', 'honest', 'honest', 'honest', 'honest'], {
      prefer: [1],
    });
    expect(o.signed).toBe(2);
    expect(o.sessions).toBe(2);
    expect(o.startedWith[0]).toContain(1);
    expect(o.startedWith[1]).not.toContain(1);
    expect(causes(o)).toEqual({ 1: 'stalled' });
  });

  it('a bad share: its guardian is excluded and the next session signs', () => {
    const o = simulate(2, ['bad-share', 'honest', 'honest'], { prefer: [1], waitForAll: true });
    expect(o).toMatchObject({ signed: 2, sessions: 2 });
    expect(causes(o)).toEqual({ 1: 'bad-share' });
    expect(o.startedWith).toEqual([
      [1, 2],
      [2, 3],
    ]);
  });

  it('a refusal and an unreachable guardian are named; the other three sign at once', () => {
    const o = simulate(3, ['refuse', 'honest', 'unreachable', 'honest', 'honest']);
    expect(o).toMatchObject({ signed: 1, sessions: 1 });
    expect(causes(o)).toEqual({ 1: 'refused', 3: 'unreachable' });
  });

  it('fails, naming each, once fewer than t can answer', () => {
    const o = simulate(2, ['refuse', 'honest', 'unreachable']);
    expect(o.signed).toBeNull();
    expect(o.failed).toMatch(/fewer than 2 guardians are left/);
    expect(causes(o)).toEqual({ 1: 'refused', 3: 'unreachable' });
  });

  it('a slow member costs a session, never the request; a second session only when one stalls', () => {
    const o = simulate(3, ['slow', 'honest', 'honest', 'honest', 'honest'], { prefer: [1] });
    expect(o.signed).not.toBeNull();
    expect(o.sessions).toBeLessThanOrEqual(2);
  });

  it('7-of-10 with three adversaries (stall, bad share, slow) signs within n - t + 1 sessions', () => {
    const o = simulate(
      7,
      [
        'bad-share',
        'stall-share',
        'slow',
        'honest',
        'honest',
        'honest',
        'honest',
        'honest',
        'honest',
        'honest',
      ],
      { prefer: [1, 2, 3] },
    );
    expect(o.signed).not.toBeNull();
    expect(o.sessions).toBeLessThanOrEqual(4);
    expect(causes(o)).toMatchObject({ 1: 'bad-share', 2: 'stalled' });
  });

  it('random networks: always within n - t + 1 sessions, signed whenever t honest, no slot used twice', () => {
    const kinds: Behaviour[] = [
      'slow',
      'stall-propose',
      'stall-share',
      'bad-share',
      'refuse',
      'unreachable',
    ];
    let seed = 7;
    const rand = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let run = 0; run < 1_000; run++) {
      const n = 2 + Math.floor(rand() * 9);
      const t = 1 + Math.floor(rand() * n);
      const faulty = Math.floor(rand() * (n - t + 2)); // sometimes one too many
      const behaviours: Behaviour[] = Array.from({ length: n }, () => 'honest');
      const order = [...behaviours.keys()].sort(() => rand() - 0.5);
      for (const i of order.slice(0, faulty))
        behaviours[i] = kinds[Math.floor(rand() * kinds.length)]!;
      const lat = behaviours.map(() => 1 + Math.floor(rand() * 50));
      const prefer = order.slice(0, faulty).map((i) => i + 1);
      const o = simulate(t, behaviours, { latency: (id) => lat[id - 1]!, prefer });
      const label = `${t}-of-${n} ${behaviours.join(',')}`;
      expect(o.sessions, label).toBeLessThanOrEqual(n - t + 1);
      expect(new Set(o.used).size, label).toBe(o.used.length);
      // Each guardian's slots stay within the attempts a caller reserves (attemptsPerSigning).
      for (const u of o.used) expect(Number(u.split('.')[1]), label).toBeLessThanOrEqual(n - t + 2);
      // 'slow' answers, only late: it is as good as honest for the outcome.
      const answering = behaviours.filter((b) => b === 'honest' || b === 'slow').length;
      if (answering >= t) expect(o.signed, label).not.toBeNull();
      else expect(o.signed, label).toBeNull();
      const excludedTwice = o.exclusions.map((x) => x.guardian);
      expect(new Set(excludedTwice).size, label).toBe(excludedTwice.length);
      for (const x of o.exclusions) expect(behaviours[x.guardian - 1], label).not.toBe('honest');
    }
  });
});
