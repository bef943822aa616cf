/** A small seeded pseudo-random generator: the same seed always yields the same sequence. */
export interface Prng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** `length` lowercase hex digits. */
  hex(length: number): string;
  /** A Mongo-style 24-hex ObjectId, as classic records carry in `_id`. */
  objectId(): string;
  /** A version-4-shaped UUID, as Integration records carry in `id`. */
  uuid(): string;
}

/** mulberry32: tiny, fast and good enough for demo data; never used for anything secret. */
export function createPrng(seed: number): Prng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const hex = (length: number): string => {
    let out = '';
    for (let i = 0; i < length; i++) out += int(0, 15).toString(16);
    return out;
  };
  return {
    next,
    int,
    hex,
    pick<T>(items: readonly T[]): T {
      const item = items[int(0, items.length - 1)];
      if (item === undefined) throw new Error('pick() needs a non-empty list');
      return item;
    },
    // Real ObjectIds start with a creation timestamp; a fixed 2024 prefix keeps ids plausible.
    objectId: () => `66${hex(22)}`,
    uuid: () => {
      const h = hex(32);
      const variant = '89ab'[int(0, 3)] ?? '8';
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    },
  };
}
