// Entry of the embedded database's worker thread (database-thread.ts). A worker thread does not
// inherit the parent's TypeScript loader (`node --import tsx`, or vitest's), so it registers tsx
// itself before loading the TypeScript entry named in workerData.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
