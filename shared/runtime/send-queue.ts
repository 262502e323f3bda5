import type { ServiceBroker } from "moleculer";

/** A transporter that can tell whether bytes it was given to send are still held in memory. */
export interface SendQueue {
	/** Bytes published or about to be that the connection has not yet handed to the kernel. */
	queuedBytes(): number;
}

function isSendQueue(transporter: unknown): transporter is SendQueue {
	return typeof (transporter as Partial<SendQueue> | null | undefined)?.queuedBytes === "function";
}

/**
 * Whether everything the broker's transporter was given has left the process, so that no
 * memory a stream was sent from is still read by it; false without a transporter that can tell.
 */
export function nothingQueuedToSend(broker: ServiceBroker): boolean {
	const transporter = broker.transit?.tx as unknown;
	return isSendQueue(transporter) && transporter.queuedBytes() === 0;
}
