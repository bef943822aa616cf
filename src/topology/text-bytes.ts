/**
 * A growing buffer of UTF-8 text for the large exports (issue 26). Building a 33 MB export from a
 * string per line kept every line alive (promoted to the old generation) until the final `join`;
 * here every line is written once into one buffer and decoded into one string at the end, which
 * takes 40 MB less at the peak on a 50,000-client site (docs/performance.md).
 *
 * Plain printable ASCII (MACs, numbers, most names) is copied a character at a time with no
 * allocation; anything else (markup characters, control characters, non-ASCII) falls back to the
 * caller's escape function and a native UTF-8 write, so the result is exactly the string the
 * escape function would have produced.
 */
export class TextBytes {
  private buffer: Buffer;
  private length = 0;
  /** False once a byte above 0x7F has been written: then the end decodes UTF-8, else Latin-1 (a copy). */
  private ascii = true;

  /** `capacity` is a first guess in bytes; the buffer grows when it is short (untouched bytes cost nothing). */
  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(capacity, 1024));
  }

  /** Ensures room for `bytes` more bytes. */
  private room(bytes: number): void {
    const needed = this.length + bytes;
    if (needed <= this.buffer.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
    this.buffer.copy(bigger, 0, 0, this.length);
    this.buffer = bigger;
  }

  /** Markup prepared with `ascii` (copied as it is). */
  bytes(piece: Uint8Array): void {
    const n = piece.length;
    this.room(n);
    // A loop, not \`buffer.set\`: markup pieces are a few dozen bytes, and \`set\` costs a call into
    // the runtime each time (a third of the writing's time on a 50,000-client site).
    const b = this.buffer;
    let at = this.length;
    for (let i = 0; i < n; i++) b[at++] = piece[i] as number;
    this.length = at;
  }

  /** Printable ASCII with nothing to escape, such as a number or an enum value (not checked). */
  raw(text: string): void {
    const n = text.length;
    this.room(n);
    const b = this.buffer;
    let at = this.length;
    for (let i = 0; i < n; i++) b[at++] = text.charCodeAt(i);
    this.length = at;
  }

  /** A number as `${value}` writes it. */
  number(value: number): void {
    if (value >= 0 && value <= 9 && Number.isInteger(value)) {
      this.room(1);
      this.buffer[this.length++] = 0x30 + value;
      return;
    }
    this.raw(String(value));
  }

  /**
   * A value through `escapeText` (which must leave printable ASCII other than `specials` as it is):
   * the fast path copies printable ASCII; the first character that is not (or is one of the
   * `specials` char codes) sends the whole value through `escapeText` and a UTF-8 write.
   */
  text(value: string, escapeText: (value: string) => string, specials: Uint8Array): void {
    const n = value.length;
    // Worst case: every UTF-16 unit becomes a 6-byte entity (`&quot;`) or 3 bytes of UTF-8.
    this.room(n * 6);
    const b = this.buffer;
    const start = this.length;
    let at = start;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || specials[c] === 1) {
        this.escaped(escapeText(value), start);
        return;
      }
      b[at++] = c;
    }
    this.length = at;
  }

  private escaped(value: string, at: number): void {
    const written = this.buffer.write(value, at, 'utf8');
    // UTF-8 takes more bytes than UTF-16 units for every character above U+007F, so equal counts
    // mean ASCII.
    if (written !== value.length) this.ascii = false;
    this.length = at + written;
  }

  /** Repeats the bytes written from `start` to `end` (a value written twice, such as a node's name). */
  repeat(start: number, end: number): void {
    const n = end - start;
    this.room(n);
    this.buffer.copyWithin(this.length, start, end);
    this.length += n;
  }

  /** Bytes written so far (a position for `repeat`). */
  get position(): number {
    return this.length;
  }

  /** The text written, as one string. */
  toString(): string {
    return this.buffer.toString(this.ascii ? 'latin1' : 'utf8', 0, this.length);
  }
}

/** A table of char codes below 128: 1 for each character of `chars`. */
export function charTable(chars: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return table;
}

/** Markup as bytes, prepared once (printable ASCII only). */
export function ascii(markup: string): Uint8Array {
  return Buffer.from(markup, 'latin1');
}
