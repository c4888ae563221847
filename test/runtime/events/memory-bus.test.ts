// The in-process bus under the part of the bus contract that applies to it:
// it has no broker connection to lose, so only close() ending its
// subscriptions quietly (no onClosed) is asked of it.
import { memoryBus } from '@mfx/runtime';
import { dropContract } from '../../support/bus-contract.js';

dropContract('memory', { open: async () => memoryBus() });
