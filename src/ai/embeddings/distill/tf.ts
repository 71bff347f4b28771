/**
 * The slice of TensorFlow.js (as bundled by @energetic-ai/core) that the distillation
 * tooling uses, typed here because the package's .d.ts re-exports @tensorflow/tfjs-core
 * types that are not installed. Build-time tooling only: the service never imports it.
 */
import * as core from '@energetic-ai/core';

export interface Tensor {
  readonly shape: number[];
  dataSync(): Float32Array | Int32Array | Uint8Array;
  dispose(): void;
}

export interface GraphModel {
  readonly weights: Record<string, Tensor[]>;
  executeAsync(inputs: Record<string, Tensor>, outputs: string[]): Promise<Tensor[]>;
}

export interface Tf {
  ready(): Promise<void>;
  loadGraphModel(url: string): Promise<GraphModel>;
  tensor1d(values: ArrayLike<number>, dtype?: 'float32' | 'int32'): Tensor;
  tensor2d(values: ArrayLike<number>, shape: [number, number], dtype?: 'float32' | 'int32'): Tensor;
  matMul(a: Tensor, b: Tensor, transposeA?: boolean, transposeB?: boolean): Tensor;
}

export const tf = core as unknown as Tf;
