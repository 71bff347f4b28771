/** The processing badge's words: "embedding 512/2,496 chunks", "ocr 1/4 pages", or just the stage. */
export type IngestProgress = { done: number; total: number; unit: string };

const count = new Intl.NumberFormat('en-US');

export function progressLabel(stage: string | null | undefined, progress: IngestProgress | null | undefined): string | null {
  if (!stage) return null;
  if (!progress || progress.total <= 0) return stage;
  return `${stage} ${count.format(Math.min(progress.done, progress.total))}/${count.format(progress.total)} ${progress.unit}`;
}
