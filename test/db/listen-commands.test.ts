import { describe, expect, it } from 'vitest';
import { parseListenCommands } from '../../db/embedded/listen-commands';

describe('parseListenCommands', () => {
  it.each([
    ['LISTEN foo', [{ kind: 'listen', channel: 'foo' }]],
    ['listen FooBar', [{ kind: 'listen', channel: 'foobar' }]],
    ['LISTEN "Jobs:Insert"', [{ kind: 'listen', channel: 'Jobs:Insert' }]],
    ['LISTEN "a""b"', [{ kind: 'listen', channel: 'a"b' }]],
    [' unlisten  "jobs:insert" ; UNLISTEN "worker:migrate";', [
      { kind: 'unlisten', channel: 'jobs:insert' },
      { kind: 'unlisten', channel: 'worker:migrate' },
    ]],
    ['UNLISTEN *', [{ kind: 'unlisten-all' }]],
    ['discard   ALL', [{ kind: 'unlisten-all' }]],
    ['/* c */ LISTEN x -- trailing\n; select 1', [{ kind: 'listen', channel: 'x' }]],
    ['begin; LISTEN x; commit', [{ kind: 'listen', channel: 'x' }]],
  ])('%j', (sql, expected) => {
    expect(parseListenCommands(sql)).toEqual(expected);
  });

  it.each([
    [`select 'LISTEN x'`],
    [`select 'it''s; LISTEN x'`],
    [`select E'\\'; LISTEN x'`],
    [`select $$; LISTEN x$$`],
    [`select $tag$ ; LISTEN x $tag$`],
    [`/* LISTEN x; */ select 1`],
    [`-- LISTEN x\nselect 1`],
    [`select pg_notify('listen', 'x')`],
    [`select * from listeners`],
    [`DISCARD PLANS`],
  ])('ignores %j', (sql) => {
    expect(parseListenCommands(sql)).toEqual([]);
  });
});
