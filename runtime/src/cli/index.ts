/**
 * `@mfx/runtime/cli`: what the mfx commands share, for the commands of
 * other packages too (`mfx build` in @mfx/compiler).
 */
export { endOnClosedPipe, type FileWatcher, untilSignal, type WatchOptions, watchFiles } from './process.js';
