const CANONICAL = /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/;

/**
 * A MAC in any common notation (`aa:bb:cc:dd:ee:ff`, `AA-BB-CC-DD-EE-FF`, `aabb.ccdd.eeff`,
 * `aabbccddeeff`) as the controller writes it: lower case, colons. Undefined when it is none,
 * including mixed separators, which are more likely a typo than a MAC.
 */
export function normalizeMac(text: string): string | undefined {
  // The controller already sends this form: skip the rewriting (it runs once per client).
  if (CANONICAL.test(text)) return text;
  const t = text.trim().toLowerCase();
  let hex: string | undefined;
  if (/^[0-9a-f]{2}([:-])[0-9a-f]{2}(\1[0-9a-f]{2}){4}$/.test(t)) hex = t.replace(/[:-]/g, '');
  else if (/^[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}$/.test(t)) hex = t.replace(/\./g, '');
  else if (/^[0-9a-f]{12}$/.test(t)) hex = t;
  return hex?.match(/../g)?.join(':');
}
