/**
 * Fits the static table to the teacher (full USE-lite) on a corpus of sentences.
 *
 * Student (see ../static-encoder.ts): y = tanh(mean_t T[id_t] + b), output y/|y|, with
 * T the pre-activation table (piece state . head weights) and b the teacher's head bias,
 * kept fixed (a shift of b equals shifting every row, so learning it adds nothing).
 * Loss: 1 - cos(student, teacher). Optimiser: Adam with lazy updates (only the rows a
 * mini-batch touches), because a batch touches a few hundred of the 8,000 rows. A
 * held-out slice of the corpus picks the epoch to keep.
 */

export interface TrainExample {
  ids: Int32Array;
  /** The teacher's L2-normalised embedding. */
  target: Float32Array;
}

export interface TrainOptions {
  dim: number;
  bias: Float32Array;
  epochs: number;
  learningRate: number;
  batchSize: number;
  /** Seed for the shuffle, so a rebuild reproduces the same table. */
  seed: number;
  log?: (line: string) => void;
}

/** Student forward pass: returns tanh activations and their norm. */
export function studentForward(T: Float32Array, ids: ArrayLike<number>, bias: Float32Array, dim: number) {
  const z = new Float64Array(dim);
  for (let t = 0; t < ids.length; t++) {
    const row = ids[t]! * dim;
    for (let d = 0; d < dim; d++) z[d]! += T[row + d]!;
  }
  const n = Math.max(1, ids.length);
  let norm = 0;
  for (let d = 0; d < dim; d++) {
    const y = Math.tanh(z[d]! / n + bias[d]!);
    z[d] = y;
    norm += y * y;
  }
  return { y: z, norm: Math.sqrt(norm) || 1 };
}

export function meanCosine(T: Float32Array, examples: TrainExample[], bias: Float32Array, dim: number): number {
  let sum = 0;
  for (const ex of examples) {
    const { y, norm } = studentForward(T, ex.ids, bias, dim);
    let c = 0;
    for (let d = 0; d < dim; d++) c += y[d]! * ex.target[d]!;
    sum += c / norm;
  }
  return sum / Math.max(1, examples.length);
}

function mulberry32(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Trains `T` in place (keeping the best epoch); returns its held-out mean cosine. */
export function trainTable(T: Float32Array, train: TrainExample[], heldOut: TrainExample[], o: TrainOptions) {
  const { dim, bias } = o;
  const V = T.length / dim;
  const m = new Float32Array(T.length);
  const v = new Float32Array(T.length);
  const grad = new Float32Array(T.length);
  const touched = new Uint8Array(V);
  const rand = mulberry32(o.seed);
  const beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  let step = 0;

  let best = { cosine: meanCosine(T, heldOut, bias, dim), epoch: 0, table: T.slice() };
  o.log?.(`epoch 0 held-out cos ${best.cosine.toFixed(4)}`);
  const order = train.map((_, i) => i);
  const dz = new Float64Array(dim);

  for (let epoch = 1; epoch <= o.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    let lossSum = 0;
    for (let start = 0; start < order.length; start += o.batchSize) {
      const batch = order.slice(start, start + o.batchSize);
      const rows: number[] = [];
      for (const idx of batch) {
        const ex = train[idx]!;
        if (ex.ids.length === 0) continue;
        const { y, norm } = studentForward(T, ex.ids, bias, dim);
        let cos = 0;
        for (let d = 0; d < dim; d++) cos += y[d]! * ex.target[d]!;
        cos /= norm;
        lossSum += 1 - cos;
        // d(1 - cos)/dy = -(t - cos * y/|y|) / |y|; through tanh; through the mean (1/n);
        // averaged over the batch.
        const scale = 1 / (ex.ids.length * batch.length);
        for (let d = 0; d < dim; d++) {
          const yd = y[d]!;
          dz[d] = ((-(ex.target[d]! - (cos * yd) / norm) / norm) * (1 - yd * yd)) * scale;
        }
        for (const id of ex.ids) {
          if (!touched[id]) {
            touched[id] = 1;
            rows.push(id);
          }
          const row = id * dim;
          for (let d = 0; d < dim; d++) grad[row + d]! += dz[d]!;
        }
      }
      step++;
      // Lazy Adam: a row's moments decay only when it is touched; the usual sparse-Adam
      // compromise, keeping a step's cost proportional to the batch, not the vocabulary.
      const c1 = 1 - beta1 ** step;
      const c2 = 1 - beta2 ** step;
      for (const id of rows) {
        const row = id * dim;
        for (let d = 0; d < dim; d++) {
          const g = grad[row + d]!;
          const mi = (m[row + d] = beta1 * m[row + d]! + (1 - beta1) * g);
          const vi = (v[row + d] = beta2 * v[row + d]! + (1 - beta2) * g * g);
          T[row + d]! -= (o.learningRate * (mi / c1)) / (Math.sqrt(vi / c2) + eps);
          grad[row + d] = 0;
        }
        touched[id] = 0;
      }
    }
    const cosine = meanCosine(T, heldOut, bias, dim);
    o.log?.(`epoch ${epoch} train loss ${(lossSum / train.length).toFixed(4)} held-out cos ${cosine.toFixed(4)}`);
    if (cosine > best.cosine) best = { cosine, epoch, table: T.slice() };
  }
  T.set(best.table);
  return { cosine: best.cosine, epoch: best.epoch };
}

/** table . W for a row-major table [V x D] and W [D x O]: folds a dense layer into the table. */
export function foldDense(table: Float32Array | Float64Array, D: number, W: Float32Array, O: number): Float32Array {
  const V = table.length / D;
  const out = new Float32Array(V * O);
  const acc = new Float64Array(O);
  for (let r = 0; r < V; r++) {
    acc.fill(0);
    for (let d = 0; d < D; d++) {
      const x = table[r * D + d]!;
      if (x === 0) continue;
      const row = d * O;
      for (let o = 0; o < O; o++) acc[o]! += x * W[row + o]!;
    }
    for (let o = 0; o < O; o++) out[r * O + o] = acc[o]!;
  }
  return out;
}
