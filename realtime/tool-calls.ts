/**
 * The model's tool calls: each runs the service's own retrieval (one after another, so a turn's
 * passage markers continue), its output goes back upstream, and once a response's calls all have
 * their outputs AND its own response.done has come, the gateway asks for the answer. OpenAI
 * refuses a response.create while a response is active, hence the wait for both.
 */
import type { Logger } from '../src/logger';
import type { VoiceCaller } from '../src/services/voice/authorize-voice';
import { searchKnowledgeForVoice, VOICE_TOOL_NAME } from '../src/services/voice/voice-knowledge-tool';
import type { TurnSources } from './turn-tracker';
import type { UpstreamClientEvent } from './upstream';

/** Runs one tool call for the turn whose passages `sources` collects; returns the output for the model. */
export type ToolRunner = (name: string, args: string, sources: TurnSources) => Promise<string>;

/** A model response the gateway follows: its tool calls, and whether its own response.done came. */
type ResponseState = { calls: number; hadCalls: boolean; done: boolean; followed: boolean; abandoned: boolean; status: string | null };

export type FinishedResponse = { readonly hadCalls: boolean; followUp(): void };

export function knowledgeSearch(caller: VoiceCaller, log: Logger): ToolRunner {
  return async (name, args, sources) => {
    try {
      if (name !== VOICE_TOOL_NAME) return JSON.stringify({ error: `Unknown tool ${name}` });
      const result = await searchKnowledgeForVoice(caller.ctx, caller.kb, args, sources.count + 1);
      sources.add(result.sources);
      return result.output;
    } catch (err) {
      log.error({ err }, 'voice knowledge search failed');
      return JSON.stringify({ found: false, error: 'The knowledge base could not be searched right now' });
    }
  };
}

export class ToolCalls {
  private readonly responses = new Map<string, ResponseState>();
  private running = 0;
  /** Which upstream connection the running searches belong to: reset() starts a new one. */
  private connection = 0;
  private queue: Promise<void> = Promise.resolve();

  /** `answer()` asks the model for the answer after a tool-call response; `isEnded()` stops everything. */
  constructor(
    private readonly run: ToolRunner,
    private readonly port: { toUpstream(event: UpstreamClientEvent): void; answer(): void; isEnded(): boolean },
  ) {}

  /** Our own search is running: nothing is owed by the upstream meanwhile. */
  get searching(): boolean {
    return this.running !== 0;
  }

  /** No tool runs and no response is open. */
  get idle(): boolean {
    return this.running === 0 && this.responses.size === 0;
  }

  /** Responses still open (not done, or done and waiting on tools). */
  get openResponses(): number {
    return this.responses.size;
  }

  responseCreated(responseId: string): void {
    this.responses.set(responseId, newResponse());
  }

  call(responseId: string, callId: string, name: string, args: string, sources: TurnSources): void {
    const r = this.responses.get(responseId) ?? newResponse();
    this.responses.set(responseId, r);
    r.calls++;
    r.hadCalls = true;
    this.running++;
    const connection = this.connection;
    this.queue = this.queue.then(async () => {
      const output = await this.run(name, args, sources);
      // A search of a connection that is gone: its count was reset with it, and its call id means
      // nothing to the new connection.
      if (connection !== this.connection) return;
      this.running--;
      r.calls--;
      if (this.port.isEnded()) return;
      this.port.toUpstream({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: callId, output } });
      this.followUp(responseId, r);
    });
  }

  /** The response's own response.done came with `status`. */
  responseDone(responseId: string, status: string): FinishedResponse {
    const r = this.responses.get(responseId);
    this.responses.delete(responseId);
    if (r) {
      r.done = true;
      r.status = status;
    }
    return { hadCalls: r?.hadCalls ?? false, followUp: () => r && this.followUp(responseId, r) };
  }

  /** The visitor asked something new: responses still waiting on tools must not answer the old question. */
  abandonAll(): void {
    for (const r of this.responses.values()) r.abandoned = true;
  }

  /** A new upstream connection: the old one's responses are gone with it. */
  reset(): void {
    this.responses.clear();
    this.running = 0;
    this.connection++;
  }

  private followUp(responseId: string, r: ResponseState): void {
    if (!r.done || r.calls > 0 || r.followed || !r.hadCalls) return;
    r.followed = true;
    this.responses.delete(responseId);
    if (r.abandoned || r.status !== 'completed' || this.port.isEnded()) return;
    this.port.answer();
  }
}

const newResponse = (): ResponseState => ({ calls: 0, hadCalls: false, done: false, followed: false, abandoned: false, status: null });
