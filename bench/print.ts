/**
 * Prints the tables of a saved run again: `tsx bench/print.ts bench/results/<run>.json`.
 * The budget rows are recomputed from the run's results (so a change in how they are worded shows
 * without measuring again); `--rewrite` also stores them back into the file's `budgets`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { budgetRows, markdownReport, type PartResults } from './lib/report.js';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
if (!file) {
  process.stderr.write('usage: tsx bench/print.ts bench/results/<run>.json [--rewrite]\n');
  process.exit(2);
}
const summary = JSON.parse(readFileSync(file, 'utf8')) as { results: PartResults; budgets?: unknown };
console.log(markdownReport(summary.results));
if (args.includes('--rewrite')) {
  summary.budgets = budgetRows(summary.results);
  writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
}
