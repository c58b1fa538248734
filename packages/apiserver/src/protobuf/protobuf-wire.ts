/**
 * The protobuf wire format, as far as decoding needs it: varints, length-delimited fields, and
 * skipping what a layout does not name.
 */

/** Reads one message's bytes from `pos` up to `end`. */
export class Reader {
  pos = 0;
  constructor(readonly buf: Buffer, readonly end: number = buf.length) {}

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.end) throw new Error('truncated varint');
      const byte = this.buf[this.pos++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 70n) throw new Error('varint too long');
    }
  }

  bytes(): Buffer {
    const length = Number(this.varint());
    if (this.pos + length > this.end) throw new Error('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) this.bytes();
    else if (wireType === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wireType}`);
  }
}

/** Calls `visit` with each field of a message (its number and wire type); `visit` reads or skips the value. */
export function fields(buf: Buffer, visit: (field: number, wireType: number, reader: Reader) => void): void {
  const reader = new Reader(buf);
  while (reader.pos < reader.end) {
    const tag = Number(reader.varint());
    visit(tag >>> 3, tag & 7, reader);
  }
}

