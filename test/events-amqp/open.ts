// Opens the AMQP bus of test/events-amqp on the exchange named by
// MFX_TEST_EXCHANGE (used by the test and its child process). Queues expire a
// minute after their last consumer, so a run leaves nothing behind.
import type { EventBus } from '../../runtime/src/events/types.js';
import { amqpBus } from '@mfx/events-amqp';

export const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

export async function openBus(url = AMQP_URL): Promise<EventBus> {
  return amqpBus({ url, exchange: process.env.MFX_TEST_EXCHANGE!, queueOptions: { expires: 60_000 } });
}
