import { describe, expect, it } from 'vitest';
import { CHUNK_THREAD_FROM_CHARS, chunkParsed, chunkParsedOffThread } from '../../src/ingest/chunk-thread';
import type { ParsedDocument } from '../../src/ingest/types';
import { longestLoopGap } from '../helpers/loop-gap';

/** ~2.5 MB of distinct words in one section with no sentence end: the chunker's longest path. */
function runOnLine(words: number): ParsedDocument {
  return { title: 'Run-on', sections: [{ text: Array.from({ length: words }, (_, i) => `word${i.toString(36)}`).join(' '), headingPath: ['Notes'] }] };
}

describe('chunkParsedOffThread', () => {
  it('gives a big document the same chunks as chunking it here, and leaves this thread free meanwhile', async () => {
    const parsed = runOnLine(400_000);
    expect(parsed.sections[0]!.text.length).toBeGreaterThan(CHUNK_THREAD_FROM_CHARS);
    let here: unknown;
    const blockedHere = await longestLoopGap(async () => {
      await new Promise((r) => setTimeout(r, 20));
      here = chunkParsed(parsed);
    });
    const threaded = await chunkParsedOffThread(parsed);
    expect(threaded).toEqual(here);
    // Here the chunking holds the thread for all of its run; there, only the clone of the text and
    // of the chunks does. Measured against the same work on the same machine, not a clock figure.
    const blockedThere = await longestLoopGap(() => chunkParsedOffThread(parsed));
    expect(blockedThere).toBeLessThan(blockedHere / 2);
  });

  it('refuses a big wordless document there with the same code and message as here', async () => {
    const parsed: ParsedDocument = { sections: [{ text: '=-'.repeat(CHUNK_THREAD_FROM_CHARS), headingPath: [] }] };
    const here = (() => {
      try {
        chunkParsed(parsed);
      } catch (err) {
        return err;
      }
    })() as { code: string; message: string };
    expect(here.code).toBe('no_text');
    await expect(chunkParsedOffThread(parsed)).rejects.toMatchObject({ name: 'PermanentIngestError', code: 'no_text', message: here.message });
  });

  it('chunks a small document here', async () => {
    const parsed = runOnLine(1_000);
    expect(await chunkParsedOffThread(parsed)).toEqual(chunkParsed(parsed));
  });
});
