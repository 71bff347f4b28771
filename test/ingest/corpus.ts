/**
 * The shared document corpus lives next to the repository (../shared/data/docs) and is read in
 * place, never copied in. MANIFEST.tsv there says where each file comes from.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const CORPUS_DIR = path.resolve(__dirname, '../../../shared/data/docs');

export function readDoc(name: string): Uint8Array {
  return new Uint8Array(readFileSync(path.join(CORPUS_DIR, name)));
}
