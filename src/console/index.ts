export {
  formatBytes,
  isPreview,
  type RenderOptions,
  render,
  renderObject,
  renderTable,
} from '../format/plain-text.js';
export { type PreviewOptions, renderPreview } from '../format/preview-text.js';
export { type ConsoleDeps, EXIT, exitCodeFor, runInteractiveConsole, runOneShot } from './console.js';
export { consoleErrorJson, consoleErrorText } from './error-text.js';
