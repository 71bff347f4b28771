/**
 * What a previous answer named in reply to its question: "Who publishes the harbour atlas?" ->
 * "...is published by Tallow & Reed of Ghent." names Tallow & Reed, not the atlas (the question's
 * own subject) nor Brittany (a detail on the way). A later "that publisher" or "it" can only be
 * resolved through the answer, so the condenser asks this module which mention of the answer is
 * the reply.
 *
 * Rule, without any list of names: among the answer's proper-noun mentions that the question did
 * not already name, prefer the one the answer introduces as an agent or a value ("by X", "is X",
 * after a word that shares a stem with the question's, as "published" with "publishes"), then one
 * that looks like an organisation, then the first.
 */
import { STOPWORDS, tokenize } from '../../text/tokens';

export interface ReferentCandidate {
  core: string;
  start: number;
}

const INTRODUCERS = new Set(['by', 'is', 'was', 'are', 'were', 'called', 'named', 'from']);

export function pickAnswerReferent<M extends ReferentCandidate>(
  answer: string,
  question: string | undefined,
  mentions: M[],
  looksLikeOrganisation: (m: M) => boolean,
): M | undefined {
  const questionStems = new Set(tokenize(question ?? '').filter((t) => !t.stop).map((t) => t.stem));
  const questionWords = new Set(tokenize(question ?? '').map((t) => t.lower));
  // A mention the question itself named ("the harbour atlas") is what was asked about, not the reply.
  const fresh = mentions.filter((m) => !tokenize(m.core).every((t) => questionWords.has(t.lower)));
  if (fresh.length === 0) return undefined;
  const tokens = tokenize(answer);
  const score = (m: M): number => {
    const before = tokens.filter((t) => t.end <= m.start).slice(-3);
    let s = 0;
    const prev = before.at(-1);
    if (prev && INTRODUCERS.has(prev.lower)) s += 2;
    if (before.some((t) => !t.stop && !STOPWORDS.has(t.lower) && questionStems.has(t.stem))) s += 2;
    if (looksLikeOrganisation(m)) s += 1;
    return s;
  };
  let best = fresh[0]!;
  let bestScore = score(best);
  for (const m of fresh.slice(1)) {
    const s = score(m);
    if (s > bestScore) {
      best = m;
      bestScore = s;
    }
  }
  return withoutPlace(best);
}

/**
 * "Tallow & Reed of Ghent": a name that is complete before "of" (two names joined by "&", or ending
 * in a legal form) is followed by where it is, which a search query for it should not require.
 */
function withoutPlace<M extends ReferentCandidate>(m: M): M {
  const at = m.core.indexOf(' of ');
  if (at < 0) return m;
  const head = m.core.slice(0, at);
  if (!/ & |\b(?:Inc|Ltd|LLC|GmbH|plc|SA|AG|Co)\.?$/.test(head)) return m;
  const text = (m as { text?: string }).text;
  return { ...m, core: head, ...(text !== undefined ? { text: text.slice(0, text.length - (m.core.length - head.length)) } : {}) };
}
