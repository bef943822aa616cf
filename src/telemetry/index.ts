export { type Coverage, formatDuration, WINDOW_MS, type WindowName } from './coverage.js';
export { consoleSamples, FleetTelemetry, type FleetTelemetryOptions } from './fleet-telemetry.js';
export type { RatePoint } from './series.js';
export {
  clientAppKey,
  type SeriesKind,
  Telemetry,
  type TelemetryOptions,
  type TelemetryReader,
  type WindowAnswer,
} from './telemetry.js';
