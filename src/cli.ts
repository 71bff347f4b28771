/**
 * Admin CLI (`npm run cli -- <command>`). Works with or without a running server: on the embedded
 * default it attaches to the running server's database over its wire port instead of opening the
 * data directory a second time (which would corrupt it), and it migrates the database if needed.
 */
import { Command, Option } from 'commander';
import { ConfigError, loadConfig } from './config';
import { AppError } from './errors';
import { runningServerAddress } from './http/server-address';
import { createLogger } from './logger';
import { openRuntime, type Runtime } from './runtime';
import { createApiKey, ZCreateApiKeyInput } from './services/api-keys/create-api-key';
import { listApiKeys } from './services/api-keys/list-api-keys';
import { revokeApiKey } from './services/api-keys/revoke-api-key';
import { SYSTEM_ACTOR } from './services/access/actor';
import { parseInput } from './validation';
import { createSignInLink, signInLinkPath } from './services/admin-sessions/create-sign-in-link';
import { createContext } from './context';
import { inviteMember, listInvitations } from './services/people/invitations';
import { listMembers, resetMemberPassword } from './services/people/members';
import { sendInvitationEmail } from './services/people/invitation-email';
import { createOrg } from './services/orgs/create-org';
import { findOrgBySlug } from './services/orgs/find-org';
import { toOrgDto } from './services/orgs/org-dto';
import { PLAN_NAMES } from './services/plans';
import { readFile } from 'node:fs/promises';
import { parseEvalCases } from './services/evals/eval-case-format';
import type { EvalResultDto, EvalRunDto } from './services/evals/eval-dto';
import { runEvalInline } from './services/evals/run-eval-inline';
import { fileCases } from './services/evals/start-eval-run';

async function withRuntime<T>(fn: (rt: Runtime) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // Logs go to stderr so --json output on stdout stays machine-readable.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, { stderr: true });
  const rt = await openRuntime({ config, logger, attach: true });
  try {
    return await fn(rt);
  } finally {
    await rt.database.close();
  }
}

const print = (json: boolean, value: unknown, human: string): void => {
  process.stdout.write(`${json ? JSON.stringify(value) : human}\n`);
};

const program = new Command('groundwork').description('Groundwork administration').showHelpAfterError();

program
  .command('migrate')
  .description('Apply pending database migrations')
  .action(() => withRuntime(async (rt) => print(false, null, `database migrated (${rt.database.mode})`)));

const org = program.command('org').description('Organisations');
org
  .command('create')
  .requiredOption('--name <name>', 'organisation name')
  .addOption(new Option('--plan <plan>', 'plan').choices(PLAN_NAMES).default('free'))
  .option('--slug <slug>', 'URL slug (default: derived from the name)')
  .option('--json', 'print JSON')
  .action((opts) =>
    withRuntime(async (rt) => {
      const created = await createOrg(rt.deps, { name: opts.name, plan: opts.plan, ...(opts.slug ? { slug: opts.slug } : {}) });
      print(opts.json, created, `created organisation ${created.org.slug} (${created.org.id}, plan ${created.org.plan})\nAPI key (shown once): ${created.api_key}`);
    }),
  );
org
  .command('list')
  .option('--json', 'print JSON')
  .action((opts) =>
    withRuntime(async (rt) => {
      const rows = await rt.deps.db.selectFrom('organizations').selectAll().orderBy('created_at').execute();
      const orgs = rows.map(toOrgDto);
      print(opts.json, { orgs }, orgs.map((o) => `${o.slug}\t${o.id}\t${o.plan}\t${o.name}`).join('\n'));
    }),
  );

const key = program.command('key').description('API keys');
key
  .command('create')
  .requiredOption('--org <slug>', 'organisation slug')
  .option('--name <name>', 'a label for the key')
  .option('--scope <scope>', 'full (everything) or query (search, chat and widget tokens only)', 'full')
  .option('--json', 'print JSON')
  .action((opts) =>
    withRuntime(async (rt) => {
      const o = await findOrgBySlug(rt.deps, opts.org);
      const input = parseInput(ZCreateApiKeyInput, { ...(opts.name ? { name: opts.name } : {}), scope: opts.scope });
      const created = await createApiKey({ db: rt.deps.db, org: o, actor: SYSTEM_ACTOR }, input);
      print(opts.json, created, `API key for ${o.slug} (shown once, scope ${created.scope}): ${created.api_key}\nid ${created.id}, prefix ${created.prefix}`);
    }),
  );
key
  .command('list')
  .requiredOption('--org <slug>', 'organisation slug')
  .option('--json', 'print JSON')
  .action((opts) =>
    withRuntime(async (rt) => {
      const keys = await listApiKeys({ db: rt.deps.db, org: await findOrgBySlug(rt.deps, opts.org), actor: SYSTEM_ACTOR });
      print(opts.json, { keys }, keys.map((k) => `${k.id}\t${k.prefix}…\t${k.revoked_at ? 'revoked' : 'active'}\t${k.scope}\t${k.name ?? ''}`).join('\n'));
    }),
  );
key
  .command('revoke')
  .argument('<key>', 'key id (key_…) or visible prefix (gw_…)')
  .requiredOption('--org <slug>', 'organisation slug')
  .option('--json', 'print JSON')
  .action((idOrPrefix: string, opts) =>
    withRuntime(async (rt) => {
      const revoked = await revokeApiKey({ db: rt.deps.db, org: await findOrgBySlug(rt.deps, opts.org), actor: SYSTEM_ACTOR }, idOrPrefix);
      print(opts.json, revoked, `revoked ${revoked.id} (${revoked.prefix}…)`);
    }),
  );

const dashboard = program.command('dashboard').description('The admin dashboard');
dashboard
  .command('link')
  .description('Print a one-time sign-in link to the dashboard (valid 15 minutes, once)')
  .requiredOption('--org <slug>', 'organisation slug')
  .option('--url <url>', 'the address the server is reached at (default: the running server\'s own on the embedded database, else http://HOST:PORT from the configuration)')
  .option('--json', 'print JSON')
  .action((opts) =>
    withRuntime(async (rt) => {
      const o = await findOrgBySlug(rt.deps, opts.org);
      const { token, expires_at } = await createSignInLink(rt.deps, o.id);
      const url = `${linkBase(rt, opts.url)}${signInLinkPath(token)}`;
      print(opts.json, { url, expires_at }, `Open this link to sign in to the dashboard as ${o.slug} (once, before ${expires_at}):\n${url}`);
    }),
  );

/** The address links are printed for: the running server's own on the embedded database, else HOST:PORT. */
function linkBase(rt: Runtime, url?: string): string {
  const running = rt.config.database.kind === 'embedded' ? runningServerAddress(rt.config.database.dataDir) : null;
  return (url ?? running ?? `http://${rt.config.host === '0.0.0.0' ? 'localhost' : rt.config.host}:${rt.config.port}`).replace(/\/+$/, '');
}

const user = program.command('user').description('People who sign in to the dashboard (docs/access.md)');
user
  .command('invite')
  .requiredOption('--org <slug>', 'organisation slug')
  .requiredOption('--email <email>', 'who to invite')
  .option('--role <role>', 'owner, admin, editor or viewer', 'editor')
  .option('--url <url>', 'the address the server is reached at')
  .option('--json', 'print JSON')
  .action((opts) =>
    withRuntime(async (rt) => {
      const ctx = createContext(rt.deps, await findOrgBySlug(rt.deps, opts.org), { requestId: 'cli' });
      const invited = await inviteMember(ctx, { email: opts.email, role: opts.role });
      const link = `${linkBase(rt, opts.url)}${invited.path}`;
      const emailed = await sendInvitationEmail(ctx, { to: invited.invitation.email, link, role: invited.invitation.role });
      print(opts.json, { ...invited.invitation, link, emailed }, `Invitation for ${invited.invitation.email} as ${invited.invitation.role} (once, before ${invited.invitation.expires_at}${emailed ? '; also emailed' : ''}):\n${link}`);
    }),
  );
user
  .command('list')
  .requiredOption('--org <slug>', 'organisation slug')
  .option('--json', 'print JSON')
  .action((opts) =>
    withRuntime(async (rt) => {
      const ctx = createContext(rt.deps, await findOrgBySlug(rt.deps, opts.org), { requestId: 'cli' });
      const { members } = await listMembers(ctx);
      const { invitations } = await listInvitations(ctx);
      print(opts.json, { members, invitations }, [...members.map((m) => `${m.id}\t${m.email}\t${m.role}${m.has_password ? '' : '\t(no password yet)'}`), ...invitations.map((i) => `${i.id}\t${i.email}\t${i.role}\tinvited`)].join('\n'));
    }),
  );
user
  .command('reset-password')
  .requiredOption('--org <slug>', 'organisation slug')
  .requiredOption('--email <email>', 'whose password')
  .option('--url <url>', 'the address the server is reached at')
  .option('--json', 'print JSON')
  .action((opts) =>
    withRuntime(async (rt) => {
      const ctx = createContext(rt.deps, await findOrgBySlug(rt.deps, opts.org), { requestId: 'cli' });
      const email = String(opts.email).trim().toLowerCase();
      const found = (await listMembers(ctx)).members.find((m) => m.email === email);
      if (!found) throw new AppError('not_found', `No member ${email} in ${opts.org}`);
      const reset = await resetMemberPassword(ctx, found.id);
      const link = `${linkBase(rt, opts.url)}${reset.path}`;
      print(opts.json, { link, expires_at: reset.expires_at }, `One-time sign-in link for ${email}, who then sets a new password (before ${reset.expires_at}):\n${link}`);
    }),
  );

const evals = program.command('eval').description('Answer quality on a knowledge base (docs/evals.md)');

const ratioOption = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new AppError('invalid_input', `${name} must be a number from 0 to 1`);
  return n;
};
const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)}%`);

function evalTable(run: EvalRunDto, results: EvalResultDto[]): string {
  const s = run.summary!;
  const rows = results.map((r) => {
    const doc = r.expected.documents.length ? (r.doc_hit_rank === null ? 'miss' : `#${r.doc_hit_rank}`) : '-';
    const contains = r.answer_contains === null ? '-' : r.answer_contains ? 'yes' : 'no';
    const refusal = r.expected.answerable ? (r.refused ? 'refused' : 'answered') : r.refused ? 'refused (ok)' : 'answered (!)';
    const q = r.question.length > 60 ? `${r.question.slice(0, 59)}…` : r.question;
    return [String(r.position + 1), doc, contains, r.error ? 'error' : refusal, `${r.latency_ms} ms`, q];
  });
  const head = ['#', 'document', 'contains', 'answer', 'latency', 'question'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [
    line(head),
    ...rows.map(line),
    '',
    `cases ${s.cases}  hit@1 ${pct(s.hit_at_1)}  hit@${run.settings.top_k} ${pct(s.hit_at_k)}  answer contains ${pct(s.answer_contains)}`,
    `refusal precision ${pct(s.refusal_precision)}  recall ${pct(s.refusal_recall)}  latency p50 ${s.latency_p50_ms ?? '-'} ms  p95 ${s.latency_p95_ms ?? '-'} ms${s.errors ? `  errors ${s.errors}` : ''}`,
  ].join('\n');
}

evals
  .command('run')
  .description("Ask a KB's test set (or a file's cases) through the answer path; exit 1 below a threshold")
  .requiredOption('--kb <id>', 'knowledge base id (kb_…)')
  .option('--file <path>', 'cases to ask instead of the stored set: .jsonl, or .csv')
  .option('--min-hit <ratio>', 'fail when hit@k is below this (0-1)', ratioOption('--min-hit'))
  .option('--min-answer <ratio>', 'fail when answer contains is below this (0-1)', ratioOption('--min-answer'))
  .option('--top-k <n>', "passages retrieved per question (default: the KB's eval setting, 5)", (v) => Number.parseInt(v, 10))
  .option('--json', 'print the figures as JSON')
  .action((opts) =>
    withRuntime(async (rt) => {
      const cases = opts.file ? fileCases(parseEvalCases(/\.csv$/i.test(opts.file) ? 'csv' : 'jsonl', await readFile(opts.file, 'utf8'))) : undefined;
      const { run, results } = await runEvalInline(rt.deps, { kb_id: opts.kb, ...(cases ? { cases } : {}), ...(opts.topK ? { top_k: opts.topK } : {}) });
      const s = run.summary!;
      const figures = { cases: s.cases, hit_at_1: s.hit_at_1, hit_at_k: s.hit_at_k, answer_contains: s.answer_contains, refusal_precision: s.refusal_precision, refusal_recall: s.refusal_recall };
      print(opts.json, figures, evalTable(run, results));
      // A figure no case measures (null) cannot pass a threshold set on it.
      const below: string[] = [];
      if (opts.minHit !== undefined && !(s.hit_at_k !== null && s.hit_at_k >= opts.minHit)) below.push(`hit@k ${pct(s.hit_at_k)} < ${pct(opts.minHit)}`);
      if (opts.minAnswer !== undefined && !(s.answer_contains !== null && s.answer_contains >= opts.minAnswer)) below.push(`answer contains ${pct(s.answer_contains)} < ${pct(opts.minAnswer)}`);
      if (below.length) {
        process.stderr.write(`eval below threshold: ${below.join(', ')}\n`);
        process.exitCode = 1;
      }
    }),
  );

program.parseAsync().catch((err) => {
  const message = err instanceof AppError || err instanceof ConfigError ? err.message : err instanceof Error ? err.message : String(err);
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
});
