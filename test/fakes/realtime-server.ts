/**
 * A local fake of the OpenAI Realtime API (GA shape, WebSocket transport) on loopback, so the voice
 * gateway runs against the real wire protocol with no network.
 *
 * Connection: `ws://127.0.0.1:<port>/v1/realtime?model=…` with `Authorization: Bearer <apiKey>`
 * (HTTP 401 otherwise). An `OpenAI-Beta` header, or a beta-shaped `session.update` (no
 * `session.type: "realtime"`, or top-level `voice`, `input_audio_format`, `modalities`,
 * `temperature`), gets an `error` with code `beta_api_shape_disabled` and close 4000, like OpenAI.
 *
 * A turn: appended audio goes through an RMS energy detector (`speech_started` when a 20 ms window
 * is loud, `speech_stopped` + `committed` after `silenceMs` of quiet); then the scripted user
 * transcript (`…input_audio_transcription.delta/completed`), a `search_knowledge_base` function call,
 * a wait for the client's `function_call_output` and `response.create`, then paced
 * `response.output_audio.delta` (a pcm16 24 kHz tone) with `response.output_audio_transcript.delta`
 * built from the function output (its first passage's first sentence, cited `[1]`, or the refusal),
 * and `response.done`. Speech during an answer cancels it (`interrupt_response`);
 * `conversation.item.truncate` is recorded and answered with `conversation.item.truncated`.
 *
 * Faults (`fault()` or `script.fault`): `refuse` (HTTP 503 at the upgrade), `error` (an `error`
 * event, then close 1011), `drop` (socket destroyed after N audio deltas), `stall` (silence after
 * N audio deltas). `pace` scales every delay (1 = real time, 0 = as fast as possible).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export const FAKE_REALTIME_API_KEY = 'sk-fake-realtime';
const RATE = 24_000;

export type FakeRealtimeFault =
  | { kind: 'refuse' }
  | { kind: 'error'; afterDeltas?: number }
  | { kind: 'drop'; afterDeltas?: number }
  | { kind: 'stall'; afterDeltas?: number };

export type FakeRealtimeScript = {
  /** What the "user said", one per turn (the last one repeats). */
  userTranscripts?: string[];
  /** The query the model passes to search_knowledge_base (default: the user transcript). */
  toolQuery?: (transcript: string) => string;
  /** The assistant's answer from the function output (default: first passage's first sentence + " [1]"). */
  answer?: (functionOutput: string) => string;
  /** Length of the spoken answer in ms (default 1200) and of one audio delta (default 100). */
  replyMs?: number;
  chunkMs?: number;
  toneHz?: number;
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

export type FakeRealtimeSession = {
  id: string;
  headers: IncomingHttpHeaders;
  model: string | null;
  /** The last `session` object the client sent in `session.update`. */
  sessionConfig: any;
  /** Every client event except the audio appends (those are in inputAudio). */
  clientEvents: any[];
  /** Every server event sent, audio deltas summarised as `{type, bytes}`. */
  serverEvents: any[];
  inputAudio(): Buffer;
  toolCalls: { call_id: string; query: string; output: string | null }[];
  truncations: FakeTruncation[];
  /** Resolves when the socket closes, with the close code. */
  closed: Promise<number>;
  isOpen(): boolean;
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

const BETA_FIELDS = ['voice', 'input_audio_format', 'output_audio_format', 'modalities', 'temperature', 'input_audio_transcription'];

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

export function rmsPcm16(pcm: Buffer): number {
  const n = Math.floor(pcm.length / 2);
  if (n === 0) return 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const s = pcm.readInt16LE(i * 2);
    sum += s * s;
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

export async function startFakeRealtime(opts: { port?: number; script?: FakeRealtimeScript; apiKey?: string } = {}): Promise<FakeRealtime> {
  const apiKey = opts.apiKey ?? FAKE_REALTIME_API_KEY;
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
    const reject = (status: number, message: string) => {
      const body = JSON.stringify({ error: { type: 'invalid_request_error', message } });
      socket.end(`HTTP/1.1 ${status} Error\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    };
    if (url.pathname !== '/v1/realtime') return reject(404, 'not found');
    if (req.headers.authorization !== `Bearer ${apiKey}`) return reject(401, 'Incorrect API key provided');
    const fault = pendingFault ?? script.fault ?? null;
    if (fault?.kind === 'refuse') return reject(503, 'The server is overloaded');
    wss.handleUpgrade(req, socket, head, (ws) => runSession(ws, req, url.searchParams.get('model'), fault));
  });

  function runSession(ws: WebSocket, req: IncomingMessage, model: string | null, fault: FakeRealtimeFault | null) {
    const s = { ...script };
    const pace = s.pace ?? 1;
    const chunkMs = s.chunkMs ?? 100;
    const speechRms = s.speechRms ?? 600;
    const silenceMs = s.silenceMs ?? 400;
    const transcripts = s.userTranscripts?.length ? s.userTranscripts : ['How long can the Zephyr-9 fly?'];
    const audio: Buffer[] = [];
    let audioMs = 0;
    let speaking = false;
    let speechStartMs = 0;
    let quietMs = 0;
    let turn = 0;
    let userItem: string | null = null;
    let deltasSent = 0;
    let stalled = false;
    const timers = new Set<NodeJS.Timeout>();
    let answer: { responseId: string; itemId: string; cancelled: boolean } | null = null;
    let awaitingTool: { call_id: string; outputSeen: string | null } | null = null;
    let closeResolve!: (code: number) => void;

    const session: FakeRealtimeSession = {
      id: newId('sess'),
      headers: req.headers,
      model,
      sessionConfig: null,
      clientEvents: [],
      serverEvents: [],
      inputAudio: () => Buffer.concat(audio),
      toolCalls: [],
      truncations: [],
      closed: new Promise<number>((r) => (closeResolve = r)),
      isOpen: () => ws.readyState === ws.OPEN,
    };
    sessions.push(session);
    waiters.shift()?.(session);

    const later = (ms: number, fn: () => void) => {
      const t = setTimeout(() => {
        timers.delete(t);
        fn();
      }, ms * pace);
      timers.add(t);
    };
    const send = (event: Record<string, unknown>) => {
      if (stalled || ws.readyState !== ws.OPEN) return;
      const full = { event_id: newId('event'), ...event };
      session.serverEvents.push(event.type === 'response.output_audio.delta' ? { type: event.type, bytes: (event.delta as string).length } : full);
      ws.send(JSON.stringify(full));
    };
    const fatal = (code: string, message: string, closeCode: number) => {
      send({ type: 'error', error: { type: 'invalid_request_error', code, message, param: null, event_id: null } });
      ws.close(closeCode, `invalid_request_error.${code}`.slice(0, 120));
    };
    ws.on('close', (code) => {
      for (const t of timers) clearTimeout(t);
      closeResolve(code);
    });
    ws.on('error', () => {});

    if (req.headers['openai-beta']) {
      fatal('beta_api_shape_disabled', 'The Realtime API beta shape has been retired; remove the OpenAI-Beta header.', 4000);
      return;
    }
    send({ type: 'session.created', session: { id: session.id, object: 'realtime.session', type: 'realtime', model } });

    ws.on('message', (data, isBinary) => {
      if (isBinary) return fatal('invalid_message', 'Binary frames are not supported', 1003);
      let event: any;
      try {
        event = JSON.parse(String(data));
      } catch {
        send({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_json', message: 'Invalid JSON' } });
        return;
      }
      if (event.type !== 'input_audio_buffer.append') session.clientEvents.push(event);
      switch (event.type) {
        case 'session.update':
          return onSessionUpdate(event.session);
        case 'input_audio_buffer.append':
          return onAudio(String(event.audio ?? ''));
        case 'conversation.item.create':
          if (event.item?.type === 'function_call_output' && awaitingTool && event.item.call_id === awaitingTool.call_id) {
            awaitingTool.outputSeen = String(event.item.output);
            const call = session.toolCalls.find((c) => c.call_id === event.item.call_id);
            if (call) call.output = awaitingTool.outputSeen;
            send({ type: 'conversation.item.added', item: { ...event.item, id: newId('item'), status: 'completed' } });
          }
          return;
        case 'response.create':
          if (awaitingTool?.outputSeen != null) {
            const output = awaitingTool.outputSeen;
            awaitingTool = null;
            startAnswer(output);
          }
          return;
        case 'conversation.item.truncate': {
          const t = { item_id: event.item_id, content_index: event.content_index, audio_end_ms: event.audio_end_ms };
          session.truncations.push(t);
          send({ type: 'conversation.item.truncated', ...t });
          return;
        }
        case 'response.cancel':
          if (answer) cancelAnswer();
          return;
        case 'input_audio_buffer.commit':
        case 'input_audio_buffer.clear':
          return;
        default:
          send({ type: 'error', error: { type: 'invalid_request_error', code: 'unknown_event', message: `Unknown event type ${event.type}` } });
      }
    });

    function onSessionUpdate(cfg: any) {
      if (!cfg || cfg.type !== 'realtime' || BETA_FIELDS.some((f) => f in cfg)) {
        return fatal('beta_api_shape_disabled', 'session.update must use the GA shape: session.type "realtime", audio.input/output.', 4000);
      }
      session.sessionConfig = cfg;
      send({ type: 'session.updated', session: { id: session.id, object: 'realtime.session', model, ...cfg } });
      if (fault?.kind === 'error' && fault.afterDeltas === undefined) {
        send({ type: 'error', error: { type: 'server_error', code: 'server_error', message: 'The server had an error' } });
        ws.close(1011, 'server_error');
      }
    }

    function onAudio(b64: string) {
      const pcm = Buffer.from(b64, 'base64');
      if (pcm.length % 2 !== 0) {
        send({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_audio', message: 'Odd pcm16 byte length' } });
        return;
      }
      audio.push(pcm);
      // 20 ms windows, so detection does not depend on how the client chunks its frames.
      const window = (RATE / 50) * 2;
      for (let off = 0; off < pcm.length; off += window) {
        const part = pcm.subarray(off, Math.min(pcm.length, off + window));
        const ms = (part.length / 2 / RATE) * 1000;
        const loud = rmsPcm16(part) >= speechRms;
        if (loud && !speaking) {
          speaking = true;
          quietMs = 0;
          speechStartMs = audioMs;
          userItem = newId('item');
          send({ type: 'input_audio_buffer.speech_started', audio_start_ms: Math.round(audioMs), item_id: userItem });
          if (answer && !answer.cancelled) cancelAnswer();
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
      const item = userItem!;
      send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: Math.round(audioMs), item_id: item });
      send({ type: 'input_audio_buffer.committed', previous_item_id: null, item_id: item });
      send({ type: 'conversation.item.added', item: { id: item, type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_audio', transcript: null }] } });
      const text = transcripts[Math.min(turn, transcripts.length - 1)]!;
      turn++;
      void speechStartMs;
      const words = text.split(/(?<=\s)/);
      let at = 20;
      for (const w of words) {
        later(at, () => send({ type: 'conversation.item.input_audio_transcription.delta', item_id: item, content_index: 0, delta: w }));
        at += 10;
      }
      later(at, () => send({ type: 'conversation.item.input_audio_transcription.completed', item_id: item, content_index: 0, transcript: text }));
      later(50, () => callTool(text));
    }

    function callTool(transcript: string) {
      const responseId = newId('resp');
      const itemId = newId('item');
      const call_id = newId('call');
      const query = s.toolQuery ? s.toolQuery(transcript) : transcript;
      const args = JSON.stringify({ query });
      session.toolCalls.push({ call_id, query, output: null });
      awaitingTool = { call_id, outputSeen: null };
      const item = { id: itemId, type: 'function_call', status: 'in_progress', name: 'search_knowledge_base', call_id, arguments: '' };
      send({ type: 'response.created', response: { id: responseId, object: 'realtime.response', status: 'in_progress', output: [] } });
      send({ type: 'response.output_item.added', response_id: responseId, output_index: 0, item });
      send({ type: 'response.function_call_arguments.delta', response_id: responseId, item_id: itemId, output_index: 0, call_id, delta: args });
      send({ type: 'response.function_call_arguments.done', response_id: responseId, item_id: itemId, output_index: 0, call_id, name: 'search_knowledge_base', arguments: args });
      send({ type: 'response.output_item.done', response_id: responseId, output_index: 0, item: { ...item, status: 'completed', arguments: args } });
      send({ type: 'response.done', response: { id: responseId, object: 'realtime.response', status: 'completed', output: [{ ...item, status: 'completed', arguments: args }] } });
    }

    function startAnswer(output: string) {
      const text = (s.answer ?? defaultAnswer)(output);
      const responseId = newId('resp');
      const itemId = newId('item');
      const a = { responseId, itemId, cancelled: false };
      answer = a;
      const replyMs = s.replyMs ?? 1200;
      const chunks = Math.max(1, Math.ceil(replyMs / chunkMs));
      const words = text.split(/(?<=\s)/);
      send({ type: 'response.created', response: { id: responseId, object: 'realtime.response', status: 'in_progress', output: [] } });
      send({ type: 'response.output_item.added', response_id: responseId, output_index: 0, item: { id: itemId, type: 'message', role: 'assistant', status: 'in_progress', content: [] } });
      send({ type: 'response.content_part.added', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, part: { type: 'audio', transcript: '' } });
      let i = 0;
      const tick = () => {
        if (a.cancelled || ws.readyState !== ws.OPEN) return;
        if (i < chunks) {
          const f = fault?.kind !== 'refuse' ? fault : null;
          if (f && f.afterDeltas !== undefined && deltasSent >= f.afterDeltas) {
            if (f.kind === 'drop') return void ws.terminate();
            if (f.kind === 'stall') return void (stalled = true);
            if (f.kind === 'error') {
              send({ type: 'error', error: { type: 'server_error', code: 'server_error', message: 'The server had an error while processing your request' } });
              return void ws.close(1011, 'server_error');
            }
          }
          const pcm = tonePcm16(chunkMs, s.toneHz ?? 440, i * (RATE / 1000) * chunkMs);
          if (s.stampDeltas) {
            stamp = (stamp + 1) >>> 0;
            pcm.writeUInt32LE(stamp, 0);
            deltaSentAt.set(stamp, performance.now());
          }
          send({ type: 'response.output_audio.delta', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, delta: pcm.toString('base64') });
          deltasSent++;
          // Transcript words are spread over the audio, as the model speaks them.
          const upTo = Math.ceil(((i + 1) / chunks) * words.length);
          const from = Math.ceil((i / chunks) * words.length);
          const delta = words.slice(from, upTo).join('');
          if (delta) send({ type: 'response.output_audio_transcript.delta', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, delta });
          i++;
          later(chunkMs, tick);
          return;
        }
        send({ type: 'response.output_audio.done', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0 });
        send({ type: 'response.output_audio_transcript.done', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, transcript: text });
        send({ type: 'response.output_item.done', response_id: responseId, output_index: 0, item: { id: itemId, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_audio', transcript: text }] } });
        send({ type: 'response.done', response: { id: responseId, object: 'realtime.response', status: 'completed', output: [{ id: itemId, type: 'message', role: 'assistant' }], usage: { total_tokens: 100, input_tokens: 60, output_tokens: 40 } } });
        answer = null;
      };
      later(0, tick);
    }

    function cancelAnswer() {
      const a = answer!;
      a.cancelled = true;
      answer = null;
      send({ type: 'response.done', response: { id: a.responseId, object: 'realtime.response', status: 'cancelled', status_details: { type: 'cancelled', reason: 'turn_detected' }, output: [{ id: a.itemId, type: 'message', role: 'assistant' }] } });
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
