// @ts-check
// The versions a new project depends on. The @mfx packages follow this package's
// own version (they are released together); the others are the ranges mfx itself
// is built and tested with (a test in the mfx repository compares them).

/** Third-party packages a scaffolded project installs, with their ranges. */
export const thirdParty = {
  'better-sqlite3': '^12.11.1',
  pg: '^8.23.1',
  'pg-cursor': '^2.22.0',
  typescript: '5.9',
  'ts-patch': '3.3',
  '@types/node': '^20.19.43',
};
