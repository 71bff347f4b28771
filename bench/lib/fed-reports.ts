/**
 * The federal-reports set (bench/sets/us-fed-reports: our own questions over the 19 agency reports
 * of ../shared/data/us-fed-reports, written before any results and never edited after): the files,
 * the single questions, and whether an answer states the gold fact.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export type FedQuestion = {
  id: string;
  question: string;
  answer: string;
  accept: string[];
  file: string | null;
  also_files?: string[];
  pages: number[];
  kind: 'fact' | 'figure' | 'table' | 'which-report' | 'unanswerable';
  answerable: boolean;
};

const SET = path.resolve(import.meta.dirname, '../sets/us-fed-reports');

export type FedTurn = Omit<FedQuestion, 'id' | 'kind'>;
export type FedConversation = { id: string; turns: FedTurn[] };

const readJsonl = <T>(file: string): T[] =>
  readFileSync(path.join(SET, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);

export function loadFedReports(dataDir: string): {
  files: Array<{ filename: string; bytes: Buffer }>;
  questions: FedQuestion[];
  conversations: FedConversation[];
} {
  const dir = path.join(dataDir, 'us-fed-reports');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.pdf'))
    .sort()
    .map((filename) => ({ filename, bytes: readFileSync(path.join(dir, filename)) }));
  return { files, questions: readJsonl<FedQuestion>('questions.jsonl'), conversations: readJsonl<FedConversation>('conversations.jsonl') };
}

/** Case, spaces, thousands separators and "percent"/"%" folded: "92 percent" states "92%". */
const fold = (s: string) => s.toLowerCase().replace(/\bpercent\b/g, '%').replace(/(\d),(?=\d{3}\b)/g, '$1').replace(/\s+/g, '');

/** Whether an answer holds one of the question's accept strings. */
export const statesGold = (answer: string, q: Pick<FedQuestion, 'accept'>) => q.accept.some((a) => fold(answer).includes(fold(a)));
