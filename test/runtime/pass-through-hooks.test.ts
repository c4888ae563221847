// Hooks registered for their setup only (publishEvents(), audit(): their work is a write observer)
// are marked passThrough and left out of the request chains, so a request of their models keeps
// the synchronous path of the step defaults instead of a promise per step.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '@mfx/runtime';
import type { Context } from '../../runtime/src/pipeline/context.js';
import { describeHook } from '../../runtime/src/pipeline/hook-meta.js';
import { Pipeline, type StepDefaults, straight } from '../../runtime/src/pipeline/pipeline.js';
import { type Hook, STEPS } from '../../runtime/src/pipeline/types.js';

/** Step defaults that record the steps they ran, each finishing synchronously. */
function recordingDefaults(ran: string[]): StepDefaults {
  return Object.fromEntries(STEPS.map((step) => [step, straight(() => void ran.push(step))])) as StepDefaults;
}

const ctx = {} as Context;

describe('pass-through hooks', () => {
  it('are left out of the chain: the defaults run in the call, without a promise', () => {
    const pipeline = new Pipeline();
    let called = 0;
    const observed: Hook = (_ctx, next) => {
      called++;
      return next();
    };
    pipeline.use('db', describeHook(observed, { role: 'other', label: 'observed()', passThrough: true }), { position: 'after' });
    const ran: string[] = [];
    const answer = pipeline.build('Post', 'create', recordingDefaults(ran), undefined, silentLogger)(ctx);
    assert.equal(answer, undefined);
    assert.deepEqual(ran, [...STEPS]);
    assert.equal(called, 0);
  });

  it('leave a hook without the mark in the chain, which then answers with a promise', async () => {
    const pipeline = new Pipeline();
    let called = 0;
    pipeline.use(
      'db',
      (_ctx, next) => {
        called++;
        return next();
      },
      { position: 'after' },
    );
    const ran: string[] = [];
    const answer = pipeline.build('Post', 'create', recordingDefaults(ran), undefined, silentLogger)(ctx);
    assert.ok(answer instanceof Promise);
    await answer;
    assert.deepEqual(ran, [...STEPS]);
    assert.equal(called, 1);
  });
});
