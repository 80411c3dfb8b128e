// Loaded into the platform process by the streaming benchmark (NODE_OPTIONS=--import <this file>,
// BENCH_PROBE_FILE=<path>): every 500 ms it appends one JSON line with the event loop's delay and
// the garbage collections since the previous line. It reads nothing of the platform and changes
// nothing; an observer and a histogram cost next to nothing.
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance, PerformanceObserver, constants } from 'node:perf_hooks';
import process from 'node:process';
import { setInterval } from 'node:timers';

const file = process.env.BENCH_PROBE_FILE;
if (file) {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const kinds = {
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  let gc = { count: 0, totalMs: 0, maxMs: 0, majorCount: 0, majorMs: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.count++;
      gc.totalMs += e.duration;
      gc.maxMs = Math.max(gc.maxMs, e.duration);
      if (kinds[e.detail?.kind] === 'major') {
        gc.majorCount++;
        gc.majorMs += e.duration;
      }
    }
  }).observe({ entryTypes: ['gc'] });
  const timer = setInterval(() => {
    const ms = (ns) => ns / 1e6;
    const line = {
      t: performance.timeOrigin + performance.now(),
      loopP50: ms(loop.percentile(50)), loopP99: ms(loop.percentile(99)), loopMax: ms(loop.max),
      gc, heapMb: process.memoryUsage().heapUsed / 1048576,
    };
    loop.reset();
    gc = { count: 0, totalMs: 0, maxMs: 0, majorCount: 0, majorMs: 0 };
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // the benchmark went away
    }
  }, 500);
  timer.unref();
}
