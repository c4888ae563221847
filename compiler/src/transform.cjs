// @mfx/compiler/transform: the ts-patch entry (`tspc`).
//
// ts-patch loads plugins with require(), while the compiler is written as ES
// modules in TypeScript. tsx's CommonJS API compiles it on the fly, so the
// plugin runs the very same code as `mfx build`.
'use strict';

const { require: tsxRequire } = require('tsx/cjs/api');

const { transformProgram } = tsxRequire('./transform.ts', __filename);

module.exports = transformProgram;
module.exports.default = transformProgram;
module.exports.transformProgram = transformProgram;
