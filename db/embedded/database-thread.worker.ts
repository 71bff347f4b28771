/**
 * Runs in the embedded database's worker thread (see database-thread.ts): opens PGlite and its wire
 * server here, tells the owner the port, and closes both when asked. Log lines are sent to the
 * owner's logger.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { servePglite } from './open-embedded';
import type { FromThread, ThreadData, ThreadLogger, ToThread } from './database-thread';

const port = parentPort!;
const send = (message: FromThread) => port.postMessage(message);

const log =
  (level: keyof ThreadLogger) =>
  (obj: unknown, msg?: string): void => {
    try {
      send({ type: 'log', level, obj, msg });
    } catch {
      // Something in obj cannot be cloned (a socket, a function): keep the line, not the object.
      send({ type: 'log', level, obj: { detail: String(obj) }, msg });
    }
  };
const logger: ThreadLogger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };

try {
  const { pgdata, loadDataDir, newClusterTemplate } = workerData as ThreadData;
  const served = await servePglite(pgdata, logger, { loadDataDir: loadDataDir && new Blob([loadDataDir]), newClusterTemplate });
  port.on('message', (message: ToThread) => {
    if (message.type !== 'close') return;
    served.close().then(
      () => {
        send({ type: 'closed' });
        port.close(); // nothing is left to keep the thread alive: it exits
      },
      (err: unknown) => {
        logger.error({ err }, 'embedded database did not close cleanly');
        send({ type: 'closed' });
        port.close();
      },
    );
  });
  send({ type: 'ready', port: served.server.port });
} catch (err) {
  const e = err instanceof Error ? err : new Error(String(err));
  send({ type: 'failed', error: { name: e.name, message: e.message, stack: e.stack } });
  port.close();
}
