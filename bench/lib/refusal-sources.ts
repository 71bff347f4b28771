/**
 * Whether refused answers carry their sources, counted on what every transport sends
 * (`responseCitations`: REST and tRPC JSON, GraphQL, the SSE `done` event): a refusal should come
 * with the closest retrieved passages, each `used: false`. The reports bench takes its
 * `startSearch` from here, which observes each answer's `done` event and passes the stream on
 * unchanged. It also counts which step refused: the gate (answer-gate.ts: no passage, retrieval not
 * confident, the passages do not hold the question) or the answer itself (`model_refused`: the
 * offline answerer found no sentence to quote, or a model said it could not answer).
 */
import { responseCitations, type AnswerEvent } from '../../src/answering/answer-stream';
import { startSearch as serviceStartSearch } from '../../src/services/rag/search';

const tally = { refused: 0, withSources: 0, sourcesMarkedUnused: 0, byReason: {} as Record<string, number> };

async function* observed(events: AsyncIterable<AnswerEvent>): AsyncGenerator<AnswerEvent> {
  for await (const e of events) {
    if (e.type === 'done' && e.refused) {
      const sent = responseCitations(e);
      tally.refused++;
      tally.byReason[e.gate.reason] = (tally.byReason[e.gate.reason] ?? 0) + 1;
      if (sent.length > 0) tally.withSources++;
      if (sent.length > 0 && sent.every((c) => !c.used)) tally.sourcesMarkedUnused++;
    }
    yield e;
  }
}

export async function startSearch(...args: Parameters<typeof serviceStartSearch>): Promise<AsyncGenerator<AnswerEvent>> {
  return observed(await serviceStartSearch(...args));
}

export function refusalSourcesTable() {
  const share = (n: number) => `${n} / ${tally.refused} (${((100 * n) / Math.max(1, tally.refused)).toFixed(1)}%)`;
  const byGate = tally.refused - (tally.byReason.model_refused ?? 0);
  const reasons = Object.entries(tally.byReason)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
  return {
    'refused answers (every set above)': tally.refused,
    'with sources': share(tally.withSources),
    'all sources marked used: false': share(tally.sourcesMarkedUnused),
    'refused by the gate': share(byGate),
    'refused by the answer (gate passed)': share(tally.byReason.model_refused ?? 0),
    'reasons': reasons,
  };
}
