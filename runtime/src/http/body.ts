import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors/api-error.js';

/** JSON request bodies are capped at 4 MB. */
export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;

/**
 * Reads the whole body, refusing it with 413 as soon as it passes `limit`
 * (before reading anything when Content-Length already says so).
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > limit) throw tooLarge(limit);
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError('BODY_READ_ERROR', 'the request body could not be read to the end');
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}

function tooLarge(limit: number): ApiError {
  return new ApiError('BODY_TOO_LARGE', `request body is larger than ${limit} bytes`, undefined, { Connection: 'close' });
}

/** Parses a JSON object body: empty is EMPTY_BODY; bad JSON or a non-object is INVALID_JSON. */
export function parseJsonObject(raw: Buffer): Record<string, unknown> {
  if (raw.length === 0 || raw.toString('utf8').trim() === '') throw new ApiError('EMPTY_BODY', 'request body is empty; send a JSON object');
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new ApiError('INVALID_JSON', `request body is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError('INVALID_JSON', `request body must be a JSON object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
  }
  return value as Record<string, unknown>;
}

export function isMultipart(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/form-data');
}
