// pg exports its lib/ files but @types/pg does not describe them; this is the one mfx uses.
declare module 'pg/lib/utils.js' {
  const utils: {
    /** pg's conversion of a JavaScript parameter value to what the protocol sends. */
    prepareValue(value: unknown): unknown;
  };
  export default utils;
}
