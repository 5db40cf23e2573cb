import { fileTypeFromFile } from 'file-type';
import sharp from 'sharp';
import { AppError, ErrorCode, msg, type Message } from '../../shared/errors/app-error.js';

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
    throw new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, msg('avatar.unsupportedType'));
  }
  const options = { limitInputPixels: MAX_INPUT_SIDE * MAX_INPUT_SIDE, failOn: 'error', animated: false } as const;
  let width: number | undefined;
  let height: number | undefined;
  try {
    ({ width, height } = await sharp(path, options).metadata());
  } catch (error) {
    throw invalidImage(msg('avatar.headerUnreadable'), error);
  }
  if (!width || !height) throw invalidImage(msg('avatar.noDimensions'));
  if (width > MAX_INPUT_SIDE || height > MAX_INPUT_SIDE) {
    throw invalidImage(msg('avatar.tooBig', { width: String(width), height: String(height), max: String(MAX_INPUT_SIDE) }));
  }
  try {
    const side = Math.min(AVATAR_SIDE, width, height);
    return await sharp(path, options)
      .rotate() // apply the EXIF orientation before the metadata goes
      .resize(side, side, { fit: 'cover', position: 'centre' })
      .webp({ quality: 82 })
      .toBuffer();
  } catch (error) {
    throw invalidImage(msg('avatar.undecodable'), error);
  }
}

function invalidImage(message: Message, cause?: unknown): AppError {
  return new AppError(ErrorCode.INVALID_IMAGE, message, { cause });
}
