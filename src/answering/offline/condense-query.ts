/**
 * Offline query condenser for chat memory: turns a follow-up that leans on the
 * conversation ("How long can it fly?") into a standalone search query ("How
 * long can the Zephyr-9 fly?") by resolving pronouns and elliptical
 * follow-ups against the entities of the recent turns.
 *
 * Guarantees: a follow-up with no pronoun, no ellipsis and no unresolved
 * "that <noun>" is returned unchanged (trimmed), as is any follow-up when
 * there is no history; the output never drops words of the follow-up, it
 * only substitutes a pronoun or adds the missing subject, except that a
 * follow-up that only moves the period ("And two years later?") becomes the
 * previous question with its years moved.
 *
 * Resolution: "it/its/this/that" -> the topic (the most salient mention of
 * the latest user turn that has one); "they/them/their" -> the entity the
 * assistant introduced when the previous question asked "who"/"which
 * company", else the topic; "he/she/his/her" -> the person-like name among
 * the answer and the recent turns.
 */
import { mentionsRefusal, stripCitationMarkers, type ChatTurn } from '../../ai/answer-text';
import { pickAnswerReferent } from './answer-referent';
import { findPeriods, formatPeriod } from '../../text/periods';
import { STOPWORDS, tokenize, type Token } from '../../text/tokens';

interface Mention {
  /** As it should be spliced into the query, e.g. "the Zephyr-9". */
  text: string;
  /** Without a leading determiner, e.g. "Zephyr-9". */
  core: string;
  proper: boolean;
  personLike: boolean;
  start: number;
  salience: number;
  /** Follows "in/at/from/...": probably a place. */
  afterPlacePrep: boolean;
}

const ORG_WORDS =
  /\b(?:inc|ltd|llc|corp|corporation|company|co|systems|group|university|institute|bank|labs?|technologies|industries|gmbh|sa|ag|plc|foundation|association|agency|ministry|department|team|club)\b/i;
// Capitalised job titles are roles, not entities a pronoun can point at.
const ROLES = new Set('ceo cfo cto coo cio vp svp evp president chairman chairwoman chair director manager founder cofounder head'.split(' '));
const PLACE_PREPS = new Set(['in', 'at', 'from', 'to', 'near', 'into', 'across']);
const CONNECTORS = new Set(['of', '&', 'de', 'von', 'van', 'der', 'du', 'la', 'le', 'del', 'di', 'da']);
const DETERMINERS = new Set(['the', 'a', 'an', 'our', 'your', 'my', 'this', 'that', 'these', 'those']);
const QUESTION_WORDS = new Set(['who', 'what', 'when', 'where', 'why', 'how', 'which', 'whom', 'whose', 'is', 'are', 'does', 'do', 'did', 'can', 'could', 'will', 'would', 'should', 'was', 'were', 'has', 'have', 'tell', 'please']);
// Words after which "that"/"this" is a pronoun rather than a determiner.
const AUX = new Set(
  'is was are were does do did has have had can could will would should may might cost costs mean means work works include includes happen happened apply applies take takes require requires support supports come comes last lasts'.split(
    ' ',
  ),
);

const IT = new Set(['it', 'its', 'itself']);
const THEY = new Set(['they', 'them', 'their', 'theirs', 'themselves']);
const PERSON = new Set(['he', 'him', 'his', 'she', 'her', 'hers', 'himself', 'herself']);
const DEMONSTRATIVE = new Set(['this', 'that']);

const ELLIPSIS_LEAD = /^(?:and\s+)?(?:what|how)\s+about\s+|^and\s+(?:for\s+|in\s+|with\s+)?|^also\s+|^same\s+for\s+|^what\s+of\s+/i;

function isCapitalised(t: Token): boolean {
  return /^\p{Lu}/u.test(t.raw) || /\d/.test(t.raw);
}

/** Proper-noun mentions (capitalised runs, ids like "Zephyr-9") and, failing those, determiner noun phrases. */
export function extractMentions(text: string): Mention[] {
  const tokens = tokenize(text);
  const mentions: Mention[] = [];
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i]!;
    const sentenceInitial = i === 0 || /[.!?]\s*$/.test(text.slice(tokens[i - 1]!.end, t.start));
    const usable =
      isCapitalised(t) &&
      !(sentenceInitial && (STOPWORDS.has(t.lower) || QUESTION_WORDS.has(t.lower))) &&
      t.lower !== 'i' &&
      !(/^\d+$/.test(t.raw) && !/-$/.test(text.slice(0, t.start)));
    if (!usable) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < tokens.length) {
      const gap = text.slice(tokens[j]!.end, tokens[j + 1]!.start);
      const nx = tokens[j + 1]!;
      if ((/^[-‐–]?$|^ $|^ & $/.test(gap) && isCapitalised(nx)) || gap === '-') {
        j++;
        continue;
      }
      // "Bank of America": a lower-case connector between two capitalised words (not after an
      // acronym: "CEO of Aerodyne" is a role and a company).
      if (gap === ' ' && CONNECTORS.has(nx.raw) && !/^\p{Lu}{2,}$/u.test(tokens[j]!.raw) && tokens[j + 2] && isCapitalised(tokens[j + 2]!) && text.slice(nx.end, tokens[j + 2]!.start) === ' ') {
        j += 2;
        continue;
      }
      break;
    }
    const start = t.start;
    const end = tokens[j]!.end;
    const core = text.slice(start, end);
    const prev = tokens[i - 1];
    const hasThe = prev?.lower === 'the' && text.slice(prev.end, start) === ' ';
    const words = core.split(/\s+/);
    if (i === j && ROLES.has(t.lower)) {
      i = j + 1;
      continue;
    }
    const personLike = words.length >= 2 && !/\d/.test(core) && !ORG_WORDS.test(core);
    const afterPlacePrep = !!prev && PLACE_PREPS.has(prev.lower);
    let salience = 2;
    if (hasThe || /\d/.test(core)) salience += 1;
    if (afterPlacePrep) salience -= 1;
    mentions.push({ text: hasThe ? `the ${core}` : core, core, proper: true, personLike, start, salience, afterPlacePrep });
    i = j + 1;
  }
  if (mentions.length > 0) return mentions;

  // No names: fall back to "the refund policy"-style noun phrases.
  for (let k = 0; k < tokens.length; k++) {
    const d = tokens[k]!;
    if (!DETERMINERS.has(d.lower)) continue;
    let j = k + 1;
    while (j < tokens.length && j - k <= 4 && !tokens[j]!.stop && text.slice(tokens[j - 1]!.end, tokens[j]!.start) === ' ') j++;
    if (j === k + 1) continue;
    const first = tokens[k + 1]!;
    const core = text.slice(first.start, tokens[j - 1]!.end);
    const det = d.lower === 'the' || d.lower === 'a' || d.lower === 'an' ? 'the' : d.lower === 'my' ? 'my' : 'the';
    mentions.push({ text: `${det} ${core}`, core, proper: false, personLike: false, start: d.start, salience: 1, afterPlacePrep: false });
    k = j - 1;
  }
  return mentions;
}

/** A mention that is only a period ("FY 2026", "Q2 2022"): what a pronoun asks about is never a period. */
const isPeriod = (m: Mention) => findPeriods(m.core).some((p) => p.start === 0 && p.end >= m.core.replace(/[\s,.]+$/, '').length);

function pickTopic(mentions: Mention[]): Mention | undefined {
  let best: Mention | undefined;
  for (const m of mentions) if (!isPeriod(m) && (!best || m.salience > best.salience)) best = m;
  return best;
}

const sameEntity = (a: Mention, b: Mention) => a.core.toLowerCase() === b.core.toLowerCase();

interface Context {
  topic?: Mention;
  /** The most salient recent mention that is not a place (what "where is it going?" asks about). */
  thing?: Mention;
  answerEntity?: Mention;
  person?: Mention;
  lastUser?: string;
  lastUserAskedWho: boolean;
  /** What an earlier follow-up's reference was resolved to ("that publisher" -> Tallow & Reed). */
  focus?: Mention;
}

function analyseHistory(history: ChatTurn[]): Context {
  const ctx: Context = { lastUserAskedWho: false };
  const users = history.filter((t) => t.role === 'user');
  ctx.lastUser = users[users.length - 1]?.content;
  ctx.lastUserAskedWho = /^\s*(?:who|whom|whose|which (?:company|companies|firm|person|people|team|organi[sz]ation|manufacturer|brand|vendor))\b/i.test(
    ctx.lastUser ?? '',
  );
  // The topic is carried by the latest user turn that names something: by name if any of the recent
  // ones does ("that company" in the last question does not replace "the Zephyr-9" before it).
  for (let i = users.length - 1; i >= Math.max(0, users.length - 4) && !ctx.topic; i--) {
    ctx.topic = pickTopic(extractMentions(users[i]!.content).filter((m) => m.proper));
  }
  for (let i = users.length - 1; i >= Math.max(0, users.length - 4) && !ctx.topic; i--) {
    ctx.topic = pickTopic(extractMentions(users[i]!.content));
  }
  for (const turn of recentTexts(history)) {
    ctx.thing = pickTopic(extractMentions(turn.text).filter((m) => m.proper && !m.afterPlacePrep));
    if (ctx.thing) break;
  }
  const lastAssistant = [...history].reverse().find((t) => t.role === 'assistant');
  if (lastAssistant && !mentionsRefusal(lastAssistant.content)) {
    const answer = stripCitationMarkers(lastAssistant.content);
    const ms = extractMentions(answer).filter((m) => m.proper && !(ctx.topic && sameEntity(m, ctx.topic)));
    // After "who/which" the reply is the answer's agent ("published by Tallow & Reed"), not the first name in it.
    ctx.answerEntity = ctx.lastUserAskedWho ? pickAnswerReferent(answer, ctx.lastUser, ms, (m) => ORG_WORDS.test(m.core)) : ms[0];
    if (!ctx.topic) ctx.topic = pickTopic(extractMentions(stripCitationMarkers(lastAssistant.content)));
  }
  // Someone "he"/"she" can refer to: prefer the answer, then the recent turns.
  const recent = [...history].reverse().slice(0, 6);
  for (const turn of recent) {
    const m = extractMentions(stripCitationMarkers(turn.content)).find((x) => x.personLike);
    if (m) {
      ctx.person = m;
      break;
    }
  }
  return ctx;
}

function possessive(mention: string): string {
  return /s$/i.test(mention) ? `${mention}'` : `${mention}'s`;
}

function splice(text: string, start: number, end: number, replacement: string): string {
  const atStart = text.slice(0, start).trim() === '';
  const rep = atStart ? replacement[0]!.toUpperCase() + replacement.slice(1) : replacement;
  return text.slice(0, start) + rep + text.slice(end);
}

const ORG_NOUN = /\b(?:that|this|the same|the)\s+(?:company|firm|manufacturer|maker|organi[sz]ation|business|vendor|supplier|brand|developer|producer)\b/i;
/** "that publisher", "this author": a demonstrative and a noun naming whoever did something. */
const AGENT_NOUN = /\b(?:that|this|the same)\s+([a-z]+(?:er|or|ist|ant|ent))\b/i;
const PERIOD_NOUN = /\b(?:that|this|the same)\s+(?:period|quarter|year|fiscal year|time|month)\b/i;
const EXISTENTIAL = new Set(['is', 'are', 'was', 'were', 'be', 'been', 'isn', 'aren', 'wasn', 'weren']);

/** Recent turns' text, newest first, without citation markers or refusals. */
function recentTexts(history: ChatTurn[]): Array<{ role: ChatTurn['role']; text: string }> {
  return [...history]
    .reverse()
    .slice(0, 6)
    .filter((t) => !mentionsRefusal(t.content))
    .map((t) => ({ role: t.role, text: stripCitationMarkers(t.content) }));
}

/** The organisation "that company" means: the one an answer named (who makes...?), else any recent one. */
function resolveOrganisation(history: ChatTurn[], ctx: Context): Mention | undefined {
  if (ctx.answerEntity && (ctx.lastUserAskedWho || ORG_WORDS.test(ctx.answerEntity.core) || !ctx.answerEntity.personLike)) return ctx.answerEntity;
  for (const turn of recentTexts(history)) {
    const m = extractMentions(turn.text).find((x) => x.proper && (ORG_WORDS.test(x.core) || ORG_WORDS.test(turn.text.slice(x.start, x.start + x.core.length + 30))));
    if (m && !(ctx.topic && sameEntity(m, ctx.topic))) return m;
  }
  return undefined;
}

function resolvePlace(history: ChatTurn[]): Mention | undefined {
  for (const turn of recentTexts(history)) {
    const m = extractMentions(turn.text).find((x) => x.proper && x.afterPlacePrep && !/\d/.test(x.core));
    if (m) return m;
  }
  return undefined;
}

function resolvePeriod(history: ChatTurn[]): string | undefined {
  for (const turn of recentTexts(history)) {
    const [found] = findPeriods(turn.text);
    if (found) return formatPeriod(found);
  }
  return undefined;
}

const NOUN_DETERMINERS = new Set(['a', 'an', 'the', 'its', 'their', 'our', 'his', 'her', 'this', 'that', 'these', 'those']);

/** "that initiative", "this bureau", "those gases": a demonstrative and a common noun. */
const DEMONSTRATIVE_NOUN = /\b(?:that|this|these|those|the same)\s+(\p{Ll}[\p{Ll}-]+)\b/u;

/**
 * What the conversation calls by `noun`, newest turn first: a name that holds the noun ("that
 * bureau" -> "Northern Land Records Bureau"), else the name a sentence says is one ("Harbourlight is
 * a Council-led initiative" -> "that initiative" is Harbourlight): the last name before the noun in
 * its sentence. Periods are never what such a noun means.
 */
function resolveByNoun(history: ChatTurn[], noun: string): Mention | undefined {
  const stem = tokenize(noun)[0]?.stem;
  if (!stem) return undefined;
  for (const turn of recentTexts(history)) {
    const mentions = extractMentions(turn.text).filter((m) => m.proper && !isPeriod(m));
    const holding = mentions.find((m) => tokenize(m.core).some((t) => t.stem === stem));
    if (holding) return holding;
    const tokens = tokenize(turn.text);
    for (const [k, t] of tokens.entries()) {
      if (t.stem !== stem || /^\p{Lu}/u.test(t.raw)) continue;
      // The noun, not a verb of the same spelling ("plans to cut its use"): a determiner shortly before it.
      const lead = tokens.slice(Math.max(0, k - 3), k).map((x) => x.lower);
      const det = lead.findLastIndex((w) => NOUN_DETERMINERS.has(w));
      if (det < 0 || lead.slice(det + 1).includes('to')) continue;
      const sentenceStart = Math.max(0, ...[...turn.text.slice(0, t.start).matchAll(/[.!?]\s/g)].map((m) => m.index + 1));
      // "a Council-led initiative": a name made an adjective describes the noun; it is not what the noun is.
      const before = mentions.filter((m) => m.start >= sentenceStart && m.start + m.core.length <= t.start && !/-\p{Ll}+$/u.test(m.core));
      if (before.length > 0) return before[before.length - 1];
    }
  }
  return undefined;
}

/**
 * "that company", "the same period" and "there" name what they refer to by kind: replaced by the
 * conversation's organisation, period or place; "that initiative" by the name the conversation
 * gave it. Unresolvable ones are left as they are.
 */
function resolveNominals(history: ChatTurn[], f: string): string {
  let out = f;
  const org = ORG_NOUN.exec(out);
  if (org) {
    const target = resolveOrganisation(history, analyseHistory(history));
    if (target) out = splice(out, org.index, org.index + org[0].length, target.core);
  } else {
    // "What else has that publisher printed?" after "Who publishes ...?": the one the answer named.
    const agent = AGENT_NOUN.exec(out);
    const ctx = agent ? analyseHistory(history) : undefined;
    if (agent && ctx?.lastUserAskedWho && ctx.answerEntity) out = splice(out, agent.index, agent.index + agent[0].length, ctx.answerEntity.core);
    else {
      const nominal = DEMONSTRATIVE_NOUN.exec(out);
      const target = nominal && !PERIOD_NOUN.test(nominal[0]) ? resolveByNoun(history, nominal[1]!) : undefined;
      if (nominal && target) out = splice(out, nominal.index, nominal.index + nominal[0].length, target.core);
    }
  }
  const period = PERIOD_NOUN.exec(out);
  if (period) {
    const target = resolvePeriod(history);
    if (target) out = splice(out, period.index, period.index + period[0].length, target);
  }
  const tokens = tokenize(out);
  const i = tokens.findIndex((t) => t.lower === 'there');
  if (i >= 0 && !EXISTENTIAL.has(tokens[i - 1]?.lower ?? '') && !EXISTENTIAL.has(tokens[i + 1]?.lower ?? '') && tokens[i + 1]?.lower !== "'s") {
    const target = resolvePlace(history);
    const t = tokens[i]!;
    if (target) out = splice(out, t.start, t.end, `${PLACE_PREPS.has(tokens[i - 1]?.lower ?? '') ? '' : 'in '}${target.core}`);
  }
  return out;
}

/**
 * The history with each earlier follow-up replaced by what it was condensed to, so a reference
 * resolved once stays resolved: after "What else has that publisher printed?" became "What else has
 * Tallow & Reed printed?", a later "it" finds Tallow & Reed in the user turns, where the topic is read.
 */
function resolvedFocus(history: ChatTurn[]): Mention | undefined {
  let focus: Mention | undefined;
  for (let i = 0; i < history.length; i++) {
    const turn = history[i]!;
    if (turn.role !== 'user' || i === 0) continue;
    // Only the last two exchanges: an older resolution is no longer what the conversation is about.
    if (history.length - i > 4) continue;
    const raw = new Set(extractMentions(turn.content).map((m) => m.core.toLowerCase()));
    const resolved = extractMentions(condenseTurn(history.slice(0, i), turn.content)).find((m) => m.proper && !raw.has(m.core.toLowerCase()));
    if (resolved) focus = resolved;
  }
  return focus;
}

/**
 * For each earlier follow-up of the history (by index), the name its reference was resolved to, when
 * it was resolved to a name the follow-up did not write ("that publisher" -> "Tallow & Reed"). The
 * condense prompt shows these to the model, online and offline alike.
 */
export function resolvedFollowUps(history: ChatTurn[]): Map<number, string> {
  const out = new Map<number, string>();
  for (let i = 1; i < history.length; i++) {
    const turn = history[i]!;
    if (turn.role !== 'user') continue;
    const resolved = condenseQueryOffline(history.slice(0, i), turn.content);
    const raw = new Set(extractMentions(turn.content).map((m) => m.core.toLowerCase()));
    if (extractMentions(resolved).some((m) => m.proper && !raw.has(m.core.toLowerCase()))) out.set(i, resolved);
  }
  return out;
}

export function condenseQueryOffline(history: ChatTurn[], followUp: string): string {
  return condenseTurn(history, followUp, resolvedFocus(history));
}

/** "And how many offers did the bureau make?": a whole question after "and", not an ellipsis. */
const AND_QUESTION = /^and\s+(?=(?:who|whom|whose|what|when|where|why|how|which|is|are|was|were|does|do|did|can|could|has|have|will|would)\s)/i;

// Predicates that only an organisation takes: "when was it founded?" after a turn about its publisher.
const ORG_PREDICATE =
  /\b(?:found(?:ed|s)?|founders?|established|headquarter(?:s|ed)?|incorporated|employ(?:s|ed)?|employees|staff|ceo|owns|owned|acquired?|merged?|subsidiar(?:y|ies))\b/i;

/**
 * One follow-up. `focus`: what an earlier follow-up was resolved to; "it" means it when the follow-up
 * asks what only an organisation has, or when the conversation has no named topic of its own (the
 * user turns name no product), so the thread an answer started is followed past one turn.
 */
function condenseTurn(history: ChatTurn[], followUp: string, focus?: Mention): string {
  const original = followUp.replace(/\s+/g, ' ').trim();
  if (history.length === 0 || original === '') return original;
  // "And what about …?" stays an ellipsis; "And how many … did the bureau make?" is read without its "and".
  if (AND_QUESTION.test(original) && !ELLIPSIS_LEAD.test(original.replace(AND_QUESTION, ''))) {
    const question = original.replace(AND_QUESTION, '');
    return condenseTurn(history, question[0]!.toUpperCase() + question.slice(1), focus);
  }
  const lastUserAt = history.map((t) => t.role).lastIndexOf('user');
  if (lastUserAt >= 0 && YEAR_SHIFT.test(original)) {
    // The previous question as it was searched: itself a follow-up, it is read resolved.
    const previous = condenseTurn(history.slice(0, lastUserAt), history[lastUserAt]!.content);
    const shifted = shiftedQuestion(original, previous);
    if (shifted) return shifted;
  }
  const f = resolveNominals(history, original);

  const tokens = tokenize(f);
  const ownMentions = extractMentions(f).filter((m) => m.proper);
  const firstOwnMention = ownMentions[0]?.start ?? Infinity;

  // Pronouns that need an antecedent from the conversation.
  const pronouns: Array<{ token: Token; index: number }> = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.start > firstOwnMention) break; // "the Zephyr-9 and its range": its antecedent is right there
    const raw = t.raw.toLowerCase();
    // "IT systems": an acronym in capitals is not the pronoun (unless the whole question is in capitals).
    if (t.raw.length > 1 && t.raw === t.raw.toUpperCase() && f !== f.toUpperCase()) continue;
    if (IT.has(raw) || THEY.has(raw) || PERSON.has(raw)) {
      pronouns.push({ token: t, index: i });
      continue;
    }
    if (DEMONSTRATIVE.has(raw)) {
      const next = tokens[i + 1];
      const prev = tokens[i - 1];
      const endsHere = !next || /[?.!,]/.test(f.slice(t.end, next.start));
      if ((endsHere || AUX.has(next.lower)) && (!prev || prev.stop || QUESTION_WORDS.has(prev.lower))) {
        pronouns.push({ token: t, index: i });
      }
    }
  }
  const pronoun = pronouns[0];

  const leadMatch = ELLIPSIS_LEAD.exec(f);
  // A bare fragment question ("How much?") has nothing to search for on its own.
  const fragment = !leadMatch && tokens.length <= 3 && /\?$/.test(f) && ownMentions.length === 0;
  // "that cut" that no name of the conversation holds: the previous question says what it is.
  const unresolvedNominal = f === original && DEMONSTRATIVE_NOUN.test(f) && !PERIOD_NOUN.test(f) && ownMentions.length === 0;
  if (!pronoun && !leadMatch && !fragment) return unresolvedNominal ? withContext(f, analyseHistory(history)) : f;

  const ctx = analyseHistory(history);
  ctx.focus = focus;
  // "it" again, after a follow-up whose "it" was resolved: the same thing, whatever else that turn named.
  const previousUser = lastUserAt >= 0 ? history[lastUserAt]!.content : '';
  const itContinues = !!focus && tokenize(previousUser).some((t) => IT.has(t.raw.toLowerCase()));

  if (pronoun) {
    // Each entity is spelled out once, at its first pronoun; later pronouns for it read naturally.
    const used = new Set<string>();
    let out = f;
    let shift = 0;
    let replaced = 0;
    for (const p of pronouns) {
      const raw = p.token.raw.toLowerCase();
      let target: Mention | undefined;
      if (PERSON.has(raw)) {
        target = ctx.lastUserAskedWho && ctx.answerEntity?.personLike ? ctx.answerEntity : (ctx.person ?? ctx.answerEntity ?? ctx.topic);
      } else if (THEY.has(raw)) target = ctx.lastUserAskedWho ? (ctx.answerEntity ?? ctx.topic) : ctx.topic;
      // "Where is it going?" asks where the thing is: "it" is not a place, nor a noun phrase when a name is at hand.
      else if (ctx.focus && (ORG_PREDICATE.test(f) || !ctx.topic?.proper || itContinues)) target = ctx.focus;
      else target = /^\s*where\b/i.test(f) && (ctx.topic?.afterPlacePrep || !ctx.topic?.proper) ? (ctx.thing ?? ctx.topic) : ctx.topic;
      if (!target || used.has(target.core.toLowerCase())) continue;
      used.add(target.core.toLowerCase());
      const nextTok = tokens[p.index + 1];
      const possessiveForm =
        raw === 'its' || raw === 'their' || raw === 'his' || (raw === 'her' && !!nextTok && !nextTok.stop && !/[?.!,]/.test(f.slice(p.token.end, nextTok.start)));
      const replacement = possessiveForm ? possessive(target.text) : target.text;
      const before = out.length;
      out = splice(out, p.token.start + shift, p.token.end + shift, replacement);
      shift += out.length - before;
      replaced++;
    }
    return replaced > 0 ? out : withContext(f, ctx);
  }

  if (fragment) return withContext(f, ctx);

  // Elliptical follow-up: "And the Zephyr-10?", "And in Germany?", "What about the battery?".
  const topic = ctx.topic;
  const own = ownMentions[0];
  if (own && ctx.lastUser) {
    // Same question, new subject: swap the corresponding mention of the previous question.
    const swapped = extractMentions(ctx.lastUser).find((m) => m.proper && m.afterPlacePrep === own.afterPlacePrep);
    if (swapped && !sameEntity(swapped, own)) {
      const q = ctx.lastUser;
      return (q.slice(0, swapped.start) + own.core + q.slice(swapped.start + swapped.core.length))
        .replace(/\s+/g, ' ')
        .trim();
    }
    return withContext(f, ctx);
  }
  const prepLead = /^and\s+(for|in|with|on|at|during|after|before|without)\s+/i.exec(f);
  if (prepLead && ctx.lastUser) {
    // "And for digital products?" -> the previous question, narrowed the same way.
    const rest = f.slice(prepLead[0].length).replace(/[?.!\s]+$/, '');
    return `${ctx.lastUser.replace(/\s+/g, ' ').trim().replace(/[?.!\s]+$/, '')} ${prepLead[1]!.toLowerCase()} ${rest}?`;
  }
  if (topic) {
    const rest = f.slice(leadMatch![0].length).replace(/[?.!\s]+$/, '');
    const lead = /about/i.test(leadMatch![0]) ? leadMatch![0].trim().replace(/^and\s+/i, '') : 'What about';
    const head = lead[0]!.toUpperCase() + lead.slice(1);
    return `${head} ${rest} of ${topic.text}?`;
  }
  return withContext(f, ctx);
}

const NUMBER_WORDS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };
/** "two years later", "a year earlier", "the following year", "the year before": a shift of the period asked. */
const YEAR_SHIFT =
  /\b(?:(a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d{1,2})\s+(?:fiscal\s+)?years?\s+(later|after|afterwards|on|earlier|before|prior|ago)|the\s+(following|next|previous|prior|preceding)\s+(?:fiscal\s+)?year|the\s+(?:fiscal\s+)?year\s+(after|before))\b/i;

/**
 * "And two years later?" after "How many … in FY 2020?": the previous question, its years moved by
 * the shift ("… in FY 2022?"). Only for a follow-up that is that shift and little else.
 */
function shiftedQuestion(f: string, lastUser: string | undefined): string | undefined {
  const m = YEAR_SHIFT.exec(f);
  if (!m || !lastUser) return undefined;
  const rest = f.replace(m[0], ' ').replace(ELLIPSIS_LEAD, ' ').replace(/[?.!,\s]+/g, ' ').trim();
  if (tokenize(rest).some((t) => !t.stop)) return undefined;
  const count = m[1] ? (NUMBER_WORDS[m[1].toLowerCase()] ?? Number(m[1])) : 1;
  const later = /^(?:later|after|afterwards|on|following|next)$/i.test(m[2] ?? m[3] ?? m[4] ?? '');
  const delta = later ? count : -count;
  const periods = findPeriods(lastUser).filter((p) => p.year !== null);
  if (periods.length === 0) return undefined;
  let out = lastUser;
  for (const p of [...periods].sort((a, b) => b.start - a.start)) {
    const text = out.slice(p.start, p.end);
    const year = p.year!;
    // Written as four digits ("FY 2020") or two ("FY20"): the same form, moved.
    const moved = text.includes(String(year))
      ? text.replace(String(year), String(year + delta))
      : text.replace(String(year % 100).padStart(2, '0'), String((year + delta) % 100).padStart(2, '0'));
    out = out.slice(0, p.start) + moved + out.slice(p.end);
  }
  return out.replace(/\s+/g, ' ').trim();
}

/** Nothing to substitute: keep the follow-up and add the previous question as context. */
function withContext(f: string, ctx: Context): string {
  if (!ctx.lastUser) return f;
  return `${f} (${ctx.lastUser.replace(/\s+/g, ' ').trim()})`;
}
