/**
 * What a file's leading bytes say it is (the magic numbers of the common
 * types), and whether a field's `accept` patterns take a file: its declared
 * type and, where the bytes are recognised, its sniffed type must both match.
 */

/** How many leading bytes sniffing needs. */
export const SNIFF_BYTES = 16;

interface Signature {
  type: string;
  /** Byte values at `offset`; null matches any byte. */
  bytes: readonly (number | null)[];
  offset?: number;
  /** The type's files do not always start with these bytes. */
  optional?: boolean;
}

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

/** Checked in order; the first match wins. */
const SIGNATURES: readonly Signature[] = [
  { type: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { type: 'image/gif', bytes: ascii('GIF87a') },
  { type: 'image/gif', bytes: ascii('GIF89a') },
  { type: 'image/webp', bytes: [...ascii('RIFF'), null, null, null, null, ...ascii('WEBP')] },
  { type: 'image/bmp', bytes: ascii('BM') },
  { type: 'image/tiff', bytes: [0x49, 0x49, 0x2a, 0x00] },
  { type: 'image/tiff', bytes: [0x4d, 0x4d, 0x00, 0x2a] },
  { type: 'image/x-icon', bytes: [0x00, 0x00, 0x01, 0x00] },
  { type: 'image/avif', bytes: ascii('ftypavif'), offset: 4 },
  { type: 'image/heic', bytes: ascii('ftypheic'), offset: 4 },
  { type: 'application/pdf', bytes: ascii('%PDF-') },
  { type: 'application/zip', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { type: 'application/zip', bytes: [0x50, 0x4b, 0x05, 0x06] },
  { type: 'application/gzip', bytes: [0x1f, 0x8b] },
  { type: 'application/x-7z-compressed', bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] },
  { type: 'application/vnd.rar', bytes: ascii('Rar!') },
  { type: 'application/wasm', bytes: [0x00, 0x61, 0x73, 0x6d] },
  { type: 'application/x-msdownload', bytes: ascii('MZ') },
  { type: 'application/x-executable', bytes: [0x7f, 0x45, 0x4c, 0x46] },
  { type: 'application/x-mach-binary', bytes: [0xcf, 0xfa, 0xed, 0xfe] },
  { type: 'audio/wav', bytes: [...ascii('RIFF'), null, null, null, null, ...ascii('WAVE')] },
  { type: 'audio/ogg', bytes: ascii('OggS') },
  { type: 'audio/flac', bytes: ascii('fLaC') },
  // MP3 files without an ID3 tag start with a frame header: the tag is optional, so the type is not required to carry it.
  { type: 'audio/mpeg', bytes: ascii('ID3'), optional: true },
  { type: 'video/webm', bytes: [0x1a, 0x45, 0xdf, 0xa3] },
  { type: 'video/quicktime', bytes: ascii('ftypqt'), offset: 4 },
  { type: 'video/mp4', bytes: ascii('ftyp'), offset: 4 },
];

/** Every type a signature exists for: a file declared as one of them must carry its bytes. */
const SNIFFABLE = new Set(SIGNATURES.filter((s) => !s.optional).map((s) => s.type));

/**
 * Declared types whose files carry another type's signature: ZIP containers
 * (office documents, EPUB, JAR) and ISO media (MP4 audio, HEIF). When the
 * bytes show the container, such a declared type stands.
 */
const CONTAINERS: Record<string, RegExp> = {
  'application/zip': /^application\/(.+\+zip|vnd\.openxmlformats-.+|vnd\.oasis\.opendocument\..+|java-archive|x-zip-compressed|epub\+zip|vnd\.android\.package-archive)$/,
  'video/mp4': /^(audio|video)\/(mp4|x-m4a|x-m4v|3gpp|3gpp2)$|^image\/(heif|heic|avif)$/,
  'image/x-icon': /^image\/vnd\.microsoft\.icon$/,
};

/**
 * The type the leading bytes show, or null when they match no known signature
 * (text, CSV, JSON and other formats without a magic number).
 *
 * @example
 * sniffType(Buffer.from('%PDF-1.7')); // 'application/pdf'
 */
export function sniffType(head: Buffer): string | null {
  for (const { type, bytes, offset = 0 } of SIGNATURES) {
    if (head.length < offset + bytes.length) continue;
    if (bytes.every((b, i) => b === null || head[offset + i] === b)) return type;
  }
  return null;
}

/** The media type of a Content-Type value, lower-cased, without parameters; '' when there is none. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** Whether `type` matches one of `patterns` (`type/subtype` or `type/*`). */
export function matchesAccept(type: string, patterns: readonly string[]): boolean {
  const [major] = type.split('/');
  return patterns.some((p) => {
    const pattern = p.toLowerCase();
    return pattern === type || (pattern.endsWith('/*') && pattern.slice(0, -2) === major);
  });
}

/** The type the server records for a file, or the reason the field refuses it. */
export type TypeDecision = { ok: true; contentType: string } | { ok: false; reason: string };

/**
 * Decides a file's type from its declared type and leading bytes: the bytes
 * win when they are recognised (a renamed executable is not an image); a
 * declared type that has a signature must carry it. With `accept`, both the
 * declared and the sniffed type must match a pattern.
 *
 * @example
 * decideType('image/png', Buffer.from('MZ...'), ['image/*']); // { ok: false, reason: ... }
 */
export function decideType(declared: string, head: Buffer, accept: readonly string[] | undefined): TypeDecision {
  const claimed = declared === '' ? null : declared;
  const bytes = sniffType(head);
  // A container's more specific declared type stands for it.
  const sniffed = bytes && claimed && CONTAINERS[bytes]?.test(claimed) ? claimed : bytes;
  const contentType = sniffed ?? claimed ?? 'application/octet-stream';
  if (!accept || accept.length === 0) return { ok: true, contentType };
  const allowed = accept.join(', ');
  if (!claimed || !matchesAccept(claimed, accept)) {
    return { ok: false, reason: `is declared as ${claimed ?? 'no type'}; the field accepts ${allowed}` };
  }
  if (sniffed && !matchesAccept(sniffed, accept)) {
    return { ok: false, reason: `is declared as ${claimed} but its content is ${sniffed}; the field accepts ${allowed}` };
  }
  if (!sniffed && SNIFFABLE.has(claimed)) {
    return { ok: false, reason: `is declared as ${claimed} but its content is not ${claimed}; the field accepts ${allowed}` };
  }
  return { ok: true, contentType };
}
