/**
 * A small SVG bar chart of questions per day, answered stacked under refused: no chart library (the
 * dashboard's first load stays small). The numbers behind it are in a table next to it, so screen
 * readers get the data and the SVG itself is a labelled image.
 */
type Day = { day: string; answered: number; refused: number };

const W = 720;
const H = 180;
const PAD = { left: 34, right: 8, top: 10, bottom: 24 };

function niceMax(n: number): number {
  if (n <= 4) return 4;
  const step = 10 ** Math.floor(Math.log10(n));
  return Math.ceil(n / step) * step;
}

export function DailyChart({ days, label }: { days: readonly Day[]; label: string }) {
  const max = niceMax(Math.max(0, ...days.map((d) => d.answered + d.refused)));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, days.length);
  const bar = Math.max(1, Math.min(24, slot * 0.7));
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const every = Math.ceil(days.length / 8);
  return (
    <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label} class="chart" preserveAspectRatio="none">
      {[0, max / 2, max].map((v) => (
        <g>
          <line x1={PAD.left} x2={W - PAD.right} y1={y(v)} y2={y(v)} stroke="var(--border)" />
          <text x={PAD.left - 4} y={y(v) + 4} text-anchor="end" class="axis">{v}</text>
        </g>
      ))}
      {days.map((d, i) => {
        const x = PAD.left + i * slot + (slot - bar) / 2;
        return (
          <g>
            <title>{`${d.day}: ${d.answered} answered, ${d.refused} refused`}</title>
            <rect x={x} y={y(d.answered)} width={bar} height={y(0) - y(d.answered)} fill="var(--accent)" />
            <rect x={x} y={y(d.answered + d.refused)} width={bar} height={y(d.answered) - y(d.answered + d.refused)} fill="var(--bad)" />
            {i % every === 0 && (
              <text x={x + bar / 2} y={H - 6} text-anchor="middle" class="axis">{d.day.slice(5)}</text>
            )}
          </g>
        );
      })}
    </svg>
  );
}

/**
 * One figure (0..1) over a KB's runs, oldest first, as bars: the same plain SVG as the daily chart.
 * A run the figure does not apply to (null) leaves its slot empty.
 */
export function RunFigureChart({ points, label }: { points: ReadonlyArray<{ label: string; value: number | null }>; label: string }) {
  const h = 120;
  const plotW = W - PAD.left - PAD.right;
  const plotH = h - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, points.length);
  const bar = Math.max(1, Math.min(24, slot * 0.7));
  const y = (v: number) => PAD.top + plotH - v * plotH;
  return (
    <svg viewBox={`0 0 ${W} ${h}`} role="img" aria-label={label} class="chart" preserveAspectRatio="none">
      {[0, 0.5, 1].map((v) => (
        <g>
          <line x1={PAD.left} x2={W - PAD.right} y1={y(v)} y2={y(v)} stroke="var(--border)" />
          <text x={PAD.left - 4} y={y(v) + 4} text-anchor="end" class="axis">{`${v * 100}%`}</text>
        </g>
      ))}
      {points.map((p, i) =>
        p.value === null ? null : (
          <g>
            <title>{`${p.label}: ${(p.value * 100).toFixed(1)}%`}</title>
            <rect data-value={p.value} x={PAD.left + i * slot + (slot - bar) / 2} y={y(p.value)} width={bar} height={y(0) - y(p.value)} fill="var(--accent)" />
          </g>
        ),
      )}
    </svg>
  );
}
