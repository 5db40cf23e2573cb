import { fileTypeFromFile } from 'file-type';
import sharp from 'sharp';
import { AppError, ErrorCode } from '../../shared/errors/app-error.js';

export const ACCEPTED_AVATAR_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'] as const;
const MAX_INPUT_SIDE = 4096;
const AVATAR_SIDE = 512;

sharp.cache(false); // every avatar is decoded once; the cache would only hold memory

/**
 * Turns an uploaded file into the stored avatar: the type is decided by the file's bytes, the
 * dimensions are read from the header before anything is decoded, and the result is a square
 * WebP of at most 512x512 without any metadata (sharp drops EXIF, XMP, ICC and GPS unless asked).
 */
export async function encodeAvatar(path: string): Promise<Buffer> {
  const type = await fileTypeFromFile(path);
  if (!type || !(ACCEPTED_AVATAR_TYPES as readonly string[]).includes(type.mime)) {
    throw new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'The avatar must be a JPEG, PNG, WebP or GIF image');
  }
  const options = { limitInputPixels: MAX_INPUT_SIDE * MAX_INPUT_SIDE, failOn: 'error', animated: false } as const;
  let width: number | undefined;
  let height: number | undefined;
  try {
    ({ width, height } = await sharp(path, options).metadata());
  } catch (error) {
    throw invalidImage('The image header cannot be read', error);
  }
  if (!width || !height) throw invalidImage('The image has no dimensions');
  if (width > MAX_INPUT_SIDE || height > MAX_INPUT_SIDE) {
    throw invalidImage(`The image is ${width}x${height}; at most ${MAX_INPUT_SIDE}x${MAX_INPUT_SIDE} pixels are accepted`);
  }
  try {
    const side = Math.min(AVATAR_SIDE, width, height);
    return await sharp(path, options)
      .rotate() // apply the EXIF orientation before the metadata goes
      .resize(side, side, { fit: 'cover', position: 'centre' })
      .webp({ quality: 82 })
      .toBuffer();
  } catch (error) {
    throw invalidImage('The image cannot be decoded', error);
  }
}

function invalidImage(message: string, cause?: unknown): AppError {
  return new AppError(ErrorCode.INVALID_IMAGE, message, { cause });
}
