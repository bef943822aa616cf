// One redaction for every face and the journal: lib/redact.ts.

// The runner caps what it journals: changes/journal-cap.ts.
export { capForJournal, MAX_RESULT_CHARS } from '../changes/journal-cap.js';
export { REDACTED, redactSecrets } from '../lib/redact.js';
