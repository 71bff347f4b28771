/** pdf.js (v5) calls ArrayBuffer.prototype.transferToFixedLength, which Node 20's V8 lacks. */
function polyfillTransfer(): void {
  const proto = ArrayBuffer.prototype as ArrayBuffer & { transferToFixedLength?: (n?: number) => ArrayBuffer };
  if (proto.transferToFixedLength) return;
  Object.defineProperty(proto, 'transferToFixedLength', {
    configurable: true,
    writable: true,
    value(this: ArrayBuffer, length = this.byteLength) {
      const out = new ArrayBuffer(length);
      new Uint8Array(out).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
      return out;
    },
  });
}
polyfillTransfer();
