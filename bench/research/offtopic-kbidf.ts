/**
 * KB-rarity-weighted coverage for the offline refusal gate, over a reports dump: each question word
 * weighs by its IDF in the whole KB (from the dumped lexicon), not in the five passages.
 *   node --import tsx bench/research/offtopic-kbidf.ts FILE
 */
import { answerFromPassages } from '../../src/ai/offline/answerer';
import { passageSupport, MIN_SUPPORT } from '../../src/ai/offline/support';
import { splitSentences, tokenize } from '../../src/ai/offline/text';
import { containsAnswer } from '../lib/squad';
import { cosine, readReportsDump } from '../lib/reports-dump';
import { createLocalEmbeddingProvider } from '../../src/ai/embeddings';

const embedder = createLocalEmbeddingProvider();
const rows = readReportsDump(process.argv[2]!);
// Postgres' Snowball lexeme of a word, approximated from the question's own lexemes: a prefix (y -> i).
const lexemeOf = (word: string, lexemes: string[]) =>
  lexemes
    .filter((l) => word.startsWith(l) || (l.endsWith('i') && word.startsWith(`${l.slice(0, -1)}y`)))
    .sort((a, b) => b.length - a.length)[0];
const out: Array<Record<string, unknown>> = [];
for (const r of rows) {
  if (!r.confident || r.passages.length === 0) continue;
  const sup = passageSupport(r.question, r.passages.map((p, i) => ({ ...p, dense: r.scores[i]!.dense })));
  const best = Math.max(...sup);
  const a = answerFromPassages(r.question, r.passages);
  const n = r.lexicon.chunks;
  const idf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
  const dfOf = new Map(r.lexicon.terms.map((t) => [t.lexeme, t.df]));
  const lexemes = [...dfOf.keys()];
  const q = new Map<string, number>();
  for (const t of tokenize(r.question)) {
    if (t.stop) continue;
    const lx = lexemeOf(t.lower, lexemes);
    if (lx === undefined) continue; // a Postgres stopword
    q.set(t.stem, Math.max(q.get(t.stem) ?? 0, idf(dfOf.get(lx)!)));
  }
  const total = [...q.values()].reduce((s, w) => s + w, 0) || 1;
  const stemsOf = (text: string) => new Set(tokenize(text).map((t) => t.stem));
  const cover = (set: Set<string>) => [...q].reduce((s, [t, w]) => s + (set.has(t) ? w : 0), 0) / total;
  const passCov = r.passages.map((p) => {
    const set = stemsOf(p.text);
    for (const x of stemsOf((p.source ?? '').replace(/\.(?:pdf|docx?|md|txt|html?)\b/gi, ' ').replace(/\bpage \d+\b/gi, ' '))) set.add(x);
    return cover(set);
  });
  // The answer's sentences with their passages' source lines.
  const ansSet = new Set<string>();
  if (!a.refused) {
    for (const m of a.markers) for (const x of stemsOf((r.passages[m - 1]!.source ?? '').replace(/\.(?:pdf|docx?|md|txt|html?)\b/gi, ' '))) ansSet.add(x);
    for (const x of stemsOf(a.text)) ansSet.add(x);
  }
  // The question's rarest word in the KB (a word the KB lacks is rarest), and whether a cited passage holds it.
  const byRarity = [...q].sort((x, y) => y[1] - x[1]);
  const cited = new Set<string>();
  for (const m of a.markers) for (const x of stemsOf(`${r.passages[m - 1]!.text} ${r.passages[m - 1]!.source ?? ''}`)) cited.add(x);
  const rareCited = byRarity.length > 0 && cited.has(byRarity[0]![0]);
  const rare2Cited = byRarity.slice(0, 2).filter(([t]) => cited.has(t)).length;
  const absent = r.lexicon.terms.filter((t) => t.df === 0).length;
  const qNumbers = tokenize(r.question).filter((t) => /^\d/.test(t.lower)).map((t) => t.stem);
  const allStems = new Set(r.passages.flatMap((p) => [...stemsOf(`${p.text} ${p.source ?? ''}`)]));
  const numberMissing = qNumbers.some((x) => !allStems.has(x));
  let ansCos = 0;
  let sentCos = 0;
  if (!a.refused) {
    const qv = await embedder.embedQuery(r.question);
    const [av] = await embedder.embedDocuments([a.text.replace(/\s*\[\d+\]/g, '')]);
    ansCos = cosine(qv, av!);
    const best = a.ranked.find((x) => x.focusHit) ?? a.ranked[0]!;
    const [sv] = await embedder.embedDocuments([best.text]);
    sentCos = cosine(qv, sv!);
  }
  const good =
    r.kind === 'answerable' ? a.markers.some((m) => r.files[m - 1] === r.want) : r.kind === 'squad' ? containsAnswer(a.text, r.answers!) : false;
  out.push({
    kind: r.kind === 'off-topic' ? 'off' : r.kind === 'held-out' ? 'held' : r.kind,
    corpus: r.corpus,
    q: r.question,
    gate: best >= MIN_SUPPORT,
    ans: !a.refused,
    good,
    sup: best,
    dense: Math.max(...r.scores.map((s) => s.dense)),
    kbPass: Math.max(...passCov),
    kbPassDense: Math.max(...passCov.map((c, i) => c + 0.5 * r.scores[i]!.dense)),
    kbAns: cover(ansSet),
    rareCited,
    ansCos,
    sentCos,
    rare2Cited,
    absent,
    numberMissing,
  });
}
console.log(JSON.stringify(out));
