/**
 * Issue 44's key-guessing class (bench/abuse.ts): random keys of the right shape (`gw_` and 40
 * base62 characters, so every one reaches the throttle and, unthrottled, a database lookup) sent to
 * REST GET /api/kbs and tRPC kbs.list in turn, all from this machine's one address. Run through
 * runReadClass (bench/lib/worst-reads.ts), so it prints the same answers by status and the other
 * organisation's p95, whose real key keeps working from the same address.
 */
import { randomInt } from 'node:crypto';
import type { Orgs } from '../../test/helpers/abuse-run';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function guess(): string {
  return `gw_${Array.from({ length: 40 }, () => BASE62[randomInt(BASE62.length)]).join('')}`;
}

export function keyGuessing(orgs: Orgs) {
  const { url } = orgs.attacker;
  let sent = 0;
  return {
    name: 'key guessing: random keys on REST GET /api/kbs and tRPC kbs.list in turn',
    send: (signal: AbortSignal) => fetch(sent++ % 2 === 0 ? `${url}/api/kbs` : `${url}/trpc/kbs.list`, { headers: { 'x-api-key': guess() }, signal }),
  };
}
