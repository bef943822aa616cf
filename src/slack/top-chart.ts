import { type TopClientsAnswer, topClientsChart } from '../tools/clients/top-clients.js';
import type { ToolContext } from '../tools/core/define-tool.js';

/**
 * The PNG `/net top` posts beside its table, or undefined when there is nothing to draw.
 * The chart code (vega, vega-lite) is loaded on the first chart only.
 */
export async function topClientsChartPng(
  answer: TopClientsAnswer,
  context: ToolContext,
): Promise<{ png: Uint8Array; subtitle: string } | undefined> {
  const data = await topClientsChart(answer, context);
  if (!data) return undefined;
  const { renderRateChartPng } = await import('../topology/chart.js');
  return { png: await renderRateChartPng(data), subtitle: data.subtitle };
}
