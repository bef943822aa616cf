// Canonical JSON and the preview hash are shared with the change runner: lib/canonical.ts.
export { canonicalJson, diffPreviews, previewHash, sha256Hex, withoutWarnings } from '../lib/canonical.js';
