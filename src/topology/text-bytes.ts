// Bytes of the five characters XML escapes, and of a character reference's frame.
const AMP = 0x26;
const LT = 0x3c;
const GT = 0x3e;
const QUOT = 0x22;
const APOS = 0x27;
const ENTITIES: Record<number, Uint8Array> = {
  [AMP]: ascii('&amp;'),
  [LT]: ascii('&lt;'),
  [GT]: ascii('&gt;'),
  [QUOT]: ascii('&quot;'),
  [APOS]: ascii('&apos;'),
};
const HEX = ascii('0123456789ABCDEF');
const REPLACEMENT = 0xfffd;

/**
 * A growing buffer of ASCII text for the GraphML export. Building a 33 MB export from a
 * string per line kept every line alive (promoted to the old generation) until the final `join`;
 * here every line is written once into one buffer and copied into one string at the end.
 *
 * Nothing is allocated per value: printable ASCII is copied a character at a time, and what XML
 * needs escaped is escaped on the way in (`xml`), characters beyond ASCII as character references,
 * so the buffer holds ASCII only and its string is a one-byte string (half the memory of the two-byte
 * string an emoji in one name used to make). Allocating per value (escaped copies, numbers as
 * strings) cost young-generation collections during the export, each promoting the topology being
 * written: a quarter of the export's time on a 50,000-client site.
 */
export class TextBytes {
  private buffer: Buffer;
  private length = 0;

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

  // Deliberately alike: bytes and raw copy in their own hand loops; a shared callback would cost the hot path a call per byte.
  /** Markup prepared with `ascii` (copied as it is). */
  bytes(piece: Uint8Array): void {
    const n = piece.length;
    this.room(n);
    // A loop, not `buffer.set`: markup pieces are a few dozen bytes, and `set` costs a call into
    // the runtime each time (a third of the writing's time on a 50,000-client site).
    const b = this.buffer;
    let at = this.length;
    for (let i = 0; i < n; i++) b[at++] = piece[i] as number;
    this.length = at;
  }

  /** Printable ASCII with nothing to escape, such as an enum value or markup (not checked). */
  raw(text: string): void {
    const n = text.length;
    this.room(n);
    const b = this.buffer;
    let at = this.length;
    for (let i = 0; i < n; i++) b[at++] = text.charCodeAt(i);
    this.length = at;
  }

  /** A number as `${value}` writes it; integers digit by digit, with no string made. */
  number(value: number): void {
    if (!Number.isSafeInteger(value) || Object.is(value, -0)) {
      this.raw(String(value));
      return;
    }
    this.room(17);
    const b = this.buffer;
    let n = value;
    if (n < 0) {
      b[this.length++] = 0x2d;
      n = -n;
    }
    let digits = 1;
    for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    let at = this.length + digits;
    this.length = at;
    do {
      b[--at] = 0x30 + (n % 10);
      n = Math.floor(n / 10);
    } while (n > 0);
  }

  /**
   * Text for XML content or an attribute value, in ASCII: `&<>"'` as entities, characters beyond
   * ASCII as character references (`☕` → `&#x2615;`), and characters XML 1.0 cannot carry (control
   * characters other than tab, LF and CR; lone surrogates; U+FFFE and U+FFFF) as U+FFFD's reference.
   */
  xml(value: string): void {
    const n = value.length;
    // Worst case: every UTF-16 unit becomes `&#xFFFD;` (8 bytes).
    this.room(n * 8);
    const b = this.buffer;
    let at = this.length;
    for (let i = 0; i < n; i++) {
      let c = value.charCodeAt(i);
      if (c >= 0x20 && c < 0x80) {
        const entity =
          c === AMP || c === LT || c === GT || c === QUOT || c === APOS ? ENTITIES[c] : undefined;
        if (entity === undefined) b[at++] = c;
        else for (let k = 0; k < entity.length; k++) b[at++] = entity[k] as number;
        continue;
      }
      if (c === 0x09 || c === 0x0a || c === 0x0d) {
        b[at++] = c;
        continue;
      }
      if (c < 0x20 || c === 0xfffe || c === 0xffff) c = REPLACEMENT;
      else if (c >= 0xd800 && c <= 0xdbff) {
        const low = i + 1 < n ? value.charCodeAt(i + 1) : 0;
        if (low >= 0xdc00 && low <= 0xdfff) {
          c = (c - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
          i++;
        } else c = REPLACEMENT;
      } else if (c >= 0xdc00 && c <= 0xdfff) c = REPLACEMENT;
      // `&#x` + hex digits + `;`
      b[at++] = AMP;
      b[at++] = 0x23;
      b[at++] = 0x78;
      let shift = 20;
      while (shift > 0 && c >> shift === 0) shift -= 4;
      for (; shift >= 0; shift -= 4) b[at++] = HEX[(c >> shift) & 0xf] as number;
      b[at++] = 0x3b;
    }
    this.length = at;
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

  /** The text written, as one string (one-byte: everything written is ASCII). */
  toString(): string {
    return this.buffer.toString('latin1', 0, this.length);
  }
}

/** Markup as bytes, prepared once (printable ASCII only). */
export function ascii(markup: string): Uint8Array {
  return Buffer.from(markup, 'latin1');
}
