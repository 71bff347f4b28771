/**
 * Answering before the request body has been read (a 503 while the database is down, or while the
 * process drains) is fine on a kept-alive connection: Node reads and drops the rest. But when the
 * connection closes after the answer (`connection: close`, or the drain), unread bytes still
 * arriving make the kernel reset the socket, and the client often loses the answer with it (EPIPE,
 * "other side closed") instead of reading a clean 503. So such answers first read what is left of
 * the body, within a size and a time bound (beyond them, the answer goes out anyway).
 */
export async function discardRequestBody(request: Request, bounds: { maxBytes: number; maxMs: number }): Promise<void> {
  if (!request.body || request.bodyUsed || request.body.locked) return;
  const reader = request.body.getReader();
  const timer = setTimeout(() => void reader.cancel().catch(() => {}), bounds.maxMs);
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > bounds.maxBytes) break;
    }
  } catch {
    // A body that fails (too large, client gone) has nothing more to read.
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
}
