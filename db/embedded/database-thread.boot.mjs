// Every worker thread of the process starts here (the embedded database's, the inline worker's, the
// PDF helper's), then imports the entry named in workerData. From source a thread does not inherit
// the parent's TypeScript loader (`node --import tsx`, or vitest's), so it registers tsx itself
// before a TypeScript entry; the bundle's entries (dist/app, src/app-bundle/launch.mjs) need none.
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
