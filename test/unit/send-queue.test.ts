import type { ServiceBroker } from "moleculer";
import { nothingQueuedToSend } from "../../shared/runtime/send-queue.js";

/**
 * The gateway reuses the memory a stream was sent from only once the transporter holds none of
 * it (issue 19): a transporter that cannot tell, or none, never lets it be reused.
 */

const brokerWith = (tx: unknown) => ({ transit: tx === undefined ? undefined : { tx } }) as unknown as ServiceBroker;

test("nothing is queued only when the transporter says so", () => {
	let queued = 3;
	const broker = brokerWith({ queuedBytes: () => queued });
	expect(nothingQueuedToSend(broker)).toBe(false);
	queued = 0;
	expect(nothingQueuedToSend(broker)).toBe(true);
});

test("without a transporter, or with one that cannot tell, the bytes count as still queued", () => {
	expect(nothingQueuedToSend(brokerWith(undefined))).toBe(false);
	expect(nothingQueuedToSend(brokerWith({}))).toBe(false);
});
