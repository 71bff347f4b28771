/**
 * Finds LISTEN / UNLISTEN / DISCARD ALL statements in client SQL, so the wire server knows which
 * connection wants which notification channel. PGlite has one session, so the session's own LISTEN
 * state cannot tell connections apart.
 *
 * Only top-level statements count: string literals, dollar quotes and comments are skipped, so
 * `select 'listen x'` is not a LISTEN. Channel names follow identifier rules: unquoted names fold to
 * lower case, quoted ones keep case and `""` escapes (graphile-worker uses `LISTEN "jobs:insert"`).
 */

export type ListenCommand =
  | { kind: 'listen'; channel: string }
  | { kind: 'unlisten'; channel: string }
  | { kind: 'unlisten-all' }; // UNLISTEN * and DISCARD ALL

const IDENT = String.raw`"(?:[^"]|"")+"|[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*`;
const LISTEN_RE = new RegExp(String.raw`^(LISTEN|UNLISTEN)\s+(${IDENT}|\*)$`, 'i');
const DISCARD_ALL_RE = /^DISCARD\s+ALL$/i;
// Cheap pre-check: almost no statement mentions these words, so almost no SQL gets tokenized.
const MAYBE_RE = /listen|discard/i;

export function parseListenCommands(sql: string): ListenCommand[] {
  if (!MAYBE_RE.test(sql)) return [];
  const commands: ListenCommand[] = [];
  for (const statement of topLevelStatements(sql)) {
    if (DISCARD_ALL_RE.test(statement)) {
      commands.push({ kind: 'unlisten-all' });
      continue;
    }
    const m = LISTEN_RE.exec(statement);
    if (!m) continue;
    const kind = m[1]!.toLowerCase() as 'listen' | 'unlisten';
    const target = m[2]!;
    if (target === '*') {
      if (kind === 'unlisten') commands.push({ kind: 'unlisten-all' });
      continue;
    }
    commands.push({ kind, channel: identifierValue(target) });
  }
  return commands;
}

/** Quotes a channel name for use in LISTEN/UNLISTEN. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function identifierValue(ident: string): string {
  if (ident.startsWith('"')) return ident.slice(1, -1).replaceAll('""', '"');
  // Postgres folds only ASCII letters of unquoted identifiers.
  return ident.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/**
 * Splits SQL on top-level semicolons, with literals and comments blanked out (replaced by a space)
 * and whitespace collapsed. Double-quoted identifiers are kept: they are what we are looking for.
 */
function topLevelStatements(sql: string): string[] {
  const statements: string[] = [];
  let current = '';
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === ';') {
      statements.push(current);
      current = '';
      i++;
    } else if (c === '-' && next === '-') {
      const eol = sql.indexOf('\n', i);
      i = eol < 0 ? n : eol + 1;
      current += ' ';
    } else if (c === '/' && next === '*') {
      i = skipBlockComment(sql, i);
      current += ' ';
    } else if (c === "'") {
      // E'..' strings allow backslash escapes; the E was already copied, which is harmless.
      const backslashEscapes = /[eE]$/.test(current) && !/[A-Za-z0-9_$]$/.test(current.slice(0, -1));
      i = skipQuoted(sql, i, "'", backslashEscapes);
      current += ' ';
    } else if (c === '"') {
      const end = skipQuoted(sql, i, '"', false);
      current += sql.slice(i, end);
      i = end;
    } else if (c === '$') {
      const tag = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 64));
      if (tag && !/[A-Za-z0-9_]$/.test(current)) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        i = close < 0 ? n : close + tag[0].length;
        current += ' ';
      } else {
        current += c;
        i++;
      }
    } else {
      current += c;
      i++;
    }
  }
  statements.push(current);
  return statements.map((s) => s.replace(/\s+/g, ' ').trim()).filter(Boolean);
}

function skipBlockComment(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql.startsWith('/*', i)) {
      depth++;
      i += 2;
    } else if (sql.startsWith('*/', i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  return i;
}

/** Index just past the closing quote; a doubled quote is an escaped quote. */
function skipQuoted(sql: string, start: number, quote: string, backslashEscapes: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i]!;
    if (backslashEscapes && c === '\\') {
      i += 2;
    } else if (c === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else {
      i++;
    }
  }
  return i;
}
