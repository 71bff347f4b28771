/**
 * A local fake of the OpenAI Realtime API (GA shape, WebSocket transport) on loopback, as strict as
 * the real API where the gateway can get it wrong, so the voice gateway runs against the real wire
 * protocol with no network (docs/voice.md, testing voice); test/realtime/voice-real-api.test.ts runs
 * the gateway through each real-API behaviour reproduced here.
 *
 * Connection: `ws://127.0.0.1:<port>/v1/realtime?model=…` with `Authorization: Bearer <apiKey>`;
 * a wrong key gets HTTP 401 with OpenAI's `invalid_api_key` body, `fault: {kind:'forbidden'}` a 403.
 * An `OpenAI-Beta` header gets `beta_api_shape_disabled` and close 4000, like OpenAI.
 *
 * Strictness: `session.update` is validated against the GA session type (unknown fields, wrong
 * rate/format/voice refused with the real `error` shapes; the session keeps its old config);
 * `response.create` while a response is active is refused (`conversation_already_has_active_response`);
 * `response.cancel` with none active is refused (`response_cancel_not_active`); a truncate past the
 * audio the item has is refused and a truncate deletes the item's transcript, as OpenAI does.
 *
 * A turn: appended audio goes through an RMS energy detector (`speech_started` when a 20 ms window
 * is loud, `speech_stopped` + `committed` after `silenceMs` of quiet); then the scripted user
 * transcript and, by the turn's kind (`turns`): a `search_knowledge_base` call (`tool`), an answer
 * with no call (`no_tool`), two calls in one response (`two_tools`), a spoken preamble then a call
 * (`preamble`), a `failed` response, or an answer cut short (`incomplete`). Every response starts
 * with `rate_limits.updated`. Audio deltas go out at `audioSpeed` times real time (the real API
 * bursts). Speech during an answer, or `response.cancel`, sends the real cancel sequence.
 *
 * Faults (`fault()` or `script.fault`): `refuse` (HTTP 503 at the upgrade), `forbidden` (403),
 * `error` (an `error` event, then close 1011), `drop` (socket destroyed after N audio deltas),
 * `stall` (silence after N audio deltas). `pace` scales every delay (1 = real time, 0 = at once).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { endianness } from 'node:os';
import { WebSocketServer, type WebSocket } from 'ws';
import { clientItemSchema, realtimeValidationError, ZRealtimeSession } from './realtime-session-schema';

export const FAKE_REALTIME_API_KEY = 'sk-fake-realtime';
const RATE = 24_000;

export type FakeRealtimeFault =
  | { kind: 'refuse' }
  | { kind: 'forbidden' }
  | { kind: 'error'; afterDeltas?: number }
  | { kind: 'drop'; afterDeltas?: number }
  | { kind: 'stall'; afterDeltas?: number };

export type FakeTurnKind = 'tool' | 'no_tool' | 'two_tools' | 'preamble' | 'failed' | 'incomplete';

export type FakeRealtimeScript = {
  /** What the "user said", one per turn (the last one repeats). */
  userTranscripts?: string[];
  /** What the model does with each turn (the last one repeats). Default `tool`. */
  turns?: FakeTurnKind[];
  /** The query the model passes to search_knowledge_base (default: the user transcript). */
  toolQuery?: (transcript: string, call: number) => string;
  /** The assistant's answer from the function outputs (default: each output's first passage's first sentence, cited). */
  answer?: (functionOutput: string, outputs: string[]) => string;
  /** What the model says when it answers without the tool. */
  smallTalk?: string;
  /** What the model says before calling the tool (`preamble` turns). */
  preamble?: string;
  /** Length of the spoken answer in ms (default 1200) and of one audio delta (default 100). */
  replyMs?: number;
  chunkMs?: number;
  toneHz?: number;
  /** Audio deltas go out this many times faster than real time (default 1: paced; the real API bursts). */
  audioSpeed?: number;
  /** The tool-call response's `response.done` comes this long after its arguments (real ms, not paced). */
  toolResponseDoneDelayMs?: number;
  /** The user transcript's `completed` comes this long after the turn ends (real ms; late: after the answer). */
  userTranscriptDelayMs?: number;
  /** Time factor for every delay (1 = real time; 0 = immediately). Default 1. */
  pace?: number;
  /** RMS (of 32768) above which a 20 ms window counts as speech. Default 600. */
  speechRms?: number;
  /** Quiet after speech that ends the turn. Default 400 ms. */
  silenceMs?: number;
  fault?: FakeRealtimeFault;
  /** Write a 32-bit global sequence number into the first 4 bytes of every audio delta (benchmarks). */
  stampDeltas?: boolean;
};

export type FakeTruncation = { item_id: string; content_index: number; audio_end_ms: number };

/** The server-side conversation, as the model sees it (what `truncate` and seeding change). */
export type FakeItem = {
  id: string;
  type: 'message' | 'function_call' | 'function_call_output';
  role?: 'user' | 'assistant' | 'system';
  /** Text of the item as the model has it: typed text, transcript, or null once truncated away. */
  text: string | null;
  /** Assistant audio sent for this item, ms. */
  audioMs: number;
  /** The call id of a function_call item. */
  callId?: string;
  /** Added by the client (`conversation.item.create`), not produced by the model or the microphone. */
  fromClient: boolean;
};

export type FakeRealtimeSession = {
  id: string;
  headers: IncomingHttpHeaders;
  model: string | null;
  /** The last `session` object the client sent in `session.update` that was accepted. */
  sessionConfig: any;
  /** Every client event except the audio appends (those are in inputAudio). */
  clientEvents: any[];
  /** Every server event sent, audio deltas summarised as `{type, bytes}`. */
  serverEvents: any[];
  /** `error` events sent (also in serverEvents). */
  errors: any[];
  conversation: FakeItem[];
  inputAudio(): Buffer;
  /** Bytes of pcm in each `input_audio_buffer.append`, in order. */
  inputAppends(): number[];
  toolCalls: { call_id: string; query: string; output: string | null }[];
  truncations: FakeTruncation[];
  /** Resolves when the socket closes, with the close code. */
  closed: Promise<number>;
  isOpen(): boolean;
  /** Destroys the socket without a close frame, as a network drop does. */
  drop(): void;
};

export type FakeRealtime = {
  /** ws URL of the endpoint (give it to the gateway as OPENAI_REALTIME_URL). */
  url: string;
  apiKey: string;
  sessions: FakeRealtimeSession[];
  /** The next session to connect (or the newest, if one connected after the last call). */
  nextSession(): Promise<FakeRealtimeSession>;
  /** Fault for sessions that connect from now on (null clears). */
  fault(f: FakeRealtimeFault | null): void;
  setScript(s: FakeRealtimeScript): void;
  /** Send time (performance.now()) of each stamped delta, by stamp. */
  deltaSentAt: Map<number, number>;
  close(): Promise<void>;
};

const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

/** A pcm16 tone, `ms` long, at `hz`, amplitude about a third of full scale. */
export function tonePcm16(ms: number, hz = 440, startSample = 0, amplitude = 10_000): Buffer {
  const n = Math.round((RATE * ms) / 1000);
  const out = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) out.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * hz * (startSample + i)) / RATE)), i * 2);
  return out;
}

export function silencePcm16(ms: number): Buffer {
  return Buffer.alloc(Math.round((RATE * ms) / 1000) * 2);
}

const LITTLE_ENDIAN = endianness() === 'LE';

export function rmsPcm16(pcm: Buffer): number {
  const n = Math.floor(pcm.length / 2);
  if (n === 0) return 0;
  let sum = 0;
  if (LITTLE_ENDIAN && pcm.byteOffset % 2 === 0) {
    // The voice bench runs 10,000 frames a second through here: a typed view is 5x cheaper than a
    // call per sample, and the fake's own CPU delays the receive stamps the bench takes in it.
    const samples = new Int16Array(pcm.buffer, pcm.byteOffset, n);
    for (let i = 0; i < n; i++) sum += samples[i]! * samples[i]!;
  } else {
    for (let i = 0; i < n; i++) {
      const s = pcm.readInt16LE(i * 2);
      sum += s * s;
    }
  }
  return Math.sqrt(sum / n);
}

/**
 * Frequency of a pure tone in pcm16 assumed to be at `rate`, from its zero crossings over the loud
 * part. Audio sent at another rate than it claims reads as a proportionally different frequency.
 */
export function dominantFrequencyHz(pcm: Buffer, rate = RATE, minAbs = 300): number {
  const n = Math.floor(pcm.length / 2);
  let first = -1;
  let last = -1;
  for (let i = 0; i < n; i++) {
    if (Math.abs(pcm.readInt16LE(i * 2)) >= minAbs) {
      if (first < 0) first = i;
      last = i;
    }
  }
  if (first < 0 || last <= first) return 0;
  let crossings = 0;
  let prev = 0;
  for (let i = first; i <= last; i++) {
    const v = pcm.readInt16LE(i * 2);
    if (v === 0) continue;
    if (prev !== 0 && Math.sign(v) !== Math.sign(prev)) crossings++;
    prev = v;
  }
  return crossings / 2 / ((last - first + 1) / rate);
}

function defaultAnswer(output: string): string {
  let parsed: any;
  try {
    parsed = JSON.parse(output);
  } catch {
    return 'I could not read the knowledge base.';
  }
  const first = parsed?.passages?.[0];
  if (!first) return typeof parsed?.answer_if_nothing_found === 'string' ? parsed.answer_if_nothing_found : "I don't know.";
  const sentence = String(first.text).replace(/\s+/g, ' ').trim().match(/^.*?[.!?](\s|$)/)?.[0]?.trim() ?? String(first.text).slice(0, 120);
  return `${sentence} [${first.marker ?? 1}]`;
}

/** The default answer: each tool output's first passage's first sentence, with its marker. */
function defaultAnswers(outputs: string[]): string {
  const parts = outputs.map(defaultAnswer);
  const found = parts.filter((p) => /\[\d+\]$/.test(p));
  return found.length > 0 ? found.join(' ') : parts[0] ?? "I don't know.";
}

type Response = {
  id: string;
  cancelled: boolean;
  /** Items of this response, in output order. */
  output: any[];
  /** The message item being spoken, if any. */
  speaking: { itemId: string; outputIndex: number; spoken: string; stop(): void } | null;
  /** Finishes the response early (cancel): sends its response.done. */
  finishEarly: ((reason: 'turn_detected' | 'client_cancelled') => void) | null;
};

export type FakeRealtimeOptions = {
  port?: number;
  script?: FakeRealtimeScript;
  apiKey?: string;
  /** Clock for `deltaSentAt` and `onInputAudio` (default performance.now; benchmarks pass a system-wide one). */
  clock?: () => number;
  /**
   * Called with every appended audio frame and the time its bytes reached the socket (the raw
   * 'data' event that completed the frame, before `ws` parsed it) (benchmarks).
   */
  onInputAudio?: (pcm: Buffer, arrivedAt: number) => void;
  /** false: keep no audio or event log per session (long benchmarks; tests read them). Default true. */
  record?: boolean;
};

export async function startFakeRealtime(opts: FakeRealtimeOptions = {}): Promise<FakeRealtime> {
  const apiKey = opts.apiKey ?? FAKE_REALTIME_API_KEY;
  const clock = opts.clock ?? (() => performance.now());
  const record = opts.record ?? true;
  let script: FakeRealtimeScript = opts.script ?? {};
  let pendingFault: FakeRealtimeFault | null = null;
  const sessions: FakeRealtimeSession[] = [];
  const waiters: ((s: FakeRealtimeSession) => void)[] = [];
  let handedOut = 0;
  let stamp = 0;
  const deltaSentAt = new Map<number, number>();
  const sockets = new Set<Socket>();

  const http = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'not found' } }));
  });
  http.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 16 * 1024 * 1024 });

  http.on('upgrade', (req: IncomingMessage, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const reject = (status: number, error: Record<string, unknown>) => {
      const body = JSON.stringify({ error: { param: null, ...error } });
      const text = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 503: 'Service Unavailable' }[status] ?? 'Error';
      socket.end(`HTTP/1.1 ${status} ${text}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    };
    if (url.pathname !== '/v1/realtime') return reject(404, { type: 'invalid_request_error', code: null, message: 'not found' });
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      const shown = String(req.headers.authorization ?? '').replace(/^Bearer /, '').slice(0, 6);
      return reject(401, {
        type: 'invalid_request_error',
        code: 'invalid_api_key',
        message: `Incorrect API key provided: ${shown}***. You can find your API key at https://platform.openai.com/account/api-keys.`,
      });
    }
    const fault = pendingFault ?? script.fault ?? null;
    if (fault?.kind === 'refuse') return reject(503, { type: 'server_error', code: null, message: 'The server is overloaded or not ready yet.' });
    if (fault?.kind === 'forbidden') {
      return reject(403, { type: 'invalid_request_error', code: 'unsupported_country_region_territory', message: 'Country, region, or territory not supported' });
    }
    // Stamped before ws's own listener (prepended), and ws emits every message a chunk completes
    // synchronously (allowSynchronousEvents), so a message's arrival is its last chunk's.
    const arrival = { at: 0 };
    if (opts.onInputAudio) socket.prependListener('data', () => void (arrival.at = clock()));
    wss.handleUpgrade(req, socket, head, (ws) => runSession(ws, req, url.searchParams.get('model'), fault, arrival));
  });

  function runSession(ws: WebSocket, req: IncomingMessage, model: string | null, fault: FakeRealtimeFault | null, arrival: { at: number }) {
    const s = { ...script };
    const pace = s.pace ?? 1;
    const chunkMs = s.chunkMs ?? 100;
    const speechRms = s.speechRms ?? 600;
    const silenceMs = s.silenceMs ?? 400;
    const audioSpeed = s.audioSpeed ?? 1;
    const transcripts = s.userTranscripts?.length ? s.userTranscripts : ['How long can the Zephyr-9 fly?'];
    const turnKinds: FakeTurnKind[] = s.turns?.length ? s.turns : ['tool'];
    const audio: Buffer[] = [];
    let audioMs = 0;
    let pendingInputBytes = 0;
    let speaking = false;
    let quietMs = 0;
    let turn = 0;
    let userItem: string | null = null;
    let deltasSent = 0;
    let stalled = false;
    const timers = new Set<NodeJS.Timeout>();
    let active: Response | null = null;
    /** Function calls the model made and has not yet answered from, with the client's outputs. */
    let calls: { call_id: string; output: string | null }[] = [];
    /** The answer after this tool call is cut short (`incomplete` turns). */
    let nextAnswerIncomplete = false;
    let closeResolve!: (code: number) => void;

    const session: FakeRealtimeSession = {
      id: newId('sess'),
      headers: req.headers,
      model,
      sessionConfig: null,
      clientEvents: [],
      serverEvents: [],
      errors: [],
      conversation: [],
      inputAudio: () => Buffer.concat(audio),
      inputAppends: () => audio.map((a) => a.length),
      toolCalls: [],
      truncations: [],
      closed: new Promise<number>((r) => (closeResolve = r)),
      isOpen: () => ws.readyState === ws.OPEN,
      drop: () => ws.terminate(),
    };
    sessions.push(session);
    waiters.shift()?.(session);

    const later = (ms: number, fn: () => void, paced = true) => {
      const t = setTimeout(
        () => {
          timers.delete(t);
          fn();
        },
        paced ? ms * pace : ms,
      );
      timers.add(t);
    };
    const send = (event: Record<string, unknown>) => {
      if (stalled || ws.readyState !== ws.OPEN) return;
      const full = { event_id: newId('event'), ...event };
      if (record) session.serverEvents.push(event.type === 'response.output_audio.delta' ? { type: event.type, bytes: (event.delta as string).length } : full);
      if (event.type === 'error') session.errors.push(full);
      ws.send(JSON.stringify(full));
    };
    const refuse = (code: string, message: string, param: string | null, eventId: string | null) =>
      send({ type: 'error', error: { type: 'invalid_request_error', code, message, param, event_id: eventId } });
    const fatal = (code: string, message: string, closeCode: number) => {
      send({ type: 'error', error: { type: 'invalid_request_error', code, message, param: null, event_id: null } });
      ws.close(closeCode, `invalid_request_error.${code}`.slice(0, 120));
    };
    const item = (id: string) => session.conversation.find((i) => i.id === id);
    ws.on('close', (code) => {
      for (const t of timers) clearTimeout(t);
      active?.speaking?.stop();
      closeResolve(code);
    });
    ws.on('error', () => {});

    if (req.headers['openai-beta']) {
      fatal('beta_api_shape_disabled', 'The Realtime API beta shape has been retired; remove the OpenAI-Beta header.', 4000);
      return;
    }
    const defaults = {
      type: 'realtime',
      model,
      output_modalities: ['audio'],
      audio: { input: { format: { type: 'audio/pcm', rate: RATE }, turn_detection: { type: 'server_vad' } }, output: { format: { type: 'audio/pcm', rate: RATE }, voice: 'marin' } },
      tools: [],
    };
    send({ type: 'session.created', session: { id: session.id, object: 'realtime.session', ...defaults } });

    ws.on('message', (data, isBinary) => {
      if (isBinary) return fatal('invalid_message', 'Binary frames are not supported', 1003);
      let event: any;
      try {
        event = JSON.parse(String(data));
      } catch {
        return refuse('invalid_json', "We could not parse the JSON body of your request.", null, null);
      }
      if (record && event.type !== 'input_audio_buffer.append') session.clientEvents.push(event);
      const eventId = typeof event.event_id === 'string' ? event.event_id : null;
      switch (event.type) {
        case 'session.update':
          return onSessionUpdate(event.session, eventId);
        case 'input_audio_buffer.append':
          return onAudio(String(event.audio ?? ''));
        case 'conversation.item.create':
          return onItemCreate(event.item, eventId);
        case 'response.create':
          return onResponseCreate(eventId);
        case 'conversation.item.truncate':
          return onTruncate(event, eventId);
        case 'response.cancel':
          if (!active) return refuse('response_cancel_not_active', 'Cancellation failed: no active response found.', null, eventId);
          return cancel('client_cancelled');
        case 'input_audio_buffer.commit':
          if (pendingInputBytes < RATE * 2 * 0.1) {
            return refuse('input_audio_buffer_commit_empty', 'Error committing input audio buffer: buffer too small. Expected at least 100ms of audio.', null, eventId);
          }
          pendingInputBytes = 0;
          return;
        case 'input_audio_buffer.clear':
          pendingInputBytes = 0;
          return send({ type: 'input_audio_buffer.cleared' });
        default:
          return refuse('invalid_value', `Invalid value: '${String(event.type).slice(0, 60)}'. Supported values are: 'session.update', 'input_audio_buffer.append', 'input_audio_buffer.commit', 'input_audio_buffer.clear', 'conversation.item.create', 'conversation.item.truncate', 'conversation.item.delete', 'conversation.item.retrieve', 'response.create', 'response.cancel'.`, 'type', eventId);
      }
    });

    function onSessionUpdate(cfg: unknown, eventId: string | null) {
      const problem = realtimeValidationError(ZRealtimeSession, cfg, 'session', eventId);
      // Like OpenAI: the update is refused as a whole and the session keeps its previous config.
      if (problem) return send({ type: 'error', error: problem });
      session.sessionConfig = cfg;
      send({ type: 'session.updated', session: { id: session.id, object: 'realtime.session', ...defaults, ...(cfg as object) } });
      if (fault?.kind === 'error' && fault.afterDeltas === undefined) {
        send({ type: 'error', error: { type: 'server_error', code: 'server_error', message: 'The server had an error', param: null, event_id: null } });
        ws.close(1011, 'server_error');
      }
    }

    function onItemCreate(raw: any, eventId: string | null) {
      const problem = realtimeValidationError(clientItemSchema(raw), raw, 'item', eventId);
      if (problem) return send({ type: 'error', error: problem });
      if (raw.id && item(raw.id)) return refuse('item_id_already_exists', `Item with id '${raw.id}' already exists.`, 'item.id', eventId);
      const id = raw.id ?? newId('item');
      if (raw.type === 'function_call_output') {
        const call = calls.find((c) => c.call_id === raw.call_id);
        if (!session.conversation.some((i) => i.type === 'function_call' && i.callId === raw.call_id)) {
          return refuse('invalid_value', `Tool call ID '${raw.call_id}' not found in conversation.`, 'item.call_id', eventId);
        }
        if (call) call.output = raw.output;
        const logged = session.toolCalls.find((c) => c.call_id === raw.call_id);
        if (logged) logged.output = raw.output;
        session.conversation.push({ id, type: 'function_call_output', text: raw.output, audioMs: 0, fromClient: true });
      } else {
        const text = raw.content.map((c: any) => c.text ?? c.transcript ?? '').join('');
        session.conversation.push({ id, type: 'message', role: raw.role, text, audioMs: 0, fromClient: true });
      }
      const full = { ...raw, id, object: 'realtime.item', status: 'completed' };
      send({ type: 'conversation.item.added', previous_item_id: null, item: full });
      send({ type: 'conversation.item.done', previous_item_id: null, item: full });
    }

    function onTruncate(event: any, eventId: string | null) {
      const it = item(String(event.item_id));
      if (!it || it.type !== 'message' || it.role !== 'assistant') {
        return refuse('invalid_value', `Item with item_id '${String(event.item_id)}' not found or is not an assistant message.`, 'item_id', eventId);
      }
      if (event.content_index !== 0) return refuse('invalid_value', 'Invalid content index.', 'content_index', eventId);
      const end = Number(event.audio_end_ms);
      if (!Number.isInteger(end) || end < 0) return refuse('invalid_type', "Invalid type for 'audio_end_ms': expected an integer.", 'audio_end_ms', eventId);
      if (end > it.audioMs) {
        return refuse('invalid_value', `Audio content of ${Math.round(it.audioMs)}ms is already shorter than ${end}ms`, 'audio_end_ms', eventId);
      }
      const t = { item_id: it.id, content_index: 0, audio_end_ms: end };
      session.truncations.push(t);
      // OpenAI drops the item's transcript so the model never "remembers" words the visitor did not hear.
      it.text = null;
      it.audioMs = end;
      send({ type: 'conversation.item.truncated', ...t });
    }

    function onAudio(b64: string) {
      const pcm = Buffer.from(b64, 'base64');
      if (pcm.length % 2 !== 0) return refuse('invalid_value', 'Invalid audio: pcm16 needs an even number of bytes.', 'audio', null);
      if (record) audio.push(pcm);
      opts.onInputAudio?.(pcm, arrival.at);
      pendingInputBytes += pcm.length;
      const window = (RATE / 50) * 2;
      for (let off = 0; off < pcm.length; off += window) {
        const part = pcm.subarray(off, Math.min(pcm.length, off + window));
        const ms = (part.length / 2 / RATE) * 1000;
        const loud = rmsPcm16(part) >= speechRms;
        if (loud && !speaking) {
          speaking = true;
          quietMs = 0;
          userItem = newId('item');
          send({ type: 'input_audio_buffer.speech_started', audio_start_ms: Math.round(audioMs), item_id: userItem });
          const td = session.sessionConfig?.audio?.input?.turn_detection;
          if (active && td?.interrupt_response !== false) cancel('turn_detected');
        } else if (speaking) {
          quietMs = loud ? 0 : quietMs + ms;
          if (quietMs >= silenceMs) {
            speaking = false;
            endUserTurn();
          }
        }
        audioMs += ms;
      }
    }

    function endUserTurn() {
      const id = userItem!;
      pendingInputBytes = 0;
      send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: Math.round(audioMs), item_id: id });
      const previous = session.conversation.at(-1)?.id ?? null;
      send({ type: 'input_audio_buffer.committed', previous_item_id: previous, item_id: id });
      const userEntry: FakeItem = { id, type: 'message', role: 'user', text: null, audioMs: 0, fromClient: false };
      session.conversation.push(userEntry);
      const it = { id, type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_audio', transcript: null }] };
      send({ type: 'conversation.item.added', previous_item_id: previous, item: it });
      send({ type: 'conversation.item.done', previous_item_id: previous, item: it });
      const text = transcripts[Math.min(turn, transcripts.length - 1)]!;
      const kind = turnKinds[Math.min(turn, turnKinds.length - 1)]!;
      turn++;
      // Transcription runs beside the response: its events may come before or after the answer's.
      const transcribe = () => {
        for (const w of text.split(/(?<=\s)/)) send({ type: 'conversation.item.input_audio_transcription.delta', item_id: id, content_index: 0, delta: w });
        userEntry.text = text;
        send({ type: 'conversation.item.input_audio_transcription.completed', item_id: id, content_index: 0, transcript: text, usage: { type: 'duration', seconds: 1 } });
      };
      if (s.userTranscriptDelayMs !== undefined) later(s.userTranscriptDelayMs, transcribe, false);
      else later(20, transcribe);
      // With server VAD and create_response, the model answers the turn by itself.
      const td = session.sessionConfig?.audio?.input?.turn_detection;
      if (td && td.create_response === false) return;
      later(50, () => {
        if (!active) respond(kind, text);
      });
    }

    function beginResponse(): Response {
      const r: Response = { id: newId('resp'), cancelled: false, output: [], speaking: null, finishEarly: null };
      active = r;
      send({ type: 'response.created', response: { id: r.id, object: 'realtime.response', status: 'in_progress', status_details: null, output: [], conversation_id: 'conv_fake', output_modalities: ['audio'], usage: null } });
      send({
        type: 'rate_limits.updated',
        rate_limits: [
          { name: 'requests', limit: 5000, remaining: 4999, reset_seconds: 0.012 },
          { name: 'tokens', limit: 40_000, remaining: 38_976, reset_seconds: 1.536 },
        ],
      });
      return r;
    }

    function finishResponse(r: Response, status: 'completed' | 'cancelled' | 'failed' | 'incomplete', details: any = null) {
      if (active === r) active = null;
      const usage =
        status === 'failed'
          ? null
          : { total_tokens: 180, input_tokens: 120, output_tokens: 60, input_token_details: { text_tokens: 100, audio_tokens: 20, cached_tokens: 64 }, output_token_details: { text_tokens: 15, audio_tokens: 45 } };
      send({ type: 'response.done', response: { id: r.id, object: 'realtime.response', status, status_details: details, output: r.output, conversation_id: 'conv_fake', output_modalities: ['audio'], usage } });
    }

    function respond(kind: FakeTurnKind, transcript: string) {
      if (kind === 'failed') {
        const r = beginResponse();
        later(30, () => finishResponse(r, 'failed', { type: 'failed', error: { type: 'server_error', code: 'server_error' } }));
        return;
      }
      if (kind === 'no_tool') return void speakResponse(s.smallTalk ?? "You're welcome! Ask me anything about our products.", 'completed');
      const queries = kind === 'two_tools' ? [0, 1].map((n) => (s.toolQuery ? s.toolQuery(transcript, n) : transcript)) : [s.toolQuery ? s.toolQuery(transcript, 0) : transcript];
      nextAnswerIncomplete = kind === 'incomplete';
      const r = beginResponse();
      const callTools = () => {
        if (r.cancelled) return;
        calls = [];
        for (const query of queries) {
          const itemId = newId('item');
          const call_id = newId('call');
          const args = JSON.stringify({ query });
          const outputIndex = r.output.length;
          const it = { id: itemId, object: 'realtime.item', type: 'function_call', status: 'in_progress', name: 'search_knowledge_base', call_id, arguments: '' };
          session.toolCalls.push({ call_id, query, output: null });
          calls.push({ call_id, output: null });
          session.conversation.push({ id: itemId, type: 'function_call', text: args, audioMs: 0, fromClient: false, callId: call_id });
          send({ type: 'response.output_item.added', response_id: r.id, output_index: outputIndex, item: it });
          send({ type: 'conversation.item.added', previous_item_id: null, item: it });
          send({ type: 'response.function_call_arguments.delta', response_id: r.id, item_id: itemId, output_index: outputIndex, call_id, delta: args });
          send({ type: 'response.function_call_arguments.done', response_id: r.id, item_id: itemId, output_index: outputIndex, call_id, name: 'search_knowledge_base', arguments: args });
          const done = { ...it, status: 'completed', arguments: args };
          send({ type: 'response.output_item.done', response_id: r.id, output_index: outputIndex, item: done });
          send({ type: 'conversation.item.done', previous_item_id: null, item: done });
          r.output.push(done);
        }
        const finish = () => {
          if (!r.cancelled) finishResponse(r, 'completed');
        };
        r.finishEarly = (reason) => finishResponse(r, 'cancelled', { type: 'cancelled', reason });
        if (s.toolResponseDoneDelayMs) later(s.toolResponseDoneDelayMs, finish, false);
        else finish();
      };
      if (kind === 'preamble') speakItem(r, s.preamble ?? 'Let me look that up.', 600, false, callTools);
      else callTools();
    }

    function onResponseCreate(eventId: string | null) {
      if (active) {
        return refuse('conversation_already_has_active_response', `Conversation already has an active response in progress: ${active.id}. Wait until the response is finished before creating a new one.`, null, eventId);
      }
      const outputs = calls.filter((c) => c.output !== null).map((c) => c.output!);
      calls = [];
      if (outputs.length === 0) return void speakResponse(s.smallTalk ?? "You're welcome! Ask me anything about our products.", 'completed');
      const text = s.answer ? s.answer(outputs[0]!, outputs) : defaultAnswers(outputs);
      const incomplete = nextAnswerIncomplete;
      nextAnswerIncomplete = false;
      speakResponse(text, incomplete ? 'incomplete' : 'completed');
    }

    function speakResponse(text: string, status: 'completed' | 'incomplete') {
      const r = beginResponse();
      speakItem(r, text, s.replyMs ?? 1200, status === 'incomplete', () => {
        if (status === 'incomplete') finishResponse(r, 'incomplete', { type: 'incomplete', reason: 'max_output_tokens' });
        else finishResponse(r, 'completed');
      });
    }

    /** One spoken message item in response `r`: audio and transcript deltas, then its done events. */
    function speakItem(r: Response, text: string, replyMs: number, cutShort: boolean, then: () => void) {
      const itemId = newId('item');
      const outputIndex = r.output.length;
      const entry: FakeItem = { id: itemId, type: 'message', role: 'assistant', text: '', audioMs: 0, fromClient: false };
      session.conversation.push(entry);
      const it = { id: itemId, object: 'realtime.item', type: 'message', role: 'assistant', status: 'in_progress', content: [] };
      send({ type: 'response.output_item.added', response_id: r.id, output_index: outputIndex, item: it });
      send({ type: 'conversation.item.added', previous_item_id: null, item: it });
      send({ type: 'response.content_part.added', response_id: r.id, item_id: itemId, output_index: outputIndex, content_index: 0, part: { type: 'audio', transcript: '' } });
      const chunks = Math.max(1, Math.ceil(replyMs / chunkMs));
      const sendChunks = cutShort ? Math.max(1, Math.floor(chunks / 2)) : chunks;
      const words = text.split(/(?<=\s)/);
      const ev = { response_id: r.id, item_id: itemId, output_index: outputIndex, content_index: 0 };
      let i = 0;
      let stopped = false;
      const closeItem = (status: 'completed' | 'incomplete') => {
        const spoken = speakingState.spoken;
        entry.text = entry.text === null ? null : spoken;
        send({ type: 'response.output_audio.done', ...ev });
        send({ type: 'response.output_audio_transcript.done', ...ev, transcript: spoken });
        send({ type: 'response.content_part.done', ...ev, part: { type: 'audio', transcript: spoken } });
        const done = { ...it, status, content: [{ type: 'output_audio', transcript: spoken }] };
        send({ type: 'response.output_item.done', response_id: r.id, output_index: outputIndex, item: done });
        send({ type: 'conversation.item.done', previous_item_id: null, item: done });
        r.output.push(done);
        r.speaking = null;
      };
      const speakingState = {
        itemId,
        outputIndex,
        spoken: '',
        stop: () => {
          stopped = true;
        },
      };
      r.speaking = speakingState;
      r.finishEarly = (reason) => {
        stopped = true;
        closeItem('incomplete');
        finishResponse(r, 'cancelled', { type: 'cancelled', reason });
      };
      const tick = () => {
        if (stopped || r.cancelled || ws.readyState !== ws.OPEN) return;
        if (i < sendChunks) {
          const f = fault && fault.kind !== 'refuse' && fault.kind !== 'forbidden' ? fault : null;
          if (f && f.afterDeltas !== undefined && deltasSent >= f.afterDeltas) {
            if (f.kind === 'drop') return void ws.terminate();
            if (f.kind === 'stall') return void (stalled = true);
            if (f.kind === 'error') {
              send({ type: 'error', error: { type: 'server_error', code: 'server_error', message: 'The server had an error while processing your request', param: null, event_id: null } });
              return void ws.close(1011, 'server_error');
            }
          }
          const pcm = tonePcm16(chunkMs, s.toneHz ?? 440, i * (RATE / 1000) * chunkMs);
          if (s.stampDeltas) {
            stamp = (stamp + 1) >>> 0;
            pcm.writeUInt32LE(stamp, 0);
          }
          const audioB64 = pcm.toString('base64');
          if (s.stampDeltas) deltaSentAt.set(stamp, clock());
          send({ type: 'response.output_audio.delta', ...ev, delta: audioB64 });
          entry.audioMs += chunkMs;
          deltasSent++;
          // Transcript words are spread over the audio, as the model speaks them.
          const delta = words.slice(Math.ceil((i / chunks) * words.length), Math.ceil(((i + 1) / chunks) * words.length)).join('');
          if (delta) {
            speakingState.spoken += delta;
            if (entry.text !== null) entry.text = speakingState.spoken;
            send({ type: 'response.output_audio_transcript.delta', ...ev, delta });
          }
          i++;
          // pace 0 is "as fast as possible": a batch of deltas per macrotask, not one per timer tick.
          if (pace === 0 && i % 20 !== 0) return tick();
          later(chunkMs / audioSpeed, tick);
          return;
        }
        closeItem(cutShort ? 'incomplete' : 'completed');
        r.finishEarly = null;
        then();
      };
      later(0, tick);
    }

    /** The real cancel sequence: the spoken item is closed as incomplete, then response.done cancelled. */
    function cancel(reason: 'turn_detected' | 'client_cancelled') {
      const r = active;
      if (!r) return;
      const finish = r.finishEarly;
      r.cancelled = true;
      if (finish) finish(reason);
      else finishResponse(r, 'cancelled', { type: 'cancelled', reason });
    }
  }

  await new Promise<void>((resolve) => http.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;

  return {
    url: `ws://127.0.0.1:${port}/v1/realtime`,
    apiKey,
    sessions,
    deltaSentAt,
    nextSession() {
      if (handedOut < sessions.length) return Promise.resolve(sessions[handedOut++]!);
      return new Promise((resolve) =>
        waiters.push((s) => {
          handedOut++;
          resolve(s);
        }),
      );
    },
    fault(f) {
      pendingFault = f;
    },
    setScript(next) {
      script = next;
    },
    async close() {
      for (const c of wss.clients) c.terminate();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
