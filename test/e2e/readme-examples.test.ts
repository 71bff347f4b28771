/**
 * Every `curl` example in the README's ```bash blocks, run as printed against a real server
 * process (`npm start`), with the placeholders a reader fills in substituted: $GW, $KEY, $METRICS_TOKEN, kb_…,
 * doc_…, sess_…, handbook.pdf and the crawl URL. Each must answer 2xx. A placeholder this file does
 * not know (anything with "…" or "...", or a variable other than $GW/$KEY) fails the test by
 * name: add it to PLACEHOLDERS below when you add an example that needs one.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type StartedServer } from '../helpers/server-process';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PDF = path.resolve(ROOT, '../shared/data/docs/single_table.pdf');

/**
 * The curl commands of every ```bash block, continuation lines and multi-line quotes kept. Other
 * shell lines of a block (a loop building arguments, a zip) run ahead of each later curl of that block.
 */
export function readmeCurlExamples(readme: string): string[] {
  const commands: string[] = [];
  for (const block of readme.matchAll(/```bash\n([\s\S]*?)```/g)) {
    const prelude: string[] = [];
    let current: string[] | null = null;
    const flush = () => {
      if (current) commands.push([...prelude, current.join('\n').trim()].join('\n'));
      current = null;
    };
    for (const line of block[1]!.split('\n')) {
      const continuing = current !== null && current.at(-1)!.endsWith('\\');
      if (continuing) {
        current!.push(line.replace(/\s{2,}# .*$/, ''));
        continue;
      }
      // A line inside a multi-line quote of the current command (it does not start a new statement).
      const statement = /^(#|curl\s|npm\s|export\s|\(|[A-Za-z_]\w*=|for\s)/.test(line.trim());
      if (current && line.trim() !== '' && !statement) {
        current.push(line);
        continue;
      }
      flush();
      if (/^curl\s/.test(line)) current = [line.replace(/\s{2,}# .*$/, '')];
      else if (line.trim() && !/^(#|npm\s|export\s)/.test(line.trim())) prelude.push(line);
    }
    flush();
  }
  return commands.filter(Boolean);
}

const METRICS_TOKEN = 'readme-metrics-token-0123456789';
const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-readme-'));
const workDir = mkdtempSync(path.join(tmpdir(), 'gw-readme-cwd-'));
let server: StartedServer;
let site: Server;
let siteUrl: string;
let key: string;

beforeAll(async () => {
  copyFileSync(PDF, path.join(workDir, 'handbook.pdf'));
  // The folder the bulk-upload example loads.
  mkdirSync(path.join(workDir, 'handbook'));
  writeFileSync(path.join(workDir, 'handbook', 'leave.md'), '# Leave\n\nNew employees get 25 days of paid leave per year.');
  writeFileSync(path.join(workDir, 'handbook', 'hours.txt'), 'The office opens at 8.');
  site = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><head><title>Guide</title></head><body><main><h1>Guide</h1><p>Refunds take 14 days.</p></main></body></html>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  server = await startServer({ DATA_DIR: dataDir, DATABASE_URL: '', CRAWL_ALLOW_PRIVATE: 'true', METRICS_TOKEN });
  key = server.apiKey!;
});
afterAll(async () => {
  await server?.stop();
  site?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(workDir, { recursive: true, force: true });
});

async function api(method: string, pathname: string, body?: unknown) {
  const res = await fetch(`${server.url}${pathname}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return (await res.json()) as any;
}

/** Fresh ids for each example, so a DELETE example never removes what the next one needs. */
async function placeholders() {
  const kbId = (await api('POST', '/api/kbs', { name: 'README' })).kb.id as string;
  const form = new FormData();
  form.set('kb_id', kbId);
  form.set('file', new Blob(['The Zephyr-9 is made by Northwind Aerial. It can fly for 47 minutes.']), 'zephyr.txt');
  const docId = ((await (await fetch(`${server.url}/api/ingest/upload`, { method: 'POST', headers: { 'x-api-key': key }, body: form })).json()) as any).document.id as string;
  const sessionId = (await api('POST', '/api/rag/chat', { kb_id: kbId, message: 'Who makes the Zephyr-9?' })).session_id as string;
  return { 'kb_…': kbId, 'doc_…': docId, 'sess_…': sessionId, 'https://docs.example.com/': siteUrl } as Record<string, string>;
}

function substitute(command: string, values: Record<string, string>): string {
  let out = command;
  for (const [from, to] of Object.entries(values)) out = out.split(from).join(to);
  // Variables the example's own shell lines define ("for f in", "args=(…)") are not placeholders.
  const own = [...out.matchAll(/(?:\bfor\s+([A-Za-z_]\w*)\s+in\b|^([A-Za-z_]\w*)=)/gm)].map((m) => m[1] ?? m[2]);
  const variable = new RegExp(`\\$(?!(?:${['GW', 'KEY', 'METRICS_TOKEN', ...own].join('|')})\\b)[A-Za-z_]\\w*`);
  const unknown = out.match(/\S*(…|\.\.\.)\S*/) ?? out.match(variable);
  if (unknown) throw new Error(`unknown placeholder ${JSON.stringify(unknown[0])} in README example:\n${command}`);
  return out;
}

function runExample(command: string): Promise<{ status: number; output: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      ['-c', `${command} -w '\\nHTTP_STATUS:%{http_code}' --max-time 60`],
      { cwd: workDir, env: { ...process.env, GW: server.url, KEY: key, METRICS_TOKEN }, timeout: 90_000 },
      (err, stdout) => {
        if (err) return reject(new Error(`${command}\nfailed: ${err.message}`));
        const status = Number(stdout.match(/HTTP_STATUS:(\d+)\s*$/)?.[1]);
        resolve({ status, output: stdout });
      },
    );
  });
}

describe('README examples', () => {
  const examples = readmeCurlExamples(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));

  it('finds the examples (parser sanity)', () => {
    expect(examples.length).toBeGreaterThanOrEqual(15);
    expect(examples.some((e) => e.includes('-X DELETE $GW/api/kbs/kb_…'))).toBe(true);
  });

  it('every curl example in the README answers 2xx against a real server', async () => {
    for (const example of examples) {
      const command = substitute(example, await placeholders());
      const { status, output } = await runExample(command);
      expect(status, `${example}\n->\n${output.slice(0, 500)}`).toBeGreaterThanOrEqual(200);
      expect(status, `${example}\n->\n${output.slice(0, 500)}`).toBeLessThan(300);
    }
  });
});

describe('README administration commands', () => {
  it('every `npm run cli` line of the CLI block exits 0 beside the running server, as printed', async () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const block = /### Administration \(CLI\)\n\n```bash\n([\s\S]*?)```/.exec(readme)?.[1];
    const lines = (block ?? '').split('\n').filter((l) => l.startsWith('npm run cli'));
    expect(lines.length).toBeGreaterThanOrEqual(4);
    const outputs: string[] = [];
    for (const line of lines) {
      const stdout = await new Promise<string>((resolve, reject) =>
        execFile('bash', ['-c', line], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' }, timeout: 90_000 }, (err, out, errOut) =>
          err ? reject(new Error(`${line}\nfailed: ${err.message}\n${errOut}`)) : resolve(out),
        ),
      );
      outputs.push(stdout);
    }
    // The org the first line creates is the one the next lines name.
    expect(outputs[0]).toMatch(/"slug":"acme"/);
    expect(outputs.join('\n')).toMatch(/\/admin\/\S+/);
    // Each line is a fresh `npm run cli` (npm, tsx, the service's imports): ~2 s on a quiet machine,
    // ~15 s at load 20, where the four of them passed the default 60 s. Each keeps its own 90 s.
  }, 400_000);
});
