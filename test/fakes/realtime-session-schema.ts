/**
 * The GA `session.update` session object as the real Realtime API validates it, for the fake
 * (openai@6.49 `RealtimeSessionCreateRequest` and OpenAI's documented limits). Objects are strict:
 * a field the API does not know is refused as `unknown_parameter`, as OpenAI does
 * ("Unknown parameter: 'session.tools[0].meta'."). Each zod issue becomes the real `error` shape.
 */
import { z } from 'zod';

export const REALTIME_VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'sage', 'shimmer', 'verse', 'marin', 'cedar'] as const;

const ZFormat = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('audio/pcm'), rate: z.literal(24000).optional() }),
  z.strictObject({ type: z.literal('audio/pcmu') }),
  z.strictObject({ type: z.literal('audio/pcma') }),
]);

const ZTurnDetection = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('server_vad'),
      threshold: z.number().min(0).max(1).optional(),
      prefix_padding_ms: z.number().int().min(0).optional(),
      silence_duration_ms: z.number().int().min(0).optional(),
      create_response: z.boolean().optional(),
      interrupt_response: z.boolean().optional(),
      idle_timeout_ms: z.number().int().min(5000).max(30000).nullable().optional(),
    }),
    z.strictObject({
      type: z.literal('semantic_vad'),
      eagerness: z.enum(['low', 'medium', 'high', 'auto']).optional(),
      create_response: z.boolean().optional(),
      interrupt_response: z.boolean().optional(),
    }),
  ])
  .nullable();

const ZTool = z.strictObject({
  type: z.literal('function'),
  name: z.string().min(1).max(64),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

export const ZRealtimeSession = z.strictObject({
  type: z.literal('realtime'),
  model: z.string().optional(),
  instructions: z.string().optional(),
  output_modalities: z.array(z.enum(['text', 'audio'])).max(1).optional(),
  audio: z
    .strictObject({
      input: z
        .strictObject({
          format: ZFormat.optional(),
          noise_reduction: z.strictObject({ type: z.enum(['near_field', 'far_field']) }).nullable().optional(),
          transcription: z
            .strictObject({
              model: z.enum(['whisper-1', 'gpt-4o-mini-transcribe', 'gpt-4o-transcribe', 'gpt-4o-transcribe-diarize']).optional(),
              language: z.string().optional(),
              prompt: z.string().optional(),
            })
            .nullable()
            .optional(),
          turn_detection: ZTurnDetection.optional(),
        })
        .optional(),
      output: z
        .strictObject({
          format: ZFormat.optional(),
          voice: z.enum(REALTIME_VOICES).optional(),
          speed: z.number().min(0.25).max(1.5).optional(),
        })
        .optional(),
    })
    .optional(),
  tools: z.array(ZTool).optional(),
  tool_choice: z.union([z.enum(['auto', 'none', 'required']), z.strictObject({ type: z.literal('function'), name: z.string() })]).optional(),
  max_output_tokens: z.union([z.number().int().min(1).max(4096), z.literal('inf')]).optional(),
  truncation: z.union([z.enum(['auto', 'disabled']), z.strictObject({ type: z.literal('retention_ratio'), retention_ratio: z.number().min(0).max(1) })]).optional(),
  include: z.array(z.literal('item.input_audio_transcription.logprobs')).optional(),
  tracing: z.unknown().optional(),
  prompt: z.unknown().optional(),
});

export type RealtimeApiError = { type: 'invalid_request_error'; code: string; message: string; param: string | null; event_id: string | null };

function paramPath(root: string, path: PropertyKey[]): string {
  let out = root;
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `.${String(p)}`;
  return out;
}

const show = (v: unknown) => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v));

/** The first problem of `value`, as the real API's error object (the API reports one at a time). */
export function realtimeValidationError(schema: z.ZodType, value: unknown, root: string, eventId: string | null): RealtimeApiError | null {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) return null;
  let issue = parsed.error.issues[0]!;
  // A union's own issue hides the branch's: report the innermost one, as OpenAI names the exact field.
  while (issue.code === 'invalid_union' && issue.errors[0]?.[0]) issue = { ...issue.errors[0][0], path: [...issue.path, ...issue.errors[0][0].path] } as never;
  const base = { type: 'invalid_request_error' as const, event_id: eventId };
  if (issue.code === 'unrecognized_keys') {
    const param = paramPath(root, [...issue.path, issue.keys[0]!]);
    return { ...base, code: 'unknown_parameter', message: `Unknown parameter: '${param}'.`, param };
  }
  const param = paramPath(root, issue.path);
  let input = (issue as { input?: unknown }).input;
  const discriminator = (issue as { discriminator?: string }).discriminator;
  if (discriminator && input && typeof input === 'object') input = (input as Record<string, unknown>)[discriminator];
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && input === undefined) {
    return { ...base, code: 'missing_required_parameter', message: `Missing required parameter: '${param}'.`, param };
  }
  if (issue.code === 'invalid_value' || issue.code === 'invalid_union') {
    const values = (issue.code === 'invalid_value' ? issue.values : ((issue as { options?: unknown[] }).options ?? [])).map(show).join(', ');
    return { ...base, code: 'invalid_value', message: `Invalid value: ${show(input)}. Supported values are: ${values}.`, param };
  }
  if (issue.code === 'invalid_type') {
    return { ...base, code: 'invalid_type', message: `Invalid type for '${param}': expected ${issue.expected}, but got ${typeof input}.`, param };
  }
  if (issue.code === 'too_big') return { ...base, code: 'decimal_above_max_value', message: `Invalid '${param}': ${show(input)} is above the maximum ${String(issue.maximum)}.`, param };
  if (issue.code === 'too_small') return { ...base, code: 'decimal_below_min_value', message: `Invalid '${param}': ${show(input)} is below the minimum ${String(issue.minimum)}.`, param };
  return { ...base, code: 'invalid_value', message: `Invalid '${param}': ${issue.message}`, param };
}

const itemBase = {
  id: z.string().max(32).optional(),
  object: z.literal('realtime.item').optional(),
  status: z.enum(['completed', 'incomplete', 'in_progress']).optional(),
};

/** Items a client may add with `conversation.item.create` (the ones the gateway sends), by type and role. */
export function clientItemSchema(item: { type?: unknown; role?: unknown } | null | undefined): z.ZodType {
  if (item?.type === 'function_call_output') return z.strictObject({ ...itemBase, type: z.literal('function_call_output'), call_id: z.string(), output: z.string() });
  if (item?.type === 'message' && item.role === 'assistant') {
    return z.strictObject({
      ...itemBase,
      type: z.literal('message'),
      role: z.literal('assistant'),
      content: z.array(z.strictObject({ type: z.enum(['output_text', 'output_audio']), text: z.string().optional(), transcript: z.string().optional() })).min(1),
    });
  }
  if (item?.type === 'message') {
    return z.strictObject({
      ...itemBase,
      type: z.literal('message'),
      role: z.enum(['user', 'system']),
      content: z.array(z.strictObject({ type: z.literal('input_text'), text: z.string() })).min(1),
    });
  }
  return z.strictObject({ type: z.enum(['message', 'function_call_output', 'function_call']) });
}
