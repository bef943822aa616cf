export {
  formatBytes,
  isPreview,
  type RenderOptions,
  render,
  renderObject,
  renderPreview,
  renderTable,
} from '../format/plain-text.js';
export { type ConsoleDeps, EXIT, exitCodeFor, runInteractiveConsole, runOneShot } from './console.js';
export { consoleErrorJson, consoleErrorText } from './error-text.js';
