/**
 * pnpm bench [suite…]: runs the named benchmark suites in sequence, all of them without an argument.
 *
 *   api        REST facade vs GraphQL gateway vs subgraph, rate-limiter overhead, memory (./api.ts)
 *   asr        the reference engine's accuracy (WER), real-time factor and concurrent real-time streams (./asr.ts)
 *   streaming  the platform's own cost for streaming recognition: concurrent real-time sessions,
 *              end-of-utterance latency on the WebSocket and the GraphQL subscription, memory per session (./streaming.ts)
 *
 * BENCH_SECONDS (default 8) sets the length of one measurement; every suite scales with it.
 */
export {};

const SUITES: Record<string, () => Promise<void>> = {
  api: async () => (await import('./api')).runApiSuite(),
  asr: async () => (await import('./asr')).runAsrSuite(),
  streaming: async () => (await import('./streaming')).runStreamingSuite(),
};

const args = process.argv.slice(2).filter((a) => a !== '--');
const unknown = args.filter((a) => !(a in SUITES));
if (unknown.length > 0) {
  console.error(`unknown suite ${unknown.join(', ')}; suites: ${Object.keys(SUITES).join(', ')} (none = all)`);
  process.exit(2);
}
const selected = args.length > 0 ? Object.keys(SUITES).filter((s) => args.includes(s)) : Object.keys(SUITES);

const failed: string[] = [];
for (const name of selected) {
  const began = performance.now();
  console.log(`\n=== bench suite "${name}" ===`);
  try {
    await SUITES[name]!();
  } catch (e) {
    failed.push(name);
    console.error(`suite "${name}" failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }
  console.log(`=== suite "${name}" took ${((performance.now() - began) / 1000).toFixed(0)} s ===`);
}
if (failed.length > 0) {
  console.error(`\nfailed suites: ${failed.join(', ')}`);
  process.exit(1);
}
// open handles (gRPC channels, sockets in TIME_WAIT) must not keep the run alive
process.exit(0);
