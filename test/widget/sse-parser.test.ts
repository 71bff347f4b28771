/** The widget's SSE reader (it cannot use EventSource: the chat is a POST with a bearer token). */
import { describe, expect, it } from 'vitest';
import { readSse, SseParser } from '../../widget/src/sse';

describe('SseParser', () => {
  it('parses events, multi-line data, comments and every line ending, across arbitrary chunk splits', () => {
    const wire = ': keep-alive\n\nevent: session\ndata: {"a":1}\n\r\nevent: delta\r\ndata: line one\rdata: line two\r\n\r\ndata:no-space\n\n';
    const expected = [
      { event: 'session', data: '{"a":1}' },
      { event: 'delta', data: 'line one\nline two' },
      { event: 'message', data: 'no-space' },
    ];
    for (let size = 1; size <= wire.length; size++) {
      const parser = new SseParser();
      const out = [];
      for (let i = 0; i < wire.length; i += size) out.push(...parser.push(wire.slice(i, i + size)));
      expect(out, `chunk size ${size}`).toEqual(expected);
    }
  });

  it('drops an event that the stream ends before terminating', () => {
    const parser = new SseParser();
    expect(parser.push('event: done\ndata: {"answer":"x"}\n')).toEqual([]);
  });

  it('reads a fetch body, decoding UTF-8 split across chunks', async () => {
    const bytes = new TextEncoder().encode('event: delta\ndata: {"text":"Tromsø ✓"}\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const b of bytes) controller.enqueue(new Uint8Array([b]));
        controller.close();
      },
    });
    const events = [];
    for await (const e of readSse(body)) events.push(e);
    expect(events).toEqual([{ event: 'delta', data: '{"text":"Tromsø ✓"}' }]);
  });
});
