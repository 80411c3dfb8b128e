import { runLoad } from './load';
const [origin, path, key, secs] = process.argv.slice(2);
const r = await runLoad(String(origin), { name: 'x', method: 'GET', path: String(path), headers: { 'x-api-key': String(key) } }, 16, Number(secs ?? 8));
console.log(Math.round(r.rps), 'rps p50', r.p50ms.toFixed(2), 'errors', r.errors);
