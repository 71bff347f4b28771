/**
 * Questions per day, answered vs refused, and feedback, for the organisation or one KB, over a range
 * of UTC days (at most MAX_DAYS), from the daily aggregate (usage-daily.ts): deleted KBs still count
 * in the organisation's totals. Days without questions are present with zeros, so a chart's x axis
 * is the range itself.
 */
import { sql } from 'kysely';
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { AppError } from '../../errors';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { utcDay } from './usage-daily';
import { authorize } from '../access/roles';

export const MAX_DAYS = 366;
const DAY = 86_400_000;

export const ZActivityInput = z
  .object({
    kb_id: z.string().min(1).optional(),
    /** First and last UTC day, inclusive; default the 30 days ending today. */
    from: z.iso.date().optional(),
    to: z.iso.date().optional(),
  })
  .strict();

type Counts = { questions: number; answered: number; refused: number; feedback_up: number; feedback_down: number };

export async function getActivity(ctx: ServiceContext, rawInput: z.input<typeof ZActivityInput>) {
  authorize(ctx, 'content.read');
  const input = parseInput(ZActivityInput, rawInput);
  const to = input.to ?? utcDay(new Date());
  const from = input.from ?? utcDay(new Date(Date.parse(to) - 29 * DAY));
  const days = Math.round((Date.parse(to) - Date.parse(from)) / DAY) + 1;
  if (days < 1) throw new AppError('invalid_input', '"from" must not be after "to"', { field: 'from' });
  if (days > MAX_DAYS) throw new AppError('invalid_input', `Choose a range of at most ${MAX_DAYS} days`, { field: 'from' });
  const kb = input.kb_id ? await requireKb(ctx, input.kb_id) : null;

  const { rows } = await sql<{ day: string; kb_id: string; kb_name: string | null; questions: number; refused: number; feedback_up: number; feedback_down: number }>`
    select to_char(u.day, 'YYYY-MM-DD') as day, u.kb_id, k.name as kb_name,
           u.questions, u.refused, u.feedback_up, u.feedback_down
    from usage_daily u left join knowledge_bases k on k.id = u.kb_id and k.org_id = u.org_id
    where u.org_id = ${ctx.org.id} and u.day between ${from}::date and ${to}::date
      ${kb ? sql`and u.kb_id = ${kb.id}` : sql``}`.execute(ctx.db);

  const empty = (): Counts => ({ questions: 0, answered: 0, refused: 0, feedback_up: 0, feedback_down: 0 });
  const add = (c: Counts, r: (typeof rows)[number]) => {
    c.questions += Number(r.questions);
    c.refused += Number(r.refused);
    c.answered = c.questions - c.refused;
    c.feedback_up += Number(r.feedback_up);
    c.feedback_down += Number(r.feedback_down);
  };
  const byDay = new Map<string, Counts>();
  for (let i = 0; i < days; i++) byDay.set(utcDay(new Date(Date.parse(from) + i * DAY)), empty());
  const byKb = new Map<string, Counts & { kb_id: string; kb_name: string | null }>();
  const total = empty();
  for (const r of rows) {
    add(byDay.get(r.day)!, r);
    add(total, r);
    const k = byKb.get(r.kb_id) ?? { kb_id: r.kb_id, kb_name: r.kb_name, ...empty() };
    add(k, r);
    byKb.set(r.kb_id, k);
  }
  return {
    from,
    to,
    kb_id: kb?.id ?? null,
    total,
    days: [...byDay].map(([day, c]) => ({ day, ...c })),
    // A deleted KB keeps its counts under its id with no name.
    knowledge_bases: [...byKb.values()].sort((a, b) => b.questions - a.questions),
  };
}
