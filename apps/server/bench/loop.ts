// How long the app holds its event loop, watched inside each bench child (children.ts). Two
// measures, both printed beside the goal of 10 ms:
// - perf_hooks' monitorEventLoopDelay at 1 ms resolution: how late a timer fired, by the clock.
//   On a machine shared with other work it also counts the time the process sat waiting for a
//   CPU, which no code of the app can shorten.
// - the main thread's own CPU time within each turn of a 2 ms timer, from the kernel's scheduler
//   statistics (/proc/self/task/<pid>/schedstat, in nanoseconds): the time the loop was held by
//   the app's work, garbage collection included, without the waits for a CPU.
import fs from 'node:fs';
import {
  PerformanceObserver,
  createHistogram,
  monitorEventLoopDelay,
  performance,
} from 'node:perf_hooks';

export interface LoopPauses {
  /** monitorEventLoopDelay's longest delay, by the clock (ms) */
  wallMs: number;
  /** monitorEventLoopDelay's 99th percentile (ms) */
  wallP99Ms: number;
  /** the longest the loop was held by this process's own work (main-thread CPU within one turn) */
  busyMs: number;
  /** the 99th percentile of those holds (ms) */
  busyP99Ms: number;
  /** how the main thread's CPU time was read: 'schedstat' (ns) or 'cpuUsage' (the whole process) */
  source: 'schedstat' | 'cpuUsage';
}

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

/** Main-thread CPU nanoseconds from the scheduler's statistics, or null where there are none. */
function schedstatNs(): number | null {
  try {
    return Number(fs.readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]);
  } catch {
    return null;
  }
}

/** The process's CPU nanoseconds (pool and GC threads included: an over-count of the loop's). */
function cpuUsageNs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
}

/** The timer whose turns are charged with the main thread's CPU time. */
const TURN_MS = 2;

/**
 * Starts watching; the answer reads the figures so far (and with `reset`, starts them again). BENCH_TRACE=1 names each hold over 10 ms
 * on stderr, with `label`, to find what held the loop.
 */
export function watchLoop(label: string): (reset?: boolean) => LoopPauses {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const source = schedstatNs() === null ? 'cpuUsage' : 'schedstat';
  const cpuNs = source === 'schedstat' ? () => schedstatNs()! : cpuUsageNs;
  const holds = createHistogram();
  let lastAt = performance.now();
  let lastCpu = cpuNs();
  setInterval(() => {
    const at = performance.now();
    const cpu = cpuNs();
    // A turn is charged at most its own length (the whole-process count can exceed it).
    const busy = Math.min(at - lastAt, (cpu - lastCpu) / 1e6);
    holds.record(Math.max(1, Math.round(busy * 1000)));
    if (process.env.BENCH_TRACE && busy > 10) {
      console.error(
        `held ${busy.toFixed(1)} ms (clock ${(at - lastAt).toFixed(1)} ms) ${label} at ` +
          new Date().toISOString().slice(11, 23),
      );
    }
    lastAt = at;
    lastCpu = cpu;
  }, TURN_MS).unref();
  // With BENCH_TRACE, garbage collections over 10 ms too: a hold that is one of them is V8's.
  if (process.env.BENCH_TRACE)
    new PerformanceObserver((list) => {
      for (const gc of list.getEntries())
        if (gc.duration > 10)
          console.error(
            `gc ${gc.duration.toFixed(1)} ms ${label} (kind ${(gc as { detail?: { kind?: number } }).detail?.kind})`,
          );
    }).observe({ entryTypes: ['gc'] });
  return (reset = false) => {
    const pauses: LoopPauses = {
      wallMs: delay.max / 1e6,
      wallP99Ms: delay.percentile(99) / 1e6,
      busyMs: holds.max / 1000,
      busyP99Ms: holds.percentile(99) / 1000,
      source,
    };
    if (reset) {
      delay.reset();
      holds.reset();
    }
    return pauses;
  };
}
