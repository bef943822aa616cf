import { Writable } from 'node:stream';

/** A writable that keeps everything written to it: a console's output, a log destination. */
export class TextSink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}
