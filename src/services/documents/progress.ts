/**
 * How far a processing document has got. Parsers call report() as often as they like (per page, per
 * batch); the row is written at most once per interval, plus at once on a change of stage, so a
 * 619-page PDF costs a few dozen UPDATEs, not 619. Writes are chained (never two in flight, never
 * out of order) and a failed write is only logged: progress must never fail an ingestion.
 */
import type { Db } from '../../../db/connect';
import type { IngestStage, ProgressUnit } from '../../../db/types';
import type { DocumentId } from '../../ids';
import type { Logger } from '../../logger';

export type ProgressUpdate = { stage: IngestStage; done?: number; total?: number; unit?: ProgressUnit };
export type ReportProgress = (update: ProgressUpdate) => void;

export const PROGRESS_INTERVAL_MS = 250;

export class ProgressReporter {
  private pending: ProgressUpdate | null = null;
  private lastStage: IngestStage | null = null;
  private lastWrite = 0;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  /** UPDATEs issued so far (tests and logs). */
  writes = 0;

  constructor(
    private readonly db: Db,
    private readonly documentId: DocumentId,
    private readonly logger: Logger,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
  ) {}

  readonly report: ReportProgress = (update) => {
    this.pending = update;
    const wait = this.intervalMs - (Date.now() - this.lastWrite);
    if (update.stage !== this.lastStage || wait <= 0) {
      this.writePending();
    } else if (!this.timer) {
      this.timer = setTimeout(() => this.writePending(), wait);
      this.timer.unref();
    }
  };

  /** Waits for the last write; called before the document settles so a late write cannot follow it. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending = null;
    await this.chain;
  }

  private writePending(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const update = this.pending;
    if (!update) return;
    this.pending = null;
    this.lastStage = update.stage;
    this.lastWrite = Date.now();
    this.writes++;
    this.chain = this.chain.then(async () => {
      try {
        await this.db
          .updateTable('documents')
          .set({
            stage: update.stage,
            progress_done: update.done ?? null,
            progress_total: update.total ?? null,
            progress_unit: update.total === undefined ? null : (update.unit ?? null),
          })
          .where('id', '=', this.documentId)
          .execute();
      } catch (err) {
        this.logger.warn({ err, documentId: this.documentId }, 'progress not recorded');
      }
    });
  }
}

/** The columns that clear progress when a document settles (ready or failed). */
export const NO_PROGRESS = { stage: null, progress_done: null, progress_total: null, progress_unit: null } as const;
