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
import { createApiKey } from './services/api-keys/create-api-key';
import { listApiKeys } from './services/api-keys/list-api-keys';
import { revokeApiKey } from './services/api-keys/revoke-api-key';
import { createSignInLink } from './services/admin-sessions/create-sign-in-link';
import { createOrg } from './services/orgs/create-org';
import { findOrgBySlug } from './services/orgs/find-org';
import { toOrgDto } from './services/orgs/org-dto';
import { PLAN_NAMES } from './services/plans';

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
  .option('--json', 'print JSON')
  .action((opts) =>
    withRuntime(async (rt) => {
      const o = await findOrgBySlug(rt.deps, opts.org);
      const created = await createApiKey(rt.deps, o.id, opts.name ? { name: opts.name } : {});
      print(opts.json, created, `API key for ${o.slug} (shown once): ${created.api_key}\nid ${created.id}, prefix ${created.prefix}`);
    }),
  );
key
  .command('list')
  .requiredOption('--org <slug>', 'organisation slug')
  .option('--json', 'print JSON')
  .action((opts) =>
    withRuntime(async (rt) => {
      const keys = await listApiKeys(rt.deps, (await findOrgBySlug(rt.deps, opts.org)).id);
      print(opts.json, { keys }, keys.map((k) => `${k.id}\t${k.prefix}…\t${k.revoked_at ? 'revoked' : 'active'}\t${k.name ?? ''}`).join('\n'));
    }),
  );
key
  .command('revoke')
  .argument('<key>', 'key id (key_…) or visible prefix (gw_…)')
  .requiredOption('--org <slug>', 'organisation slug')
  .option('--json', 'print JSON')
  .action((idOrPrefix: string, opts) =>
    withRuntime(async (rt) => {
      const revoked = await revokeApiKey(rt.deps, (await findOrgBySlug(rt.deps, opts.org)).id, idOrPrefix);
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
      const running = rt.config.database.kind === 'embedded' ? runningServerAddress(rt.config.database.dataDir) : null;
      const base = (opts.url ?? running ?? `http://${rt.config.host === '0.0.0.0' ? 'localhost' : rt.config.host}:${rt.config.port}`).replace(/\/+$/, '');
      const url = `${base}/admin/sign-in?token=${token}`;
      print(opts.json, { url, expires_at }, `Open this link to sign in to the dashboard as ${o.slug} (once, before ${expires_at}):\n${url}`);
    }),
  );

program.parseAsync().catch((err) => {
  const message = err instanceof AppError || err instanceof ConfigError ? err.message : err instanceof Error ? err.message : String(err);
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
});
