import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { median, rssOf, signIn, type Row, type ServiceProcess } from './support.js';

const UPLOADS = 20;
const MiB = 1024 * 1024;

/** A PNG whose header claims `width`x`height`, with a token of pixel data: a decompression bomb. */
function pixelBombPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(1024))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Random noise stored without compression: a 1320x1320 PNG is just under 5 MiB. */
async function nearlyFiveMiBImage(): Promise<Buffer> {
  const png = await sharp({ create: { width: 1320, height: 1320, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  if (png.length > 5 * MiB) throw new Error(`fixture is ${png.length} bytes, over 5 MiB`);
  return png;
}

function upload(service: ServiceProcess, token: string, bytes: Buffer, name = 'photo.png'): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), name);
  return fetch(`${service.url}/api/v1/users/me/avatar`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
}

export async function avatarBench(service: ServiceProcess): Promise<Row[]> {
  const image = await nearlyFiveMiBImage();
  const tokens = await Promise.all(Array.from({ length: UPLOADS }, (_, i) => signIn(service, `+86139${String(10000000 + i).slice(-8)}`)));
  // Warm up once so that lazily loaded code (sharp, file-type) is not counted as growth.
  await upload(service, tokens[0]!, image);
  await new Promise((r) => setTimeout(r, 500));

  const before = rssOf(service.pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(service.pid));
  }, 10);
  const started = performance.now();
  const statuses = await Promise.all(tokens.map((token) => upload(service, token, image).then((r) => r.status)));
  const elapsed = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(service.pid));
  if (statuses.some((s) => s !== 200)) throw new Error(`uploads failed: ${statuses.join(',')}`);

  const bomb = pixelBombPng(50_000, 50_000);
  const bombTimes: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    const res = await upload(service, tokens[0]!, bomb, 'bomb.png');
    bombTimes.push(performance.now() - t0);
    if (res.status !== 422) throw new Error(`pixel bomb answered ${res.status}`);
  }
  const growth = (peak - before) / MiB;
  const bombMs = median(bombTimes);
  return [
    {
      case: `avatar: ${UPLOADS} concurrent ${(image.length / MiB).toFixed(2)} MiB uploads, server RSS growth`,
      value: `${growth.toFixed(1)} MB (baseline ${(before / MiB).toFixed(0)} MB, all in ${(elapsed / 1000).toFixed(1)} s)`,
      target: '< 150 MB',
      pass: growth < 150,
    },
    {
      case: 'avatar: refuse a 50000x50000 PNG (median of 7)',
      value: `${bombMs.toFixed(1)} ms`,
      target: '< 100 ms',
      pass: bombMs < 100,
    },
  ];
}
