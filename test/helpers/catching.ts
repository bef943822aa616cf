/** What `action` threw; fails the test when it throws nothing. */
export function catching(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
