/**
 * An object that forwards every property to what `current()` returns, for a value a vitest hook
 * makes after the suite is collected; methods stay bound to it. Touching it before the hook ran
 * throws `unready`.
 */
export function lateBound<T extends object>(current: () => T | undefined, unready: string): T {
  return new Proxy({} as T, {
    get(_target, property) {
      const value = current();
      if (!value) throw new Error(unready);
      const member = value[property as keyof T];
      return typeof member === 'function' ? member.bind(value) : member;
    },
  });
}
