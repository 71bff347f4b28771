/**
 * A vector as a query parameter in pgvector's binary format (vector_recv: int16 dimensions, int16
 * unused, then big-endian float4s). node-postgres sends Buffers as binary parameters, so `$1::vector`
 * receives it without printing and re-parsing 512 decimal floats, which cost more than the search.
 * pgvector rejects NaN and infinities; they become 0.
 */
export function vectorParam(v: ArrayLike<number>): Buffer {
  const buf = Buffer.allocUnsafe(4 + 4 * v.length);
  buf.writeInt16BE(v.length, 0);
  buf.writeInt16BE(0, 2);
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    buf.writeFloatBE(Number.isFinite(x) ? x : 0, 4 + 4 * i);
  }
  return buf;
}
