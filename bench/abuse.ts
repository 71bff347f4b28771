/**
 * `npm run bench -- abuse [perEndpoint] [seconds]`: first issue 26's attack, every class at once
 * against a second organisation doing normal work (test/helpers/hostile-run.ts; `abuse hostile`
 * runs it and the classes below, without the longer run); then the longer run of the abuse suite
 * (test/e2e/abuse.test.ts runs the same with fewer requests). Starts `npm start` on a fresh embedded
 * database, sends `perEndpoint` generated hostile requests (default 20) to every endpoint the
 * service lists (REST, GraphQL, tRPC) with slowloris clients alongside, then floods from one organisation for `seconds`
 * (default 60), and prints: answers by status, problems (5xx, non-JSON errors), peak RSS, and the
 * other organisation's p50/p95 for GET /api/kbs and a search during each phase.
 *
 * Every run ends with issue 44's worst-case reads (bench/lib/worst-reads.ts); `abuse reads [seconds]`
 * runs only those. The attacker's new KB has ABUSE_READ_DOCS documents (default 50) of
 * ABUSE_READ_CHUNKS chunks each (default 400); for each class (the nested GraphQL read
 * `knowledgeBase { documents { chunks(first: 199) { nodes { id text headingPath duplicates } } } }`
 * and a tRPC batch of 20 `documents.chunks` with limit 200) four attackers send it back to back
 * for `seconds` (default 30; after a 429 an attacker waits its retry-after, at most 1 s) while the
 * other organisation calls GET /api/kbs; prints the attackers' answers by status and error code and
 * the victim's p50/p95 idle, during and in the 10 s after (target: p95 under 250 ms during).
 * Then the session-flood class (bench/lib/session-flood.ts): with an API conversation and a rated
 * widget conversation in place, ABUSE_FLOOD_CHATS (default 10,000) anonymous widget chats without a
 * session id, 8 at a time; prints the same victim p95, whether both conversations still read back
 * (200), how many anonymous conversations the KB keeps and the 5xx count. `abuse sessions [chats]`
 * runs only that class (10,000 chats take minutes, not seconds, on a loaded 2-core machine). The
 * server's widget rate limits are raised for it (otherwise one address gets 60 requests a minute and
 * the flood would take hours); the session bounds keep their defaults.
 * Then the key-guessing class (bench/lib/key-guessing.ts): four attackers sending random keys to
 * REST and tRPC from the victim's own address, measured the same way.
 * With ABUSE_DB=postgres (`reads` only) the server runs on a throwaway PostgreSQL cluster
 * (or a new database on TEST_DATABASE_URL), its worker inline.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { abuseRun, floodRun, NEIGHBOUR_P95_MS, RSS_BOUND_MB, setUpOrgs } from '../test/helpers/abuse-run';
import { percentile } from '../test/helpers/abuse';
import { hostileRun, seedAttacker } from '../test/helpers/hostile-run';
import pg from 'pg';
import { startGuardedCluster } from '../test/infra/run-cleanup';
import { startServer } from '../test/helpers/server-process';
import { loadConfig } from '../src/config';
import { keyGuessing } from './lib/key-guessing';
import { runSessionFlood, type SessionFlood } from './lib/session-flood';
import { runReadClass, seedManyChunks, worstReads, type ReadClass } from './lib/worst-reads';

const hostileOnly = process.argv[2] === 'hostile';
const readsOnly = process.argv[2] === 'reads';
const sessionsOnly = process.argv[2] === 'sessions';
const perEndpoint = Number(hostileOnly || readsOnly || sessionsOnly ? 0 : (process.argv[2] ?? 20));
const seconds = Number(process.argv[3] ?? 60);
const readSeconds = Number((readsOnly ? process.argv[3] : undefined) ?? 30);
const readDocs = Number(process.env.ABUSE_READ_DOCS ?? 50);
const readChunks = Number(process.env.ABUSE_READ_CHUNKS ?? 400);
const floodChats = Number((sessionsOnly ? process.argv[3] : undefined) ?? process.env.ABUSE_FLOOD_CHATS ?? 10_000);
/** Issue 44's target for the other organisation's p95 while four worst-case reads run. */
const READ_VICTIM_P95_MS = 250;
const seed = Number(process.env.ABUSE_SEED ?? 42);
const onPostgres = process.env.ABUSE_DB === 'postgres';
if (onPostgres && !readsOnly) throw new Error('ABUSE_DB=postgres runs only with `abuse reads`');
const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-bench-abuse-'));
const cluster = onPostgres && !process.env.TEST_DATABASE_URL ? await startGuardedCluster() : null;
const databaseUrl = onPostgres ? await newDatabase(process.env.TEST_DATABASE_URL ?? cluster!.url) : '';
// The slowloris phase wants a short headers timeout; alone, the hostile phase runs with the default
// (3 s made a loaded server answer ordinary requests 408).
// The session flood is one address reusing a few widget tokens: the per-address and per-session
// widget limits (60 and 10 a minute) would stop it long before any bound on sessions is reached.
const serverEnv: Record<string, string> = {
  DATA_DIR: dataDir,
  DATABASE_URL: databaseUrl,
  CRAWL_ALLOW_PRIVATE: 'true',
  ...(onPostgres ? { WORKER_INLINE: 'true' } : {}),
  ...(hostileOnly || readsOnly || sessionsOnly ? {} : { HTTP_HEADERS_TIMEOUT_MS: '3000' }),
  ...(readsOnly ? {} : { WIDGET_RATE_LIMIT_PER_MINUTE: '1000000', WIDGET_SESSION_RATE_LIMIT_PER_MINUTE: '1000000' }),
};
const server = await startServer(serverEnv);
const ms = (v: number) => `${Math.round(v)} ms`;
try {
  const orgs = await setUpOrgs(server, dataDir, databaseUrl);
  console.log(`database: ${onPostgres ? 'PostgreSQL' : 'embedded'}`);
  if (sessionsOnly) printClass(await sessionFlood(orgs));
  else {
    if (!readsOnly) await hostilePhases(orgs);
    const seeded = await seedManyChunks(orgs, { docs: readDocs, chunksPerDoc: readChunks, timeoutMs: 3_600_000 });
    console.log(`worst-case reads: a KB of ${seeded.docIds.length} documents × ${readChunks} sections, ${seeded.chunks.toLocaleString('en')} chunks (ingested in ${seeded.seconds.toFixed(0)} s); 4 attackers for ${readSeconds} s per class`);
    for (const cls of worstReads(orgs, seeded)) printClass(await runReadClass(orgs, cls, { attackers: 4, seconds: readSeconds, idleSeconds: 10, afterSeconds: 10 }));
    if (!readsOnly) printClass(await sessionFlood(orgs));
    // Key guessing last: its address stays throttled for the window, which the classes before must not
    // meet (the widget checks the address before the token, so the session flood would be refused too).
    printClass(await runReadClass(orgs, keyGuessing(orgs), { attackers: 4, seconds: readSeconds, idleSeconds: 10, afterSeconds: 10 }));
  }
  console.log(`  server still running: ${server.child.exitCode === null}`);
} finally {
  await server.stop();
  cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

function sessionFlood(orgs: Awaited<ReturnType<typeof setUpOrgs>>) {
  const { widget } = loadConfig({ ...process.env, ...serverEnv });
  return runSessionFlood(orgs, {
    chats: floodChats,
    concurrency: 8,
    idleSeconds: 10,
    afterSeconds: 10,
    bounds: { perVisitor: widget.anonymousSessionsPerVisitor, perKb: widget.anonymousSessionsPerKb },
  });
}

function printClass(r: ReadClass | SessionFlood) {
  const v = r.victim;
  const phase = (p: typeof v.idle) => `p50 ${ms(p.p50)} p95 ${ms(p.p95)} (${p.n} requests${p.failures.length ? `, ${p.failures.length} failures: ${[...new Set(p.failures)].slice(0, 2).join('; ')}` : ''})`;
  console.log(`  ${r.name}`);
  console.log(`    attackers: ${JSON.stringify(r.attackers.answers)}; ${r.attackers.abortedAtEnd} still running at the end (aborted); answer p50 ${ms(r.attackers.p50Ms)}, max ${ms(r.attackers.maxMs)}, mean ${(r.attackers.meanBytes / 1024).toFixed(1)} KB`);
  for (const [label, message] of Object.entries(r.attackers.messages)) console.log(`      ${label}: ${message}`);
  if ('survivors' in r) {
    const bound = Math.min(r.bounds.perVisitor, r.bounds.perKb);
    console.log(`    ${r.chats.toLocaleString('en')} chats in ${r.seconds.toFixed(1)} s (${(r.chats / r.seconds).toFixed(1)}/s) on ${r.tokens} widget tokens; ${r.sessionsCreated.toLocaleString('en')} conversations created`);
    for (const s of r.survivors) console.log(`    ${s.status === 200 ? 'ok ' : 'BAD'} ${s.name} after the flood: GET ${s.status} (${s.detail})`);
    // The flood comes from one address, so the per-visitor bound applies; the rated conversation is kept beyond it.
    console.log(`    anonymous conversations the KB keeps afterwards: ${r.anonymousAfter} (bound: ${bound} per visitor / ${r.bounds.perKb.toLocaleString('en')} per KB, plus rated ones: ${r.anonymousAfter <= bound + 1 ? 'held' : 'NOT held'})`);
    console.log(`    5xx answers: ${r.fiveXx} (target 0)`);
  }
  console.log(`    victim GET /api/kbs idle ${phase(v.idle)}`);
  console.log(`    victim GET /api/kbs during ${phase(v.during)} (target p95 < ${READ_VICTIM_P95_MS} ms: ${v.during.p95 < READ_VICTIM_P95_MS ? 'met' : 'NOT met'})`);
  console.log(`    victim GET /api/kbs 10 s after ${phase(v.after)}`);
}

async function newDatabase(adminUrl: string): Promise<string> {
  const name = `gw_bench_abuse_${process.pid}_${Date.now()}`;
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  await c.query(`create database ${name}`);
  await c.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

async function hostilePhases(orgs: Awaited<ReturnType<typeof setUpOrgs>>) {
  await seedAttacker(orgs);
  const h = await hostileRun(server, orgs, dataDir, { afterSeconds: 60 });
  const mark = (ok: boolean) => (ok ? 'ok ' : 'BAD');
  console.log(`hostile: every class of issue 26 at once from one organisation, answered in ${h.attackSeconds.toFixed(1)} s (target: JSON 4xx/202 within 5 s, no 5xx)`);
  for (const r of h.hostile) console.log(`  ${mark(r.ok)} ${String(r.status).padEnd(3)} ${ms(r.ms).padStart(8)}  ${r.name}: JSON ${r.json}`);
  console.log(`  victim GET /api/kbs p95 ${ms(h.victim.kbsP95)}, search p95 ${ms(h.victim.searchP95)} (target < 1,000 ms; ${h.victim.requests} requests, ${h.victim.failures.length} failures${h.victim.failures.length ? `: ${h.victim.failures.slice(0, 3).join('; ')}` : ''})`);
  console.log(`  victim 2-chunk Markdown upload → ready: ${h.victim.smallFile.ready ? ms(h.victim.smallFile.ms) : `not ready after ${ms(h.victim.smallFile.ms)}`} (target < 10,000 ms)`);
  console.log(`  server peak RSS ${Math.round(h.peakRssMb)} MB (target < 1,500 MB); RSS 60 s after the attack ${Math.round(h.rssAfterMb)} MB (target < 800 MB); server alive: ${h.alive}`);
  if (!hostileOnly) {
    const abuse = await abuseRun(server, orgs, { perEndpoint, concurrency: 6, seed });
    const kinds = (t: string) => abuse.endpoints.filter((e) => e.transport === t).length;
    console.log(`abuse: ${abuse.requests} generated requests (${perEndpoint} to each of ${abuse.endpoints.length} endpoints: REST ${kinds('rest')}, GraphQL ${kinds('graphql')}, tRPC ${kinds('trpc')}) in ${abuse.seconds.toFixed(1)} s (seed ${seed})`);
    if (abuse.unreached.length) console.log(`  endpoints never reached: ${abuse.unreached.join(', ')}`);
    console.log(`  answers by status: ${JSON.stringify(abuse.byStatus)}`);
    console.log(`  problems (5xx / non-JSON errors): ${abuse.problems.length}`);
    for (const p of abuse.problems.slice(0, 20)) console.log(`    ${p}`);
    console.log(`  slowloris clients cut off: ${abuse.slowloris.filter((a) => /^HTTP\/1\.1 408/.test(a)).length}/${abuse.slowloris.length}`);
    console.log(`  peak RSS: ${Math.round(abuse.peakRssMb)} MB (bound ${RSS_BOUND_MB} MB)`);
    console.log(`  other org GET /api/kbs p50 ${ms(percentile(abuse.neighbour.kbs, 50))} p95 ${ms(abuse.neighbourP95.kbs)}; search p50 ${ms(percentile(abuse.neighbour.search, 50))} p95 ${ms(abuse.neighbourP95.search)} (bound ${NEIGHBOUR_P95_MS} ms)`);
    const flood = await floodRun(server, orgs, { seconds, concurrency: 8 });
    console.log(`flood: ${seconds} s from one org, ${flood.attackerStatuses.length} requests, by status ${JSON.stringify(flood.byStatus)}`);
    console.log(`  peak RSS: ${Math.round(flood.peakRssMb)} MB`);
    console.log(`  other org GET /api/kbs p50 ${ms(percentile(flood.neighbour.kbs, 50))} p95 ${ms(flood.neighbourP95.kbs)}; search p50 ${ms(percentile(flood.neighbour.search, 50))} p95 ${ms(flood.neighbourP95.search)}; failures ${flood.neighbour.failures.length}${flood.neighbour.failures.length ? `: ${[...new Set(flood.neighbour.failures)].slice(0, 3).join('; ')}` : ''}`);
    console.log(`  server still running: ${server.child.exitCode === null}`);
  }
}
