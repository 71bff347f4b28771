/**
 * The contract every embedding backend meets.
 *
 * Vectors are `Float32Array`s (half the memory of `number[]` for a 15k-sentence
 * document; pgvector stores float4 anyway) and always L2-normalised, so cosine
 * similarity is a plain dot product and pgvector's `<=>` / `<#>` agree.
 *
 * `id` names the model AND its version: vectors are only comparable between equal
 * ids, so the id is stored next to each vector and a change of id means re-embedding.
 */
export type EmbeddingVector = Float32Array;

export interface EmbeddingProvider {
  /** e.g. 'local:use-lite-distilled@1', 'openai:text-embedding-3-small@1536'. */
  readonly id: string;
  readonly dimensions: number;
  /** One vector per text, same order. Empty input gives an empty array. */
  embedDocuments(texts: string[]): Promise<EmbeddingVector[]>;
  embedQuery(text: string): Promise<EmbeddingVector>;
}
