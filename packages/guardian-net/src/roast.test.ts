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
  /** when each session started, and when the signature was made (virtual ms) */
  startedAt: number[];
  signedAt: number | null;
}

/** Runs one signing among `behaviours` (guardian i + 1 behaves as behaviours[i]). */
function simulate(
  t: number,
  behaviours: Behaviour[],
  opts: {
    latency?: (id: number) => number;
    waitForAll?: boolean;
    prefer?: number[];
    /** every guardian ready at once with a preprocessed commitment, deciding with its share */
    pooled?: boolean;
    patienceMs?: number;
  } = {},
): Outcome {
  const ids = behaviours.map((_, i) => i + 1);
  const of = (id: number) => behaviours[id - 1]!;
  const sched = new RoastScheduler<string>({
    ids,
    t,
    firstSlot: 1,
    ...(opts.waitForAll ? { waitForAll: true } : {}),
    ...(opts.prefer ? { prefer: opts.prefer } : {}),
    ...(opts.patienceMs !== undefined ? { patienceMs: opts.patienceMs } : {}),
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
    startedAt: [],
    signedAt: null,
  };
  const sessions = new Map<number, number[]>();
  let now = 0;
  const perform = (a: RoastAction<string>) => {
    if (a.kind === 'commit') {
      if (of(a.guardian) === 'stall-share') return;
      // From the pool: at once.
      at(opts.pooled ? now : now + latency(a.guardian), () =>
        sched.committed(a.guardian, a.slot, `c${a.guardian}.${a.slot}`, now),
      );
    } else if (a.kind === 'start') {
      out.startedWith.push(a.members.map((m) => m.guardian));
      out.startedAt.push(now);
      sessions.set(
        a.session,
        a.members.map((m) => m.guardian),
      );
      for (const m of a.members) {
        expect(m.commitment).toBe(`c${m.guardian}.${m.slot}`);
        out.used.push(`${m.guardian}.${m.slot}`);
        const b = of(m.guardian);
        if (b === 'stall-share' || b === 'stall-propose') continue;
        const answer =
          b === 'refuse'
            ? () => sched.failed(m.guardian, 'refused', 'refuses every request')
            : b === 'unreachable'
              ? () => sched.failed(m.guardian, 'unreachable', 'unreachable (ECONNREFUSED)')
              : () => sched.shareIn(a.session, m.guardian, now);
        at(now + latency(m.guardian), answer);
      }
    } else if (a.kind === 'verify') {
      sched.verified(a.session, new Map(a.guardians.map((g) => [g, of(g) !== 'bad-share'])));
    } else if (a.kind === 'aggregate') {
      const members = sessions.get(a.session)!;
      if (members.every((g) => of(g) !== 'bad-share')) {
        sched.complete(a.session);
        out.signed = a.session;
        out.signedAt = now;
      } else sched.verified(a.session, new Map(members.map((g) => [g, of(g) !== 'bad-share'])));
    } else if (a.kind === 'exclude') out.exclusions.push(a.exclusion);
    else out.failed = a.reason;
  };
  for (const id of ids) {
    const b = of(id);
    if (opts.pooled) {
      sched.approved(id, 0, `c${id}.1`);
      continue;
    }
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
      const pooled = run % 2 === 1;
      const o = simulate(t, behaviours, { latency: (id) => lat[id - 1]!, prefer, pooled });
      const label = `${t}-of-${n} ${behaviours.join(',')}${pooled ? ' pooled' : ''}`;
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
      for (const x of o.exclusions) {
        if (behaviours[x.guardian - 1] !== 'honest') continue;
        // An honest member is named only as stalled, and only when another session signed before
        // its share could come (it was slower than the whole session that replaced it).
        expect(x.cause, label).toBe('stalled');
        const last = o.startedWith.findLastIndex((members) => members.includes(x.guardian));
        expect(o.signedAt!, label).toBeLessThanOrEqual(o.startedAt[last]! + lat[x.guardian - 1]!);
      }
    }
  });
});

/**
 * The paper's rule: a new session as soon as t guardians are ready, once the open one cannot
 * complete on time. 7-of-10, every guardian ready at once from the pool, 100 ms a round trip, a
 * coordinator that learned its honest shares come within 50 ms of each other (share-spread.ts,
 * its least): an adversary costs those 50 ms past the first share and one more session's round trip, where
 * waiting out a whole round trip of patience signed at 300 ms.
 */
describe('ROAST scheduler: an adversary costs one more round trip, not a time-out', () => {
  const RTT = 100;
  const SPREAD = 50;
  const honest = (k: number): Behaviour[] => Array.from({ length: k }, () => 'honest');
  const run = (behaviours: Behaviour[], prefer: number[]) =>
    simulate(7, behaviours, { latency: () => RTT, prefer, pooled: true, patienceMs: SPREAD });
  /** the first share at RTT, the learned spread, then one session's round trip */
  const LATEST = RTT + SPREAD + RTT;

  it('one that withholds its share: the next session starts the learned spread after the first share', () => {
    const o = run(['stall-share', ...honest(9)], [1]);
    expect(o.startedWith[0]).toContain(1);
    expect(o.startedAt[1]).toBeLessThanOrEqual(RTT + SPREAD);
    expect(o.startedWith[1]).not.toContain(1);
    expect(o).toMatchObject({ signed: 2, sessions: 2 });
    expect(o.signedAt).toBeLessThanOrEqual(LATEST);
    expect(causes(o)).toEqual({ 1: 'stalled' });
  });

  it('one that answers late: signed without it, before its share comes, and named', () => {
    const o = run(['slow', ...honest(9)], [1]);
    expect(o.startedAt[1]).toBeLessThanOrEqual(RTT + SPREAD);
    expect(o.signed).toBe(2);
    expect(o.signedAt).toBeLessThanOrEqual(LATEST);
    expect(o.signedAt).toBeLessThan(RTT + 400);
    expect(causes(o)).toEqual({ 1: 'stalled' });
  });

  it('one that sends a bad share beside a late one: excluded for good, the next session at once', () => {
    const o = run(['bad-share', 'slow', ...honest(8)], [1, 2]);
    expect(o.startedWith[0]).toEqual(expect.arrayContaining([1, 2]));
    expect(o.startedAt[1]).toBeLessThanOrEqual(RTT + SPREAD);
    expect(o.startedWith[1]).not.toContain(1);
    expect(o.signedAt).toBeLessThanOrEqual(LATEST);
    expect(causes(o)).toEqual({ 1: 'bad-share', 2: 'stalled' });
  });

  it('three adversaries at once (silent, lying, late): one more session, within two round trips and the spread', () => {
    const o = run(['stall-share', 'bad-share', 'slow', ...honest(7)], [1, 2, 3]);
    expect(o).toMatchObject({ signed: 2, sessions: 2 });
    expect(o.signedAt).toBeLessThanOrEqual(LATEST);
    expect(causes(o)).toEqual({ 1: 'stalled', 2: 'bad-share', 3: 'stalled' });
  });

  it('a bad share alone: the failed signature names it and the next session starts at once', () => {
    const o = run(['bad-share', ...honest(9)], [1]);
    expect(o).toMatchObject({ signed: 2, sessions: 2 });
    expect(o.startedAt[1]).toBe(RTT);
    expect(causes(o)).toEqual({ 1: 'bad-share' });
  });

  it('honest members answering within the spread: one session, no second one started', () => {
    const o = simulate(7, honest(10), {
      latency: (id) => RTT + id * 2,
      pooled: true,
      patienceMs: SPREAD,
    });
    expect(o).toMatchObject({ signed: 1, sessions: 1, exclusions: [] });
  });

  it('before any spread is learned, the wait is the first share’s time (at least 75 ms)', () => {
    const short = simulate(3, honest(5), { latency: (id) => id * 12, pooled: true });
    expect(short).toMatchObject({ signed: 1, sessions: 1, exclusions: [] });
    const o = simulate(7, ['stall-share', ...honest(9)], { latency: () => RTT, prefer: [1], pooled: true }); // prettier-ignore
    expect(o.startedAt[1]).toBe(2 * RTT);
  });

  it('a spread learned larger than the first share’s time is capped by it', () => {
    const o = simulate(7, ['stall-share', ...honest(9)], {
      latency: () => RTT,
      prefer: [1],
      pooled: true,
      patienceMs: 10 * RTT,
    });
    expect(o.startedAt[1]).toBe(2 * RTT);
  });

  it('a guardian silent in a late session is chosen last, preferred or not, for the next ones', () => {
    // Guardian 1 answers in 170 ms (after its session went late), guardians 2 and 4 never.
    const o = simulate(3, ['honest', 'stall-share', 'honest', 'stall-share', 'honest', 'honest'], {
      latency: (id) => (id === 1 ? 170 : RTT),
      prefer: [1, 2],
      pooled: true,
      patienceMs: SPREAD,
    });
    expect(o.startedWith).toEqual([
      [1, 2, 3],
      [4, 5, 6],
      [3, 5, 6],
    ]);
    expect(o.signedAt).toBe(2 * (RTT + SPREAD) + RTT);
    expect(causes(o)).toEqual({ 2: 'stalled', 4: 'stalled' });
  });
});
