/**
 * The knowledge searches a voice session runs for the model, without sockets: a search still running
 * when the upstream reconnects belongs to the connection that is gone.
 */
import { describe, expect, it } from 'vitest';
import { ToolCalls } from '../../realtime/tool-calls';
import type { TurnSources } from '../../realtime/turn-tracker';
import type { UpstreamClientEvent } from '../../realtime/upstream';

function harness() {
  const sent: UpstreamClientEvent[] = [];
  let release!: (output: string) => void;
  const calls = new ToolCalls(() => new Promise<string>((resolve) => (release = resolve)), {
    toUpstream: (e) => sent.push(e),
    answer: () => sent.push({ type: 'response.create' } as UpstreamClientEvent),
    isEnded: () => false,
  });
  // The search starts on the session's queue, a tick after the call.
  return { calls, sent, release: async (output: string) => (await settle(), release(output)) };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
const sources = {} as TurnSources;

describe('voice tool calls', () => {
  it('sends the output and asks for the answer once the search and the response are done', async () => {
    const { calls, sent, release } = harness();
    calls.responseCreated('resp_1');
    calls.call('resp_1', 'call_1', 'search_knowledge_base', '{"query":"opening hours"}', sources);
    expect(calls.searching).toBe(true);
    calls.responseDone('resp_1', 'completed');
    await release('{"found":true}');
    await settle();
    expect(calls.searching).toBe(false);
    expect(calls.idle).toBe(true);
    expect(sent.map((e) => e.type)).toEqual(['conversation.item.create', 'response.create']);
  });

  it('forgets a search of a connection that is gone: the count stays at zero and nothing goes to the new one', async () => {
    const { calls, sent, release } = harness();
    calls.responseCreated('resp_1');
    calls.call('resp_1', 'call_1', 'search_knowledge_base', '{"query":"opening hours"}', sources);
    calls.reset();
    await release('{"found":true}');
    await settle();
    expect(calls.searching).toBe(false);
    expect(calls.idle).toBe(true);
    expect(sent).toEqual([]);
    // A search on the new connection is counted from zero.
    calls.responseCreated('resp_2');
    calls.call('resp_2', 'call_2', 'search_knowledge_base', '{"query":"prices"}', sources);
    expect(calls.searching).toBe(true);
  });
});
