import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(Buffer.from(type, 'latin1'), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/**
 * Encodes opaque RGBA pixels as an RGB PNG with Node's native zlib. The WebAssembly renderer's own
 * encoder is several times slower on big pictures; the alpha channel is dropped because the
 * picture is drawn on a white background.
 */
export function encodePng(rgba: Uint8Array, width: number, height: number): Uint8Array {
  const stride = width * 3 + 1;
  const raw = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    // Filter byte 0 (none) then the row's RGB triples.
    let out = y * stride + 1;
    let at = y * width * 4;
    for (let x = 0; x < width; x++) {
      raw[out] = rgba[at] ?? 0;
      raw[out + 1] = rgba[at + 1] ?? 0;
      raw[out + 2] = rgba[at + 2] ?? 0;
      out += 3;
      at += 4;
    }
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit depth, colour type 2 (RGB), deflate, adaptive filtering, no interlace
  const idat = deflateSync(raw, { level: 6 });
  const parts = [SIGNATURE, chunk('IHDR', header), chunk('IDAT', idat), chunk('IEND', new Uint8Array(0))];
  const png = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    png.set(part, offset);
    offset += part.length;
  }
  return png;
}

/** Width and height of a PNG from its IHDR chunk; undefined when the bytes are not a PNG. */
export function pngDimensions(png: Uint8Array): { width: number; height: number } | undefined {
  if (png.length < 24 || SIGNATURE.some((byte, i) => png[i] !== byte)) return undefined;
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}
