// Moved to src/format so the Slack blocks render the same tables; removed once console.ts imports it directly.
export * from '../format/plain-text.js';
