// Image fixtures of the avatar suite, made with sharp at test time (not a test file).
import { expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

/** A plain image of one colour. */
export function solid(width: number, height: number, format: 'jpeg' | 'png' | 'webp' | 'gif', colour = '#3a7'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .toFormat(format)
    .toBuffer();
}

/** Random pixels: compresses badly, so a cut-off file really misses image data. */
export function noise(width: number, height: number, format: 'jpeg' | 'png'): Promise<Buffer> {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .toFormat(format)
    .toBuffer();
}

/** 300x200: a red band (50 px) on the left, green in the middle, a blue band on the right. */
export async function bands(): Promise<Buffer> {
  const band = (colour: string) => sharp({ create: { width: 50, height: 200, channels: 3, background: colour } }).png().toBuffer();
  return sharp({ create: { width: 300, height: 200, channels: 3, background: '#00ff00' } })
    .composite([
      { input: await band('#ff0000'), left: 0, top: 0 },
      { input: await band('#0000ff'), left: 250, top: 0 },
    ])
    .jpeg({ quality: 95 })
    .toBuffer();
}

const XMP =
  '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">' +
  '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" ' +
  'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>Jane Doe</dc:creator></rdf:Description></rdf:RDF>' +
  '</x:xmpmeta><?xpacket end="w"?>';

/** A 1024x768 JPEG carrying EXIF (copyright, GPS), XMP and an ICC profile. */
export async function jpegWithMetadata(): Promise<Buffer> {
  const bytes = await sharp({ create: { width: 1024, height: 768, channels: 3, background: '#c84' } })
    .withExif({ IFD0: { Copyright: 'x', Artist: 'Jane Doe' }, IFD3: { GPSLatitudeRef: 'N', GPSLongitudeRef: 'E' } })
    .withXmp(XMP)
    .withIccProfile('p3')
    .jpeg()
    .toBuffer();
  const meta = await sharp(bytes).metadata();
  // The fixture must really carry what the service has to strip.
  expect({ exif: !!meta.exif, xmp: !!meta.xmp, icc: !!meta.icc }).toEqual({ exif: true, xmp: true, icc: true });
  return bytes;
}

/** A two-frame animated GIF: red, then blue. */
export async function animatedGif(): Promise<Buffer> {
  const frame = (colour: string) => sharp({ create: { width: 64, height: 64, channels: 3, background: colour } }).png().toBuffer();
  const gif = await sharp([await frame('#ff0000'), await frame('#0000ff')], { join: { animated: true } })
    .gif()
    .toBuffer();
  expect((await sharp(gif, { animated: true }).metadata()).pages).toBe(2);
  return gif;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid PNG header announcing width x height RGB pixels, with a tiny IDAT: a decompression bomb. */
export function pngBomb(width = 50_000, height = 50_000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.alloc(64))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** `png` grown to exactly `size` bytes by a tEXt chunk before IEND: still a valid PNG. */
export function padPng(png: Buffer, size: number): Buffer {
  const iend = png.length - 12;
  const filler = size - png.length - 12 - 'Comment\0'.length;
  if (filler < 0) throw new Error(`the PNG is already ${png.length} bytes`);
  const padded = Buffer.concat([png.subarray(0, iend), pngChunk('tEXt', Buffer.concat([Buffer.from('Comment\0'), Buffer.alloc(filler, 0x61)])), png.subarray(iend)]);
  expect(padded.length).toBe(size);
  return padded;
}

/** The RGB pixel at (x, y) of an encoded image. */
export async function pixel(image: Buffer, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

export const HTML = Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>\n');
export const SVG = Buffer.from(
  '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>',
);
export const TEXT = Buffer.from('just some text, not an image\n'.repeat(20));
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
