// Opens the NATS JetStream bus of test/events-nats on the stream named by
// MFX_TEST_NATS_STREAM, with a short ack wait so a crashed consumer's message
// is redelivered within the test, and a short ephemeral expiry so the server
// deletes a killed process's ephemeral consumer within it (used by the test
// and its child process).
import type { EventBus } from '../../runtime/src/events/types.js';
import { natsBus, type NatsBusOptions } from '@mfx/events-nats';

export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

export async function openBus(options: Partial<NatsBusOptions> = {}): Promise<EventBus> {
  return natsBus({ servers: NATS_URL, stream: process.env.MFX_TEST_NATS_STREAM!, ackWaitMs: 500, ephemeralExpiryMs: 1000, ...options });
}
