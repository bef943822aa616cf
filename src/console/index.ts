export { type ConsoleDeps, EXIT, exitCodeFor, runInteractiveConsole, runOneShot } from './console.js';
export { consoleErrorText } from './error-text.js';
export {
  formatBytes,
  isPreview,
  type RenderOptions,
  render,
  renderObject,
  renderPreview,
  renderTable,
} from './render.js';
