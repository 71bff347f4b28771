/** SQuAD v1.1 dev from ../shared/data/squad: paragraphs as documents, questions with gold answers. */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const SQUAD_PATH = path.resolve(import.meta.dirname, '../../../shared/data/squad/dev-v1.1.json');

export type SquadParagraph = { index: number; title: string; context: string };
export type SquadQuestion = { index: number; paragraph: number; question: string; answers: string[] };

export function loadSquad(): { paragraphs: SquadParagraph[]; questions: SquadQuestion[] } {
  const raw = JSON.parse(readFileSync(SQUAD_PATH, 'utf8')) as {
    data: Array<{ title: string; paragraphs: Array<{ context: string; qas: Array<{ question: string; answers: Array<{ text: string }> }> }> }>;
  };
  const paragraphs: SquadParagraph[] = [];
  const questions: SquadQuestion[] = [];
  for (const article of raw.data) {
    for (const p of article.paragraphs) {
      const index = paragraphs.length;
      paragraphs.push({ index, title: article.title.replace(/_/g, ' '), context: p.context });
      for (const qa of p.qas) questions.push({ index: questions.length, paragraph: index, question: qa.question, answers: qa.answers.map((a) => a.text) });
    }
  }
  return { paragraphs, questions };
}

/** SQuAD's official answer normalisation: lower case, no punctuation, articles or extra spaces. */
export function normalizeAnswer(s: string): string {
  return s
    .toLowerCase()
    .replace(/[!-/:-@[-`{-~]/g, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export function containsAnswer(text: string, answers: string[]): boolean {
  const hay = ` ${normalizeAnswer(text)} `;
  return answers.some((a) => {
    const n = normalizeAnswer(a);
    return n.length > 0 && hay.includes(` ${n} `);
  });
}

/** A fixed, documented sample: every k-th question, so runs are comparable. */
export function everyKth<T>(items: T[], count: number): T[] {
  if (count >= items.length) return items;
  const step = items.length / count;
  return Array.from({ length: count }, (_, i) => items[Math.floor(i * step)]!);
}
