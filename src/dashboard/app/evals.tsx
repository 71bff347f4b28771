/**
 * Evals: a KB's test set and how well the KB answers it. Cases are added by hand, imported from a
 * JSONL or CSV file, or saved from the Sandbox; "Run" asks them all through the answer path in the
 * background (its progress shows while it runs). The latest run's figures, a chart per figure over
 * the runs, and the latest run compared with the one before it case by case; a run whose figures
 * dropped beyond the threshold (automatic runs after a re-crawl, re-index or settings change
 * included) is flagged as a regression.
 */
import { useEffect, useState } from 'preact/hooks';
import { RunFigureChart } from './chart';
import { gql, type ResultOf } from './gql';
import { CreateEvalCase, DeleteEvalCase, EvalCases, EvalComparisonQuery, EvalRuns, ImportEvalCases, KbList, StartEvalRun } from './queries';
import { errorMessage, formatDate, Notice, useLoad } from './ui';

type Run = ResultOf<typeof EvalRuns>['evalRuns'][number];
type Summary = NonNullable<Run['summary']>;

const FIGURES: Array<[keyof Summary, string]> = [
  ['hitAt1', 'Hit@1 (document)'],
  ['hitAtK', 'Hit@k (document)'],
  ['answerContains', 'Answer contains expected'],
  ['refusalPrecision', 'Refusal precision'],
  ['refusalRecall', 'Refusal recall'],
];
const FIGURE_NAMES: Record<string, string> = { hit_at_k: 'Hit@k', answer_contains: 'Answer contains expected' };
const TRIGGERS: Record<Run['trigger'], string> = { manual: 'run by hand', reindex: 'after re-index', recrawl: 'after re-crawl', reingest: 'after a document was ingested again', settings: 'after a settings change', cli: 'from the CLI' };
const pct = (v: number | null | undefined) => (v === null || v === undefined ? '—' : `${(v * 100).toFixed(1)}%`);

function Figures({ run }: { run: Run }) {
  const s = run.summary!;
  return (
    <dl class="figures" aria-label="Figures of the latest run">
      {FIGURES.map(([key, name]) => (
        <div data-figure={key}><dt>{name}</dt><dd>{pct(s[key] as number | null)}</dd></div>
      ))}
      <div data-figure="latency"><dt>Latency p50 / p95</dt><dd>{s.latencyP50Ms ?? '—'} / {s.latencyP95Ms ?? '—'} ms</dd></div>
      {s.judgePass !== null && <div data-figure="judgePass"><dt>Judge passed</dt><dd>{pct(s.judgePass)}</dd></div>}
    </dl>
  );
}

function RegressionFlag({ run }: { run: Run }) {
  if (!run.regression?.flagged) return null;
  return (
    <p class="notice bad" role="alert" data-testid="regression">
      Regression {TRIGGERS[run.trigger]}: {run.regression.drops.map((d) => `${FIGURE_NAMES[d.figure] ?? d.figure} ${pct(d.before)} → ${pct(d.after)}`).join(', ')} (more than {pct(run.regression.threshold)} below the previous run)
    </p>
  );
}

function Comparison({ kbId, run }: { kbId: string; run: Run }) {
  const c = useLoad(() => gql(EvalComparisonQuery, { kbId, runId: run.id }), [kbId, run.id]);
  if (!c.data) return null;
  const { better, worse, same, cases } = c.data.evalComparison;
  return (
    <div class="card" data-testid="comparison">
      <h2 style="margin-top:0">Compared with the previous run</h2>
      <p>{better} better · {worse} worse · {same} the same</p>
      <div class="table-wrap">
        <table>
          <thead><tr><th>Question</th><th>Change</th><th>Document rank</th><th>Contains expected</th></tr></thead>
          <tbody>
            {cases.map((x) => (
              <tr data-change={x.change}>
                <td>{x.question}</td>
                <td><span class={`badge ${x.change === 'worse' ? 'failed' : x.change === 'better' ? 'ready' : 'processing'}`}>{x.change}</span></td>
                <td>{x.base?.docHitRank ?? '—'} → {x.run?.docHitRank ?? '—'}</td>
                <td>{x.base?.answerContains === null || !x.base ? '—' : x.base.answerContains ? 'yes' : 'no'} → {x.run?.answerContains === null || !x.run ? '—' : x.run.answerContains ? 'yes' : 'no'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function AddCase({ kbId, onAdded }: { kbId: string; onAdded: () => void }) {
  const [question, setQuestion] = useState('');
  const [answer, setAnswer] = useState('');
  const [unanswerable, setUnanswerable] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <form class="row" aria-label="Add a test" onSubmit={async (e) => {
      e.preventDefault();
      try {
        await gql(CreateEvalCase, { input: { kbId, question, ...(answer.trim() ? { answer } : {}), answerable: !unanswerable, source: 'manual' } });
        setQuestion('');
        setAnswer('');
        setUnanswerable(false);
        setError(null);
        onAdded();
      } catch (err) {
        setError(errorMessage(err));
      }
    }}>
      <div><label for="eval-question">Question</label><input id="eval-question" value={question} onInput={(e) => setQuestion(e.currentTarget.value)} style="width:320px" /></div>
      <div><label for="eval-answer">Expected answer (optional)</label><input id="eval-answer" value={answer} onInput={(e) => setAnswer(e.currentTarget.value)} /></div>
      <label><input type="checkbox" checked={unanswerable} onChange={(e) => setUnanswerable(e.currentTarget.checked)} /> Not answerable</label>
      <button type="submit">Add test</button>
      <Notice error={error} />
    </form>
  );
}

export function EvalsView({ kbId: routeKb }: { kbId?: string | undefined }) {
  const kbs = useLoad(() => gql(KbList), []);
  const first = kbs.data?.knowledgeBases[0]?.id;
  useEffect(() => {
    if (!routeKb && first) location.replace(`#/evals/${first}`);
  }, [routeKb, first]);
  const kbId = routeKb ?? '';
  const cases = useLoad(async () => (kbId ? gql(EvalCases, { kbId }) : null), [kbId]);
  const runs = useLoad(async () => (kbId ? gql(EvalRuns, { kbId }) : null), [kbId]);
  const [error, setError] = useState<string | null>(null);
  const [ok, setOk] = useState<string | null>(null);
  const list = runs.data?.evalRuns ?? [];
  const active = list.some((r) => r.status === 'queued' || r.status === 'running');

  // While a run is queued or running, its progress is read again every second.
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => void runs.reload(), 1000);
    return () => clearInterval(timer);
  }, [active, kbId]);

  const completed = list.filter((r) => r.status === 'completed' && r.summary);
  const latest = completed[0];
  const history = [...completed].reverse();

  return (
    <>
      <h1>Evals</h1>
      <div class="row">
        <div>
          <label for="evals-kb">Knowledge base</label>
          <select id="evals-kb" value={kbId} onChange={(e) => (location.hash = `/evals/${e.currentTarget.value}`)}>
            {kbs.data?.knowledgeBases.map((k) => <option value={k.id}>{k.name}</option>)}
          </select>
        </div>
        <button class="primary" type="button" disabled={!kbId || !cases.data?.evalCases.length || active} onClick={async () => {
          try {
            await gql(StartEvalRun, { kbId });
            setError(null);
            await runs.reload();
          } catch (err) {
            setError(errorMessage(err));
          }
        }}>Run</button>
      </div>
      <Notice error={error ?? cases.error ?? runs.error} ok={ok} />
      {list.filter((r) => r.status === 'queued' || r.status === 'running').map((r) => (
        <p class="notice" role="status" data-testid="run-progress">Running {TRIGGERS[r.trigger]}: {r.done} of {r.total} questions</p>
      ))}
      {latest && (
        <div class="card" data-testid="latest-run">
          <h2 style="margin-top:0">Latest run</h2>
          <p class="small muted">{formatDate(latest.finishedAt)} · {TRIGGERS[latest.trigger]} · top_k {latest.topK} · {latest.summary!.cases} questions{latest.summary!.errors ? ` · ${latest.summary!.errors} failed` : ''}</p>
          <RegressionFlag run={latest} />
          <Figures run={latest} />
        </div>
      )}
      {history.length > 0 && (
        <div class="card">
          <h2 style="margin-top:0">Over time</h2>
          <div class="grid2">
            {FIGURES.map(([key, name]) => (
              <div data-testid={`chart-${key}`}>
                <h3>{name}</h3>
                <RunFigureChart label={`${name} per run`} points={history.map((r) => ({ label: formatDate(r.finishedAt), value: r.summary![key] as number | null }))} />
              </div>
            ))}
          </div>
          <h3>Runs</h3>
          <ol aria-label="Runs" style="padding-left:20px">
            {list.map((r) => (
              <li data-status={r.status} data-trigger={r.trigger}>
                {formatDate(r.createdAt)} · {TRIGGERS[r.trigger]} · {r.status}
                {r.summary ? ` · hit@k ${pct(r.summary.hitAtK)} · contains ${pct(r.summary.answerContains)}` : ''}
                {r.regression?.flagged && <span class="badge failed"> regression</span>}
              </li>
            ))}
          </ol>
        </div>
      )}
      {latest && completed.length > 1 && kbId && <Comparison kbId={kbId} run={latest} />}
      {kbId && (
        <div class="card">
          <h2 style="margin-top:0">Tests</h2>
          <AddCase kbId={kbId} onAdded={() => void cases.reload()} />
          <div class="row">
            <label for="eval-import">Import JSONL or CSV</label>
            <input id="eval-import" type="file" accept=".jsonl,.csv,.ndjson,application/json,text/csv" onChange={async (e) => {
              const file = e.currentTarget.files?.[0];
              if (!file) return;
              try {
                const r = await gql(ImportEvalCases, { kbId, content: await file.text(), format: /\.csv$/i.test(file.name) ? 'csv' : 'jsonl' });
                setOk(`Imported ${r.importEvalCases.imported} tests`);
                setError(null);
                await cases.reload();
              } catch (err) {
                setError(errorMessage(err));
              }
              e.currentTarget.value = '';
            }} />
            <a href={`/api/kbs/${kbId}/evals/export`} download="evals.jsonl" class="small">Export (JSONL, needs an API key)</a>
          </div>
          {cases.data?.evalCases.length === 0 && <p class="muted">No tests yet: add one here, import a file, or use “Save as test” in the Sandbox.</p>}
          <div class="table-wrap">
            <table aria-label="Tests">
              <thead><tr><th>Question</th><th>Expected</th><th>From</th><th></th></tr></thead>
              <tbody>
                {cases.data?.evalCases.map((c) => (
                  <tr data-answerable={c.answerable ? 'true' : 'false'}>
                    <td>{c.question}</td>
                    <td>{!c.answerable ? 'not answerable' : [c.answer, c.documents.join(', ')].filter(Boolean).join(' · ') || '—'}</td>
                    <td>{c.source}</td>
                    <td><button type="button" aria-label={`Delete test: ${c.question}`} onClick={async () => {
                      try {
                        await gql(DeleteEvalCase, { kbId, id: c.id });
                        await cases.reload();
                      } catch (err) {
                        setError(errorMessage(err));
                      }
                    }}>Delete</button></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </>
  );
}
